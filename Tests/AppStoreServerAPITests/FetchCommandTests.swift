import Crypto
import Foundation
import TestSupport
import Testing

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
        #expect(first.stderr.contains("3 applied, 0 duplicates, 0 rejected; 1 subscription touched"))
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
}
