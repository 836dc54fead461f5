import Foundation
import Testing

/// The real binary: exit codes and the messages a user sees.
@Suite struct CommandLineTests {
    struct Run { var status: Int32; var stdout: String; var stderr: String }

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let binary = try #require(AppStoreImportTests.subdashBinary(), "build the subdash executable first (swift build)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("subdash-cli-\(UUID().uuidString)-\(name)").path
    }

    @Test func badLinesAreNamedAndTheRestIsImported() throws {
        let db = Self.temporary("db.sqlite")
        let file = Self.temporary("mixed.ndjson")
        defer { for p in [db, db + "-wal", db + "-shm", file] { try? FileManager.default.removeItem(atPath: p) } }
        let good = try String(contentsOfFile: AppStoreImportTests.root.appendingPathComponent(
            "SampleData/examples/v1/DID_RENEW.json").path, encoding: .utf8).replacingOccurrences(of: "\n", with: " ")
        try "\(good)\n{\"notification_type\": \n[1, 2]\n".write(toFile: file, atomically: true, encoding: .utf8)
        let result = try Self.run(["import", "--db", db, file])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("\(file):line 2: ") })
        #expect(lines.contains { $0.hasPrefix("\(file):line 3: ") })
        #expect(lines.contains { $0.hasPrefix("3 documents read from 1 file: 1 applied, 0 duplicates, 2 rejected; 1 subscription touched;") })
        // Importing again: nothing doubled, the same rejections.
        let again = try Self.run(["import", "--db", db, file])
        #expect(again.status == 1)
        #expect(again.stderr.contains("0 applied, 1 duplicate, 2 rejected"))
    }

    @Test func usageErrorsExitTwo() throws {
        #expect(try Self.run(["import"]).status == 2)
        #expect(try Self.run(["import", "/nonexistent/x.json"]).stderr.contains("/nonexistent/x.json: no such file or directory"))
        let db = Self.temporary("empty.sqlite")
        defer { for p in [db, db + "-wal", db + "-shm"] { try? FileManager.default.removeItem(atPath: p) } }
        _ = try Self.run(["flag", "--db", db, "--offer", "winBack", "nobody"])
        let backwards = try Self.run(["report", "events", "--db", db, "--from", "2025-02-01", "--to", "2025-01-01"])
        #expect(backwards.status == 2)
        #expect(backwards.stderr.contains("--to 2025-01-01T00:00:00Z is not after --from 2025-02-01T00:00:00Z"))
    }

    @Test func emptyStoresAndUnknownIdsGetClearAnswers() throws {
        let db = Self.temporary("empty.sqlite")
        defer { for p in [db, db + "-wal", db + "-shm"] { try? FileManager.default.removeItem(atPath: p) } }
        let flag = try Self.run(["flag", "--db", db, "--offer", "winBack", "nobody"])
        #expect(flag.status == 1)
        #expect(flag.stderr.contains("no subscription matches nobody"))
        let who = try Self.run(["report", "subscriber", "nobody", "--db", db])
        #expect(who.status == 1)
        #expect(who.stderr.contains("no subscription matches nobody"))
        let states = try Self.run(["report", "states", "--db", db, "--format", "json"])
        #expect(states.status == 0)
        #expect(states.stdout.contains("\"expired\":0},\"active\":0}"))
        let cohorts = try Self.run(["report", "cohorts", "--db", db, "--format", "json", "--periods", "2"])
        #expect(cohorts.status == 0)
        #expect(cohorts.stdout.contains("\"average\":{\"retained\":[0,0],\"eligible\":[0,0],\"rate\":[null,null]}"))
        let missing = try Self.run(["report", "states", "--db", Self.temporary("none.sqlite")])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("no store at"))
    }
}
