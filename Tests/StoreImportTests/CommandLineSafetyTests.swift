import Foundation
import GRDB
import SubscriberStore
import Testing

/// The real binary where the behaviour is the process's: exit codes, files it creates (or not),
/// what it prints before anything else.
@Suite struct CommandLineSafetyTests {
    struct Run { var status: Int32; var stdout: String; var stderr: String }

    /// Runs subdash with standard input from /dev/null, in `directory`, killed after `timeout`
    /// seconds (status -1 then).
    static func run(_ arguments: [String], environment: [String: String] = [:], removing: [String] = [],
                    directory: String? = nil, timeout: Double = 60) throws -> Run {
        let binary = try #require(AppStoreImportTests.subdashBinary(), "build the subdash executable first (swift build)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        for name in removing { env[name] = nil }
        process.environment = env
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let killer = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        killer.cancel()
        let status = process.terminationReason == .uncaughtSignal ? -1 : process.terminationStatus
        return Run(status: status, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("subdash-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static let example = AppStoreImportTests.root.appendingPathComponent("SampleData/examples/v1/DID_RENEW.json").path
    static let exampleId = "1000000900000001"

    /// A store holding one subscription (1000000900000001).
    static func storeWithOneSubscription(_ directory: String) throws -> String {
        let db = directory + "/store.sqlite"
        let imported = try run(["import", "--no-verify", "--db", db, example])
        #expect(imported.status == 0, "\(imported.stderr)")
        return db
    }

    @Test func theDashboardWithoutATerminalRefusesAtOnce() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try Self.storeWithOneSubscription(dir)
        let started = Date()
        let result = try Self.run(["--db", db], timeout: 20)
        #expect(result.status == 2)
        #expect(result.stderr.contains("the dashboard needs a terminal: standard input is not one"))
        #expect(Date().timeIntervalSince(started) < 15)
    }

    @Test func withoutAStoreTheDashboardOpensNothingAndSaysWhatToDo() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for arguments in [[], ["dashboard"], ["--read-only"]] {
            let result = try Self.run(arguments, removing: ["SUBDASH_DB"], directory: dir, timeout: 20)
            #expect(result.status == 3)
            #expect(result.stderr.contains("no store here (subdash.sqlite): import data first"))
            #expect(result.stderr.contains("`subdash demo`"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty, "no ./subdash.sqlite created")
        let named = try Self.run(["--db", dir + "/shop.sqlite"], directory: dir, timeout: 20)
        #expect(named.status == 3)
        #expect(named.stderr.contains("no store at \(dir)/shop.sqlite: import data into it first"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test func demoHelpNamesTheStorePath() throws {
        let result = try Self.run(["demo", "--help"], environment: ["XDG_CACHE_HOME": "/srv/cache"])
        #expect(result.stdout.contains("/srv/cache/subdash/demo.sqlite"))
    }

    @Test func helpListsKeysAndExitStatusesAndNamesNoOutsideDocuments() throws {
        let help = try Self.run(["--help"]).stdout
        #expect(help.contains("keys"))
        #expect(help.contains("3 fatal"))
        let report = try Self.run(["report", "--help"]).stdout
        #expect(report.contains("docs/metrics.md"))
        #expect(!report.contains("DESIGN") && !report.contains("§"))
        #expect(try Self.run(["import", "--help"]).stdout.contains("3 fatal"))
    }

    @Test func anEarlierFlagIsKeptUnlessReplacedAndTheLogShowsBoth() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try Self.storeWithOneSubscription(dir)
        let id = Self.exampleId
        #expect(try Self.run(["flag", id, "--offer", "winBack", "--note", "first call", "--operator", "alice", "--db", db]).status == 0)
        let again = try Self.run(["flag", id, "--offer", "winBack", "--operator", "bob", "--db", db])
        #expect(again.status == 0)
        #expect(again.stderr.contains("\(id): already flagged for winBack by alice on "))
        #expect(again.stderr.contains("(note: first call); kept (--replace changes it)"))
        #expect(again.stdout.contains("flagged for winBack: 0 subscriptions as bob (1 already flagged: kept)"))
        // $USER empty: the login name is the operator.
        let login = try #require(OperatorIdentity.loginName())
        let replaced = try Self.run(["flag", id, "--offer", "winBack", "--replace", "--note", "second", "--db", db],
                                    environment: ["USER": ""])
        #expect(replaced.status == 0)
        #expect(replaced.stdout.contains("flagged for winBack: 1 subscription as \(login)"))
        #expect(try Self.run(["flag", id, "--offer", "winBack", "--clear", "--operator", "carol", "--db", db]).status == 0)
        let log = try Self.run(["flags", "--log", "--format", "json", "--db", db])
        #expect(log.status == 0)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
        #expect(entries.map { "\($0["action"]!) \($0["operator"]!) \($0["note"]!)" }
            == ["set alice first call", "changed \(login) second", "cleared carol <null>"])
        #expect(entries.allSatisfy { ($0["originalTransactionId"] as? String) == id && ($0["offer"] as? String) == "winBack" })
        let table = try Self.run(["flags", "--log", "--db", db]).stdout
        #expect(table.contains("changed") && table.contains("3 changes"))
        #expect(try Self.run(["flags", "--db", db]).stdout.contains("no offer flags"))
    }

    @Test func identicalRejectionsAreGroupedAfterTheFirstFew() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/junk.ndjson"
        try String(repeating: "{\"a\": 1}\n", count: 10).write(toFile: file, atomically: true, encoding: .utf8)
        let result = try Self.run(["import", "--db", dir + "/store.sqlite", file])
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
            let result = try Self.run(command + ["--db", db], timeout: 20)
            #expect(result.status == 3, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("was written by a newer version of subdash (store schema version \(newer); "
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
        #expect(try Self.run(["report", "states", "--db", notAStore]).status == 3)
        #expect(try Self.run(["import", "--no-verify", "--db", notAStore, Self.example]).status == 3)
        #expect(try Self.run(["report", "states", "--db", dir + "/missing.sqlite"]).status == 3)
        // Partly done is 1; usage is 2.
        let junk = dir + "/junk.json"
        try "[1, 2]".write(toFile: junk, atomically: true, encoding: .utf8)
        #expect(try Self.run(["import", "--db", dir + "/store.sqlite", junk]).status == 1)
        #expect(try Self.run(["import"]).status == 2)
    }

    @Test func newStoresArePrivateAndAReadableStoreIsPointedOut() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try Self.storeWithOneSubscription(dir)
        for file in try FileManager.default.contentsOfDirectory(atPath: dir) {
            let mode = try #require(FileManager.default.attributesOfItem(atPath: dir + "/" + file)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(file): \(String(mode, radix: 8))")
        }
        #expect(try !Self.run(["report", "states", "--db", db]).stderr.contains("warning"))
        chmod(db, 0o644)
        let warned = try Self.run(["report", "states", "--db", db])
        #expect(warned.status == 0)
        #expect(warned.stderr.split(separator: "\n").filter { $0.contains("can be read by everyone") }.count == 1)
    }

    @Test func importingTheStoresOwnDirectorySkipsTheStoreAndOtherDatabases() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Self.storeWithOneSubscription(dir)
        try FileManager.default.copyItem(atPath: dir + "/store.sqlite", toPath: dir + "/backup.db")
        try FileManager.default.copyItem(atPath: Self.example, toPath: dir + "/renewal.json")
        let result = try Self.run(["import", "--no-verify", "--db", "store.sqlite", "."], directory: dir)
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
        let result = try Self.run(["themes", "check", theme])
        #expect(result.status == 1)
        #expect(result.stderr.contains("evil.theme:2: unknown role"))
        #expect(!result.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    }
}
