import Crypto
import Foundation
import TestSupport
import Testing

@testable import AppStoreFake

/// `subdash fetch` as a person runs it: the built binary, credentials from flags and the
/// environment, `--api-base` pointing at the fake App Store.
@Suite(.serialized) struct FetchCommandTests {
    /// subdash with no user configuration (`XDG_CONFIG_HOME` points nowhere).
    static func subdash(_ arguments: [String], environment: [String: String] = [:]) throws -> Subdash.Run {
        try Subdash.run(arguments, environment: ["XDG_CONFIG_HOME": "/nonexistent"].merging(environment) { $1 })
    }

    /// `subdash` run from a thread of its own: waiting for the process must not hold one of the
    /// task threads the in-process fake App Store answers on.
    static func subdashOffThread(_ arguments: [String], environment: [String: String] = [:]) async throws -> Subdash.Run {
        try await Subdash.runOffThread(arguments, environment: ["XDG_CONFIG_HOME": "/nonexistent"].merging(environment) { $1 })
    }

    static func files(_ key: P256.Signing.PrivateKey) throws -> (key: String, root: String, store: String) {
        let dir = try TemporaryDirectory("fetch").path
        try key.pemRepresentation.write(toFile: dir + "/AuthKey.p8", atomically: true, encoding: .utf8)
        chmod(dir + "/AuthKey.p8", 0o600)
        try FakeAppStore.chain.get().rootPEM().write(toFile: dir + "/root.pem", atomically: true, encoding: .utf8)
        return (dir + "/AuthKey.p8", dir + "/root.pem", dir + "/store.sqlite")
    }

    @Test func historyFromTheEnvironmentsCredentialsIsImportedAndASecondRunIsDuplicates() async throws {
        let key = P256.Signing.PrivateKey()
        let fake = try FetchTests.fake(key: key)
        let paths = try Self.files(key)
        defer { try? FileManager.default.removeItem(atPath: (paths.key as NSString).deletingLastPathComponent) }
        let env = [
            "SUBDASH_ISSUER_ID": FakeAppStore.issuerId, "SUBDASH_KEY_ID": FakeAppStore.keyId,
            "SUBDASH_BUNDLE_ID": FakeAppStore.bundleId, "SUBDASH_PRIVATE_KEY": paths.key,
        ]
        let (first, second) = try await fake.serve { base in
            let args = ["fetch", "history", "1000", "--db", paths.store, "--trust-root", paths.root, "--api-base", base]
            return (
                try await Self.subdashOffThread(args, environment: env), try await Self.subdashOffThread(args, environment: env)
            )
        }
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("3 applied, 0 duplicates, 0 rejected, 0 in conflict; 1 subscription touched"))
        #expect(second.stderr.contains("0 applied, 3 duplicates, 0 rejected"))
        #expect(!first.stderr.contains("PRIVATE KEY"))
        let report = try Self.subdash(["report", "subscriber", "1000", "--db", paths.store, "--format", "json"])
        #expect(report.stdout.contains("\"1004\""))
    }

    @Test func aKeyOpenToOthersIsRefusedBeforeAnyRequest() async throws {
        let key = P256.Signing.PrivateKey()
        let paths = try Self.files(key)
        defer { try? FileManager.default.removeItem(atPath: (paths.key as NSString).deletingLastPathComponent) }
        chmod(paths.key, 0o640)
        let run = try Self.subdash([
            "fetch", "statuses", "1000", "--db", paths.store, "--issuer-id", "i", "--key-id", "k",
            "--bundle-id", "b", "--private-key", paths.key, "--api-base", "http://127.0.0.1:9",
        ])
        #expect(run.status == 2)
        #expect(run.stderr.contains("can be read by its group or others (mode 640): run `chmod 600"))
    }

    @Test func a401EndsWithWhatToCheckAndExitStatus1() async throws {
        let fake = try FetchTests.fake(key: P256.Signing.PrivateKey())
        let paths = try Self.files(P256.Signing.PrivateKey())
        defer { try? FileManager.default.removeItem(atPath: (paths.key as NSString).deletingLastPathComponent) }
        let run = try await fake.serve { base in
            try await Self.subdashOffThread([
                "fetch", "notifications", "--since", "2025-01-01", "--db", paths.store, "--issuer-id", FakeAppStore.issuerId,
                "--key-id", FakeAppStore.keyId, "--bundle-id", FakeAppStore.bundleId, "--private-key", paths.key,
                "--api-base", base,
            ])
        }
        #expect(run.status == 1)
        #expect(run.stderr.contains("401 Unauthorized: Apple refused the token"))
    }

    @Test func notificationsFromTheConfigFileThenResumedFromTheLatestStoredOne() async throws {
        let key = P256.Signing.PrivateKey()
        let fake = try FetchTests.fake(key: key)
        let paths = try Self.files(key)
        let dir = (paths.key as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/subdash", withIntermediateDirectories: true)
        try """
        [appstore]
        issuer_id = "\(FakeAppStore.issuerId)"
        key_id = "\(FakeAppStore.keyId)"
        bundle_id = "\(FakeAppStore.bundleId)"
        private_key = "../AuthKey.p8"
        """.write(toFile: dir + "/subdash/config.toml", atomically: true, encoding: .utf8)
        let env = ["XDG_CONFIG_HOME": dir]
        let (first, second) = try await fake.serve { base in
            let args = ["fetch", "notifications", "--db", paths.store, "--trust-root", paths.root, "--api-base", base]
            return (
                try await Self.subdashOffThread(args + ["--since", "2024-12-01"], environment: env),
                try await Self.subdashOffThread(args, environment: env)
            )
        }
        #expect(first.status == 0, "\(first.stderr)")
        // Two pages (documents) holding the three notifications.
        #expect(first.stderr.contains("page 2, 3 notifications\n2 applied, 0 duplicates, 0 rejected"))
        // The latest stored notification was signed on 2025-01-03 (1_735_689_600_000 + 2 days).
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("resuming at the latest stored notification, 2025-01-03"))
        // Both instants are older than the 180 days Apple keeps: the request starts there instead.
        #expect(second.stderr.contains("Apple keeps 180 days; starting at"))
        #expect(second.stderr.contains("0 applied, 2 duplicates, 0 rejected"))
    }

    @Test func aNotificationUUIDStoredWithOtherContentIsReportedAsAConflict() async throws {
        let key = P256.Signing.PrivateKey()
        let fake = try FetchTests.fake(key: key)
        // The third notification reuses the first one's notificationUUID for other content.
        fake.notifications = [
            FetchTests.notification(0, store: fake), FetchTests.notification(1, store: fake),
            FetchTests.notification(2, store: fake).replacingOccurrences(of: "uuid-2", with: "uuid-0"),
        ]
        let paths = try Self.files(key)
        defer { try? FileManager.default.removeItem(atPath: (paths.key as NSString).deletingLastPathComponent) }
        let env = [
            "SUBDASH_ISSUER_ID": FakeAppStore.issuerId, "SUBDASH_KEY_ID": FakeAppStore.keyId,
            "SUBDASH_BUNDLE_ID": FakeAppStore.bundleId, "SUBDASH_PRIVATE_KEY": paths.key,
        ]
        let run = try await fake.serve { base in
            try await Self.subdashOffThread(
                [
                    "fetch", "notifications", "--since", "2024-12-01", "--db", paths.store, "--trust-root", paths.root,
                    "--api-base", base,
                ],
                environment: env)
        }
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains(": conflict: notificationUUID uuid-0 is stored already as DID_RENEW"), "\(run.stderr)")
        #expect(run.stderr.contains(" 0 rejected, 1 in conflict; "), "\(run.stderr)")
    }

    @Test func aTestNotificationIsRequestedPolledAndStored() async throws {
        let key = P256.Signing.PrivateKey()
        let fake = try FetchTests.fake(key: key)
        fake.testNotification =
            #"{"notificationType":"TEST","notificationUUID":"uuid-test-1","signedDate":1735700000000,"data":{"bundleId":"\#(FakeAppStore.bundleId)","environment":"Production"},"version":"2.0"}"#
        fake.testAttempts = ["SUCCESS"]
        let paths = try Self.files(key)
        defer { try? FileManager.default.removeItem(atPath: (paths.key as NSString).deletingLastPathComponent) }
        let run = try await fake.serve { base in
            try await Self.subdashOffThread([
                "fetch", "test-notification", "--poll-interval", "0.1", "--db", paths.store, "--trust-root", paths.root,
                "--issuer-id", FakeAppStore.issuerId, "--key-id", FakeAppStore.keyId, "--bundle-id", FakeAppStore.bundleId,
                "--private-key", paths.key, "--api-base", base,
            ])
        }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "test notification uuid-test-1: SUCCESS\n")
        #expect(fake.requests.map(\.path).contains("/inApps/v1/notifications/test"))
    }

    static func credentialsEnvironment(_ key: String) -> [String: String] {
        [
            "SUBDASH_ISSUER_ID": FakeAppStore.issuerId, "SUBDASH_KEY_ID": FakeAppStore.keyId,
            "SUBDASH_BUNDLE_ID": FakeAppStore.bundleId, "SUBDASH_PRIVATE_KEY": key,
        ]
    }

    // MARK: - Every fetch ends

    @Test func aRevisionThatComesBackStopsTheFetchAfterStoringItsPages() async throws {
        let key = P256.Signing.PrivateKey()
        let fake = try FetchTests.fake(key: key)
        func page(_ transactions: [Int], revision: String) -> String {
            let signed = transactions.map { "\"\(fake.sign(FetchTests.transaction($0)))\"" }.joined(separator: ",")
            return
                #"{"revision":"\#(revision)","hasMore":true,"bundleId":"\#(FakeAppStore.bundleId)","environment":"Production","signedTransactions":[\#(signed)]}"#
        }
        fake.script(
            .status(200, body: page([0, 1], revision: "A")), .status(200, body: page([2, 3], revision: "B")),
            .status(200, body: page([4], revision: "A")), .status(200, body: page([4], revision: "B")))
        let paths = try Self.files(key)
        defer { try? FileManager.default.removeItem(atPath: (paths.key as NSString).deletingLastPathComponent) }
        let run = try await fake.serve { base in
            try await Self.subdashOffThread(
                ["fetch", "history", "1000", "--db", paths.store, "--trust-root", paths.root, "--api-base", base],
                environment: Self.credentialsEnvironment(paths.key))
        }
        #expect(run.status == 1, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "GET /inApps/v2/history: page 3 gives the revision 'A' that page 2 was asked with: "
                    + "the server is sending the same pages again; stopped after 3 pages"))
        #expect(run.stderr.contains("3 applied, 0 duplicates, 0 rejected, 0 in conflict; 1 subscription touched"))
        #expect(fake.requests.map { $0.query["revision"] } == [nil, "A", "B"])
    }

    @Test func aPageOverMaxDocumentBytesIsRejectedUnreadAndTheFetchStops() async throws {
        let key = P256.Signing.PrivateKey()
        let fake = try FetchTests.fake(key: key)
        let paths = try Self.files(key)
        defer { try? FileManager.default.removeItem(atPath: (paths.key as NSString).deletingLastPathComponent) }
        let run = try await fake.serve { base in
            try await Self.subdashOffThread(
                [
                    "fetch", "history", "1000", "--db", paths.store, "--trust-root", paths.root, "--api-base", base,
                    "--max-document-bytes", "2000",
                ], environment: Self.credentialsEnvironment(paths.key))
        }
        #expect(run.status == 1, "\(run.stderr)")
        // The first page (two signed transactions, each with its certificates) is far over 2,000 bytes.
        #expect(run.stderr.contains("api:history/1000 page 1: document is "))
        #expect(run.stderr.contains(" bytes, over the 2000 bytes limit (--max-document-bytes); not read\n"))
        #expect(
            run.stderr.contains(
                "GET /inApps/v2/history: page 1 is too large to read, and the revision of the next page is in it: "
                    + "stopped after 1 page"))
        #expect(run.stderr.contains("0 applied, 0 duplicates, 1 rejected"))
        #expect(fake.requests.count == 1)
    }

    // MARK: - The server and the configuration

    @Test func theFirstLineNamesTheServerAndAConfigFileGivingNothingIsReported() async throws {
        let key = P256.Signing.PrivateKey()
        let fake = try FetchTests.fake(key: key)
        let paths = try Self.files(key)
        let dir = (paths.key as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/subdash", withIntermediateDirectories: true)
        try "[app_store]\nissuer_id = \"\(FakeAppStore.issuerId)\"\n".write(
            toFile: dir + "/subdash/config.toml", atomically: true, encoding: .utf8)
        let (run, base) = try await fake.serve { base in
            let env = Self.credentialsEnvironment(paths.key).merging(["SUBDASH_API_BASE": base, "XDG_CONFIG_HOME": dir]) {
                $1
            }
            return (
                try await Self.subdashOffThread(
                    ["fetch", "statuses", "1000", "--db", paths.store, "--trust-root", paths.root], environment: env), base
            )
        }
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "fetch: App Store Server API at \(base) (SUBDASH_API_BASE)")
        #expect(
            lines.dropFirst().first
                == "warning: \(dir)/subdash/config.toml gives no App Store Server API setting: "
                + "it has no [appstore] section (it has [app_store])")
    }

    @Test(arguments: [
        (["--api-base", "http://api.example.com"], [:], "--api-base http://api.example.com"),
        ([], ["SUBDASH_API_BASE": "http://10.1.2.3:8080"], "SUBDASH_API_BASE http://10.1.2.3:8080"),
    ])
    func plainHttpToAnotherMachineIsRefusedBeforeAnyRequest(arguments: [String], environment: [String: String], named: String)
        throws
    {
        let key = P256.Signing.PrivateKey()
        let paths = try Self.files(key)
        defer { try? FileManager.default.removeItem(atPath: (paths.key as NSString).deletingLastPathComponent) }
        let run = try Self.subdash(
            ["fetch", "statuses", "1000", "--db", paths.store] + arguments,
            environment: Self.credentialsEnvironment(paths.key).merging(environment) { $1 })
        #expect(run.status == 2)
        #expect(
            run.stderr.contains(
                "\(named): refused: every request carries the bearer token, which plain http would send in clear; "
                    + "use https (plain http only to loopback: 127.0.0.1, ::1, localhost)"))
        #expect(!run.stderr.contains("fetch: App Store Server API at"))
    }

    @Test func aConfigFileWithCRLFLineEndingsIsRead() async throws {
        let key = P256.Signing.PrivateKey()
        let fake = try FetchTests.fake(key: key)
        let paths = try Self.files(key)
        let dir = (paths.key as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = [
            "# saved on Windows", "[appstore]", "issuer_id = \"\(FakeAppStore.issuerId)\"", "key_id = \"\(FakeAppStore.keyId)\"",
            "bundle_id = \"\(FakeAppStore.bundleId)\"", "private_key = \"AuthKey.p8\"", "",
        ].joined(separator: "\r\n")
        try config.write(toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
        let run = try await fake.serve { base in
            try await Self.subdashOffThread([
                "fetch", "statuses", "1000", "--db", paths.store, "--trust-root", paths.root, "--config", dir + "/config.toml",
                "--api-base", base,
            ])
        }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("1 applied, 0 duplicates, 0 rejected"))
    }

    @Test func aConfigFileGivingNothingIsNamedWhenCredentialsAreMissing() throws {
        let dir = try TemporaryDirectory("fetch-config").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "issuer_id = \"x\"\n[dashboard]\ntheme = \"light\"\n".write(
            toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
        let run = try Self.subdash([
            "fetch", "statuses", "1000", "--db", dir + "/store.sqlite", "--config", dir + "/config.toml",
        ])
        #expect(run.status == 2)
        #expect(run.stderr.contains("App Store Server API credentials missing: issuer id"))
        #expect(
            run.stderr.contains(
                "(\(dir)/config.toml gives no App Store Server API setting: it has no [appstore] section "
                    + "(it has issuer_id before any section and [dashboard]))"))
    }
}
