import Foundation
import GRDB
import SubscriberStore
import TestSupport
import Testing

/// The real binary where the behaviour is the process's: exit codes, files it creates (or not),
/// what it prints before anything else.
@Suite struct CommandLineSafetyTests {
    /// A new temporary directory (0700); the caller removes it.
    static func directory() throws -> String { try TemporaryDirectory("cli").path }

    static let example = SampleData.examples + "/v1/DID_RENEW.json"
    static let exampleId = "1000000900000001"

    /// A store holding one subscription (1000000900000001).
    static func storeWithOneSubscription(_ directory: String) throws -> String {
        let db = directory + "/store.sqlite"
        let imported = try Subdash.run(["import", "--no-verify", "--db", db, example])
        #expect(imported.status == 0, "\(imported.stderr)")
        return db
    }

    @Test func theDashboardWithoutATerminalRefusesAtOnce() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try Self.storeWithOneSubscription(dir)
        let started = Date()
        let result = try Subdash.run(["--db", db], timeout: 20)
        #expect(result.status == 2)
        #expect(result.stderr.contains("the dashboard needs a terminal: standard input is not one"))
        #expect(Date().timeIntervalSince(started) < 15)
    }

    @Test func withoutAStoreTheDashboardOpensNothingAndSaysWhatToDo() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for arguments in [[], ["dashboard"], ["--read-only"]] {
            let result = try Subdash.run(arguments, removing: ["SUBDASH_DB"], directory: dir, timeout: 20)
            #expect(result.status == 3)
            #expect(result.stderr.contains("no store here (subdash.sqlite): import data first"))
            #expect(result.stderr.contains("`subdash demo`"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty, "no ./subdash.sqlite created")
        let named = try Subdash.run(["--db", dir + "/shop.sqlite"], directory: dir, timeout: 20)
        #expect(named.status == 3)
        #expect(named.stderr.contains("no store at \(dir)/shop.sqlite: import data into it first"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test func demoHelpNamesTheStorePath() throws {
        let result = try Subdash.run(["demo", "--help"], environment: ["XDG_CACHE_HOME": "/srv/cache"])
        #expect(result.stdout.contains("/srv/cache/subdash/demo.sqlite"))
    }

    @Test func helpListsKeysAndExitStatusesAndNamesNoOutsideDocuments() throws {
        let help = try Subdash.run(["--help"]).stdout
        #expect(help.contains("keys"))
        #expect(help.contains("3 fatal"))
        let report = try Subdash.run(["report", "--help"]).stdout
        #expect(report.contains("docs/metrics.md"))
        #expect(!report.contains("DESIGN") && !report.contains("§"))
        #expect(try Subdash.run(["import", "--help"]).stdout.contains("3 fatal"))
    }

    @Test func anEarlierFlagIsKeptUnlessReplacedAndTheLogShowsBoth() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try Self.storeWithOneSubscription(dir)
        let id = Self.exampleId
        #expect(
            try Subdash.run(["flag", id, "--offer", "winBack", "--note", "first call", "--operator", "alice", "--db", db]).status
                == 0)
        let again = try Subdash.run(["flag", id, "--offer", "winBack", "--operator", "bob", "--db", db])
        #expect(again.status == 0)
        #expect(again.stderr.contains("\(id): already flagged for winBack by alice on "))
        #expect(again.stderr.contains("(note: first call); kept (--replace changes it)"))
        #expect(again.stdout.contains("flagged for winBack: 0 subscriptions as bob (1 already flagged: kept)"))
        // $USER empty: the login name is the operator.
        let login = try #require(OperatorIdentity.loginName())
        let replaced = try Subdash.run(
            ["flag", id, "--offer", "winBack", "--replace", "--note", "second", "--db", db],
            environment: ["USER": ""])
        #expect(replaced.status == 0)
        #expect(replaced.stdout.contains("flagged for winBack: 1 subscription as \(login)"))
        #expect(try Subdash.run(["flag", id, "--offer", "winBack", "--clear", "--operator", "carol", "--db", db]).status == 0)
        let log = try Subdash.run(["flags", "--log", "--format", "json", "--db", db])
        #expect(log.status == 0)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
        #expect(
            entries.map { "\($0["action"]!) \($0["operator"]!) \($0["note"]!)" }
                == ["set alice first call", "changed \(login) second", "cleared carol <null>"])
        #expect(entries.allSatisfy { ($0["originalTransactionId"] as? String) == id && ($0["offer"] as? String) == "winBack" })
        let table = try Subdash.run(["flags", "--log", "--db", db]).stdout
        #expect(table.contains("changed") && table.contains("3 changes"))
        #expect(try Subdash.run(["flags", "--db", db]).stdout.contains("no offer flags"))
    }

    @Test func identicalRejectionsAreGroupedAfterTheFirstFew() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/junk.ndjson"
        try String(repeating: "{\"a\": 1}\n", count: 10).write(toFile: file, atomically: true, encoding: .utf8)
        let result = try Subdash.run(["import", "--db", dir + "/store.sqlite", file])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let named = lines.filter { $0.hasPrefix("\(file):line ") }
        #expect(named.count == 3)
        #expect(named.first?.hasPrefix("\(file):line 1: ") == true)
        let reason = String(try #require(named.first).dropFirst("\(file):line 1: ".count))
        #expect(lines.contains("… and 7 more documents: \(reason)"))
        #expect(result.stderr.contains("10 documents read from 1 file: 0 applied, 0 duplicates, 10 rejected"))
    }

    @Test func aStoreFromANewerSubdashIsRefusedByEveryCommand() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try Self.storeWithOneSubscription(dir)
        let queue = try DatabaseQueue(path: db)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99 from the future')") }
        try queue.close()
        let newer = AppDatabase.schemaVersion + 1
        let commands: [[String]] = [
            ["import", "--no-verify", Self.example], ["flag", Self.exampleId, "--offer", "winBack", "--operator", "ann"],
            ["flags"], ["flags", "--log"], ["report", "states"], ["report", "cohorts"], ["report", "subscriber", Self.exampleId],
            ["report", "eligibility"], ["report", "events", "--from", "2025-01-01", "--to", "2025-02-01"],
            ["archive", "export", "--out", dir + "/out"], ["dashboard"], ["dashboard", "--read-only"],
        ]
        for command in commands {
            let result = try Subdash.run(command + ["--db", db], timeout: 20)
            #expect(result.status == 3, "\(command): \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "was written by a newer version of subdash (store schema version \(newer); "
                        + "this subdash reads versions up to \(AppDatabase.schemaVersion))"), "\(command): \(result.stderr)")
        }
        let queue2 = try DatabaseQueue(path: db)
        #expect(try queue2.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM offerFlagLog") } == 0)
    }

    @Test func fatalFailuresHaveTheirOwnExitCode() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let notAStore = dir + "/notes.txt"
        try String(repeating: "not a database\n", count: 100).write(toFile: notAStore, atomically: true, encoding: .utf8)
        #expect(try Subdash.run(["report", "states", "--db", notAStore]).status == 3)
        #expect(try Subdash.run(["import", "--no-verify", "--db", notAStore, Self.example]).status == 3)
        #expect(try Subdash.run(["report", "states", "--db", dir + "/missing.sqlite"]).status == 3)
        // Partly done is 1; usage is 2.
        let junk = dir + "/junk.json"
        try "[1, 2]".write(toFile: junk, atomically: true, encoding: .utf8)
        #expect(try Subdash.run(["import", "--db", dir + "/store.sqlite", junk]).status == 1)
        #expect(try Subdash.run(["import"]).status == 2)
    }

    @Test func newStoresArePrivateAndAReadableStoreIsPointedOut() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try Self.storeWithOneSubscription(dir)
        for file in try FileManager.default.contentsOfDirectory(atPath: dir) {
            let mode = try #require(FileManager.default.attributesOfItem(atPath: dir + "/" + file)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(file): \(String(mode, radix: 8))")
        }
        #expect(try !Subdash.run(["report", "states", "--db", db]).stderr.contains("warning"))
        chmod(db, 0o644)
        let warned = try Subdash.run(["report", "states", "--db", db])
        #expect(warned.status == 0)
        #expect(warned.stderr.split(separator: "\n").filter { $0.contains("can be read by everyone") }.count == 1)
    }

    @Test func importingTheStoresOwnDirectorySkipsTheStoreAndOtherDatabases() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Self.storeWithOneSubscription(dir)
        try FileManager.default.copyItem(atPath: dir + "/store.sqlite", toPath: dir + "/backup.db")
        try FileManager.default.copyItem(atPath: Self.example, toPath: dir + "/renewal.json")
        let result = try Subdash.run(["import", "--no-verify", "--db", "store.sqlite", "."], directory: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("./store.sqlite: skipped: the store this import writes to"))
        #expect(result.stderr.contains("./backup.db: skipped: an SQLite database, not App Store documents"))
        #expect(result.stderr.contains("1 document read from 1 file: 0 applied, 1 duplicate, 0 rejected"))
    }

    @Test func themesCheckShowsNoControlCharactersFromTheFile() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let theme = dir + "/evil.theme"
        try "name = \"evil\"\n\u{1B}]0;pwned\u{07}\u{1B}[2J = \"red\"\n".write(toFile: theme, atomically: true, encoding: .utf8)
        let result = try Subdash.run(["themes", "check", theme])
        #expect(result.status == 1)
        #expect(result.stderr.contains("evil.theme:2: unknown role"))
        #expect(!result.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    }
}
