import AppStorePayloads
import Foundation
import GRDB
import TestSupport
import Testing

/// `subdash import --team` and `subdash sync` against a real PostgreSQL server (a private one
/// this test process starts: TestSupport/PostgresServer.swift), run as a user runs them.
@Suite(.serialized, .enabled(if: PostgresServer.runsTests, "needs a PostgreSQL server (initdb and pg_ctl)"))
struct TeamLogTests {
    static let trustRoot = SampleData.trustRoot

    /// The first `count` signed v2 notifications of SampleData, as Apple posted them.
    static let notifications = Result {
        Array(
            try DocumentReader().documents(atPath: SampleData.generated + "/v2/notifications-0001.ndjson.gz").prefix(90)
        ).compactMap(\.bytes)
    }

    static func ndjson(_ documents: [Data], extraLines: [String] = [], name: String) throws -> String {
        let path = TemporaryDirectory.uniquePath(name + ".ndjson")
        var data = Data()
        for d in documents {
            data.append(d)
            data.append(0x0A)
        }
        for line in extraLines { data.append(Data((line + "\n").utf8)) }
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    static func count(_ server: PostgresServer, _ url: String, _ sql: String) throws -> Int {
        let out = try server.psql(sql, database: PostgresServer.databaseName(of: url))
        return Int(out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// What a user compares: the states and MRR reports of a store, as JSON.
    static func reports(_ store: String) throws -> [String] {
        try [["report", "states", "--environment", "all"], ["report", "mrr", "--environment", "all"]].map { args in
            let run = try Subdash.run(args + ["--db", store, "--format", "json"])
            guard run.status == 0 else { throw TestSupportError("\(args) failed: \(run.stderr)") }
            return run.stdout
        }
    }

    /// The reports of a store made by a plain file import of `documents`.
    static func cleanImportReports(_ documents: [Data]) throws -> [String] {
        let file = try ndjson(documents, name: "clean")
        let store = TemporaryDirectory.uniquePath("clean.sqlite")
        let run = try Subdash.run(["import", "--db", store, "--trust-root", trustRoot, file])
        guard run.status == 0 else { throw TestSupportError("clean import failed: \(run.stderr)") }
        return try reports(store)
    }

    @Test func importTwiceStoresEachDocumentOnceAndNeverARejectedOne() throws {
        let server = try PostgresServer.server()
        let url = try server.createDatabase("push")
        let documents = Array(try Self.notifications.get().prefix(60))
        let file = try Self.ndjson(documents, extraLines: ["{\"not\": \"a notification\"}"], name: "push")

        let first = try Subdash.run(["import", "--team", url, "--trust-root", Self.trustRoot, file])
        #expect(first.status == 1, "one document is rejected: \(first.stderr)")
        #expect(first.stderr.contains("61 documents read from 1 file: 59 applied, 1 duplicate, 1 rejected"), "\(first.stderr)")
        #expect(first.stderr.contains("team log: 59 documents added, 0 already in the log"), "\(first.stderr)")
        #expect(try Self.count(server, url, "SELECT count(*) FROM subdash_document") == 59)
        #expect(try Self.count(server, url, "SELECT count(DISTINCT sha256) FROM subdash_document WHERE outcome = 'signed'") == 59)
        // The rejected line is nowhere in the log.
        #expect(
            try Self.count(
                server, url, "SELECT count(*) FROM subdash_document WHERE position('not' in convert_from(body, 'UTF8')) = 3") == 0
        )

        let again = try Subdash.run(["import", "--team", url, "--trust-root", Self.trustRoot, file])
        #expect(again.status == 1)
        #expect(again.stderr.contains("team log: 0 documents added, 59 already in the log"), "\(again.stderr)")
        #expect(try Self.count(server, url, "SELECT count(*) FROM subdash_document") == 59)
        // Sequence numbers are the log's own: 1…59 (SampleData repeats one of these notifications byte
        // for byte, as Apple's retries do), and the second run used none up.
        #expect(try Self.count(server, url, "SELECT max(seq) FROM subdash_document") == 59)
    }

    @Test func documentsThatFailVerificationNeverReachTheLog() throws {
        let server = try PostgresServer.server()
        let url = try server.createDatabase("untrusted")
        let file = try Self.ndjson(Array(try Self.notifications.get().prefix(5)), name: "untrusted")
        // Without the test root, Apple's roots do not vouch for the simulator's signatures.
        let run = try Subdash.run(["import", "--team", url, file])
        #expect(run.status == 1)
        #expect(run.stderr.contains("5 documents read from 1 file: 0 applied, 0 duplicates, 5 rejected"), "\(run.stderr)")
        #expect(run.stderr.contains("team log: 0 documents added, 0 already in the log"), "\(run.stderr)")
        #expect(try Self.count(server, url, "SELECT count(*) FROM subdash_document") == 0)
    }

    @Test func viewsSyncedFromTheLogReportWhatAFileImportReports() throws {
        let server = try PostgresServer.server()
        let url = try server.createDatabase("views")
        let all = Array(try Self.notifications.get().prefix(60))
        let view1 = TemporaryDirectory.uniquePath("view1.sqlite")
        let view2 = TemporaryDirectory.uniquePath("view2.sqlite")

        let firstHalf = try Subdash.run([
            "import", "--team", url, "--trust-root", Self.trustRoot, try Self.ndjson(Array(all.prefix(35)), name: "a"),
        ])
        #expect(firstHalf.status == 0, "\(firstHalf.stderr)")
        let sync1 = try Subdash.run(["sync", "--team", url, "--db", view1, "--trust-root", Self.trustRoot])
        #expect(sync1.status == 0, "\(sync1.stderr)")
        #expect(
            sync1.stderr.contains("34 log entries read: 34 applied, 0 duplicates, 0 rejected; the store is at log entry 34"),
            "\(sync1.stderr)")
        #expect(try Self.reports(view1) == (try Self.cleanImportReports(Array(all.prefix(35)))))

        let secondHalf = try Subdash.run([
            "import", "--team", url, "--trust-root", Self.trustRoot, try Self.ndjson(all, name: "b"),
        ])
        #expect(secondHalf.stderr.contains("team log: 25 documents added, 34 already in the log"), "\(secondHalf.stderr)")
        let sync1again = try Subdash.run(["sync", "--team", url, "--db", view1, "--trust-root", Self.trustRoot])
        #expect(sync1again.stderr.contains("25 log entries read: 25 applied"), "\(sync1again.stderr)")
        let sync2 = try Subdash.run(["sync", "--team", url, "--db", view2, "--trust-root", Self.trustRoot])
        #expect(sync2.stderr.contains("59 log entries read: 59 applied"), "\(sync2.stderr)")
        let nothingNew = try Subdash.run(["sync", "--team", url, "--db", view2, "--trust-root", Self.trustRoot])
        #expect(
            nothingNew.stderr.contains("0 log entries read: 0 applied, 0 duplicates, 0 rejected; the store is at log entry 59"),
            "\(nothingNew.stderr)")

        let expected = try Self.cleanImportReports(all)
        #expect(try Self.reports(view1) == expected)
        #expect(try Self.reports(view2) == expected)

        // A view rebuilt from scratch reads the whole log again and reports the same.
        let rebuilt = try Subdash.run(["sync", "--team", url, "--db", view1, "--rebuild", "--trust-root", Self.trustRoot])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(rebuilt.stderr.contains("59 log entries read: 59 applied"), "\(rebuilt.stderr)")
        #expect(try Self.reports(view1) == expected)
    }

    @Test func aViewVerifiesWhatItReadsFromTheLog() throws {
        let server = try PostgresServer.server()
        let url = try server.createDatabase("reverify")
        let file = try Self.ndjson(Array(try Self.notifications.get().prefix(10)), name: "reverify")
        #expect(try Subdash.run(["import", "--team", url, "--trust-root", Self.trustRoot, file]).status == 0)
        // A view that does not trust the simulator's root rejects every entry, whoever pushed it.
        let view = TemporaryDirectory.uniquePath("reverify.sqlite")
        let sync = try Subdash.run(["sync", "--team", url, "--db", view])
        #expect(sync.status == 1, "\(sync.stderr)")
        #expect(sync.stderr.contains("9 log entries read: 0 applied, 0 duplicates, 9 rejected"), "\(sync.stderr)")
        #expect(sync.stderr.contains("team log #1: rejected: "), "\(sync.stderr)")
        #expect(sync.stderr.contains("… and 4 more log entries: "), "\(sync.stderr)")
    }

    @Test func aFollowingViewAppliesANewEntry() throws {
        let server = try PostgresServer.server()
        let url = try server.createDatabase("follow")
        let all = Array(try Self.notifications.get().prefix(70))
        #expect(
            try Subdash.run([
                "import", "--team", url, "--trust-root", Self.trustRoot, try Self.ndjson(Array(all.prefix(60)), name: "f1"),
            ]).status == 0)
        let view = TemporaryDirectory.uniquePath("follow.sqlite")
        let errors = TemporaryDirectory.uniquePath("follow.err")
        #expect(FileManager.default.createFile(atPath: errors, contents: nil))
        let follower = try Subdash.process(["sync", "--team", url, "--db", view, "--trust-root", Self.trustRoot, "--follow"])
        follower.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try follower.run()
        defer { if follower.isRunning { kill(follower.processIdentifier, SIGKILL) } }
        let following = waitUntil(timeout: 60, interval: 0.1) {
            ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").contains("following the team log")
        }
        #expect(following)

        // Ten more documents, pushed while the view follows.
        let push = try Subdash.run(["import", "--team", url, "--trust-root", Self.trustRoot, try Self.ndjson(all, name: "f2")])
        #expect(push.stderr.contains("team log: 9 documents added, 59 already in the log"), "\(push.stderr)")
        let expected = try Self.cleanImportReports(all)
        let caughtUp = waitUntil(timeout: 60, interval: 0.1) {
            ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").contains("the store is at log entry 68")
        }
        #expect(caughtUp, "\((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        #expect(try Self.reports(view) == expected)
        kill(follower.processIdentifier, SIGTERM)
        follower.waitUntilExit()
        #expect(follower.terminationStatus == 0)
    }

    /// The role statements of docs/team.md, run as written there (the names suffixed per test).
    static func createRoles(_ server: PostgresServer, database: String, suffix: String) throws {
        let docs = try String(contentsOfFile: packagePath("docs/team.md"), encoding: .utf8)
        let block = docs.components(separatedBy: "```sql\n")[1].components(separatedBy: "```")[0]
        let statements = block.split(separator: "\n")
            .filter { !$0.hasPrefix("--") && !$0.contains("CREATE DATABASE") && !$0.contains("subdash_owner") }
            .joined(separator: "\n")
            .replacingOccurrences(of: " PASSWORD '…'", with: "")
            .replacingOccurrences(of: "subdash_listener", with: "subdash_listener_\(suffix)")
            .replacingOccurrences(of: "subdash_support", with: "subdash_support_\(suffix)")
            .replacingOccurrences(of: "subdash_analyst", with: "subdash_analyst_\(suffix)")
        try server.psql(statements, database: database)
    }

    @Test func theRolesOfTheDocsDoWhatTheySay() throws {
        let server = try PostgresServer.server()
        let url = try server.createDatabase("roles")
        let database = PostgresServer.databaseName(of: url)
        let all = try Self.notifications.get()
        // The owner creates the schema.
        #expect(
            try Subdash.run([
                "import", "--team", url, "--trust-root", Self.trustRoot, try Self.ndjson(Array(all.prefix(3)), name: "r1"),
            ]).status == 0)
        let suffix = "\(getpid())"
        try Self.createRoles(server, database: database, suffix: suffix)

        // A listener's role adds documents (and reads none of their bodies).
        let listener = server.url(database: database, role: "subdash_listener_\(suffix)")
        let pushed = try Subdash.run([
            "import", "--team", listener, "--trust-root", Self.trustRoot, try Self.ndjson(Array(all.prefix(5)), name: "r2"),
        ])
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(pushed.stderr.contains("team log: 2 documents added, 3 already in the log"), "\(pushed.stderr)")
        #expect(throws: (any Error).self) {
            try server.psql("SELECT body FROM subdash_document", database: database, role: "subdash_listener_\(suffix)")
        }

        // An analyst's is refused before a file is read, and still makes a view.
        let analyst = server.url(database: database, role: "subdash_analyst_\(suffix)")
        let refused = try Subdash.run([
            "import", "--team", analyst, "--trust-root", Self.trustRoot, try Self.ndjson(all, name: "r3"),
        ])
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("does not let this role insert documents: use a listener's or an importer's role"),
            "\(refused.stderr)")
        #expect(!refused.stderr.contains("documents read from"), "refused before reading: \(refused.stderr)")
        #expect(try Self.count(server, url, "SELECT count(*) FROM subdash_document") == 5)
        let view = TemporaryDirectory.uniquePath("analyst.sqlite")
        let sync = try Subdash.run(["sync", "--team", analyst, "--db", view, "--trust-root", Self.trustRoot])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stderr.contains("5 log entries read: 5 applied"), "\(sync.stderr)")
        #expect(try Self.reports(view) == (try Self.cleanImportReports(Array(all.prefix(5)))))
    }

    @Test func aViewOfOneLogIsRefusedByAnotherUntilRebuilt() throws {
        let server = try PostgresServer.server()
        let first = try server.createDatabase("first")
        let second = try server.createDatabase("second")
        let all = try Self.notifications.get()
        for (url, documents) in [(first, Array(all.prefix(5))), (second, Array(all.prefix(3)))] {
            #expect(
                try Subdash.run(["import", "--team", url, "--trust-root", Self.trustRoot, try Self.ndjson(documents, name: "l")])
                    .status == 0)
        }
        let view = TemporaryDirectory.uniquePath("two-logs.sqlite")
        #expect(try Subdash.run(["sync", "--team", first, "--db", view, "--trust-root", Self.trustRoot]).status == 0)
        let refused = try Subdash.run(["sync", "--team", second, "--db", view, "--trust-root", Self.trustRoot])
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(refused.stderr.contains("this store is a view of another team log"), "\(refused.stderr)")
        #expect(refused.stderr.contains("sync it with --rebuild"), "\(refused.stderr)")
        let rebuilt = try Subdash.run(["sync", "--team", second, "--db", view, "--rebuild", "--trust-root", Self.trustRoot])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(rebuilt.stderr.contains("3 log entries read: 3 applied"), "\(rebuilt.stderr)")
        #expect(try Self.reports(view) == (try Self.cleanImportReports(Array(all.prefix(3)))))
        let noLog = try Subdash.run(["sync", "--db", view], removing: ["SUBDASH_TEAM"])
        #expect(noLog.status == 2)
        #expect(noLog.stderr.contains("give the team log with --team URL or $SUBDASH_TEAM"), "\(noLog.stderr)")
    }

    @Test func thePasswordIsNeverPrinted() throws {
        let run = try Subdash.run([
            "sync", "--team", "postgres://someone:s3cr3t-pw@/nodb?host=/nonexistent-socket-dir", "--db",
            TemporaryDirectory.uniquePath("never.sqlite"),
        ])
        #expect(run.status == 3, "\(run.stderr)")
        #expect(
            run.stderr.contains("cannot reach the team log postgres://someone:***@/nodb?host=/nonexistent-socket-dir"),
            "\(run.stderr)")
        #expect(!run.stderr.contains("s3cr3t"))
        let badMode = try Subdash.run(["sync", "--team", "postgres://u:s3cr3t-pw@db.example/x?sslmode=allow"])
        #expect(badMode.status == 2)
        #expect(
            badMode.stderr.contains("sslmode 'allow' is not one of disable, require, verify-ca, verify-full"), "\(badMode.stderr)"
        )
        #expect(!badMode.stderr.contains("s3cr3t"))
    }
}
