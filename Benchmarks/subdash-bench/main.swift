import ArgumentParser
import Foundation

/// Measures the real `subdash` binary (the sibling of this executable) on simulated data: import
/// rates, report latencies and peak memory, each beside SQLite's own speed on the same rows.
/// Every figure comes from a separate process timed by /usr/bin/time, so peak memory is per step.
@main
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subdash-bench",
        abstract: "Measure import, reports and baselines at one or more data sizes; write docs/performance.md.")

    @Option(help: "Subscriber counts to measure, comma-separated.") var subscribers = "10000"
    @Option(help: "Runs per report (median and max are printed).") var runs = 5
    @Option(help: "Where generated data and stores are cached.") var cache = FileManager.default.temporaryDirectory.path + "/subdash-bench"
    @Option(help: "Write the results here (empty: don't write).") var output = "docs/performance.md"

    struct Timing { var seconds: Double; var peakKB: Int; var stdout: String; var stderr: String }

    static let binDir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()

    func timed(_ executable: String, _ arguments: [String], stdin: String? = nil) throws -> Timing {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        let timeFile = cache + "/time.txt"
        p.arguments = ["-f", "%e %M", "-o", timeFile, executable] + arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        if let stdin { p.standardInput = FileHandle(forReadingAtPath: stdin) }
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let t = try String(contentsOfFile: timeFile, encoding: .utf8).split(whereSeparator: \.isWhitespace)
        guard p.terminationStatus == 0, t.count >= 2, let s = Double(t[t.count - 2]), let kb = Int(t[t.count - 1]) else {
            throw ValidationError("\(executable) \(arguments.joined(separator: " ")) failed (\(p.terminationStatus)): \(String(decoding: e, as: UTF8.self).suffix(400))")
        }
        return Timing(seconds: s, peakKB: kb, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    func subdash(_ arguments: [String]) throws -> Timing { try timed(Self.binDir.appendingPathComponent("subdash").path, arguments) }

    func sqlite(_ db: String, _ script: String) throws -> Timing {
        let file = cache + "/script.sql"
        try script.write(toFile: file, atomically: true, encoding: .utf8)
        return try timed("/usr/bin/sqlite3", [db], stdin: file)
    }

    func remove(_ path: String) { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }

    func size(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0 }

    func documents(_ summary: String) -> Int { Int(summary.split(separator: " ").first.map(String.init) ?? "") ?? 0 }

    func median(_ xs: [Double]) -> Double { let s = xs.sorted(); return s[s.count / 2] }

    mutating func run() throws {
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        var report = "# Performance\n\nMeasured by `swift run -c release subdash-bench --subscribers \(subscribers)` on this machine "
        report += "(\(ProcessInfo.processInfo.activeProcessorCount) cores), \(ISO8601DateFormatter().string(from: Date())).\n"
        report += "Each figure is one process timed by `/usr/bin/time` (wall seconds, peak resident memory).\n"
        for n in subscribers.split(separator: ",").compactMap({ Int($0) }) {
            report += try measure(n)
        }
        print(report)
        if !output.isEmpty { try report.write(toFile: output, atomically: true, encoding: .utf8) }
    }

    func dataset(_ n: Int, _ format: String) throws -> String {
        let dir = "\(cache)/data-\(n)-\(format)"
        if !FileManager.default.fileExists(atPath: dir + "/manifest.json") {
            try? FileManager.default.removeItem(atPath: dir)
            FileHandle.standardError.write(Data("generating \(n) subscribers (\(format))…\n".utf8))
            _ = try subdash(["generate", "--subscribers", "\(n)", "--seed", "1", "--format", format, "--out", dir])
        }
        return dir
    }

    func measure(_ n: Int) throws -> String {
        var md = "\n## \(n) subscribers\n\n### Import\n\n| input | documents | seconds | documents/s | periods/s | peak MB | store MB |\n|---|---|---|---|---|---|---|\n"
        let v1 = try dataset(n, "v1"), v2 = try dataset(n, "v2")
        var v2Store = ""
        for (label, dir, extra) in [("v1", v1, [String]()), ("v2 verified", v2, ["--trust-root", v2 + "/test-root.pem"]),
                                    ("v2 --no-verify", v2, ["--no-verify"])] {
            let db = "\(cache)/store-\(n)-\(label.replacingOccurrences(of: " ", with: "_")).sqlite"
            remove(db)
            FileHandle.standardError.write(Data("importing \(label)…\n".utf8))
            let t = try subdash(["import", "--db", db] + extra + [dir])
            let docs = documents(t.stderr.split(separator: "\n").first { $0.contains("documents read") }.map(String.init) ?? "")
            let periods = Int(try sqlite(db, "SELECT COUNT(*) FROM period;").stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            md += "| \(label) | \(docs) | \(String(format: "%.1f", t.seconds)) | \(Int(Double(docs) / t.seconds)) | \(Int(Double(periods) / t.seconds)) | \(t.peakKB / 1024) | \(size(db) / 1_048_576) |\n"
            if label == "v2 verified" { v2Store = db }
        }

        // Baseline: SQLite itself loading the same period rows from CSV in one transaction.
        let csv = "\(cache)/periods-\(n).csv"
        _ = try sqlite(v2Store, ".headers off\n.mode csv\n.output \(csv)\nSELECT * FROM period;\n")
        let base = "\(cache)/baseline-\(n).sqlite"
        remove(base)
        let periodsRaw = try sqlite(v2Store, "SELECT COUNT(*) FROM period;").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let load = try sqlite(base, """
            CREATE TABLE period (transactionId TEXT PRIMARY KEY, originalTransactionId TEXT, environment TEXT, runIndex INT,
              productId TEXT, start INT, "end" INT, offerKind TEXT, class TEXT, isPaid INT, isRefunded INT, isCutByUpgrade INT,
              countsForRetention INT);
            BEGIN;
            .mode csv
            .import \(csv) period
            COMMIT;
            """)
        md += "| sqlite3 `.import` of the \(periodsRaw) period rows (baseline) | – | \(String(format: "%.2f", load.seconds)) | – | \(Int((Double(periodsRaw) ?? 0) / max(load.seconds, 0.001))) | \(load.peakKB / 1024) | \(size(base) / 1_048_576) |\n"

        md += "\n### Reports on the v2 store (\(runs) runs)\n\n| report | median s | max s | peak MB |\n|---|---|---|---|\n"
        let horizon = try subdash(["report", "states", "--db", v2Store, "--format", "json"]).stdout
        let asOf = horizon.split(separator: "\"")[3]
        let month = String(asOf.prefix(7))
        let subscriber = try sqlite(v2Store, "SELECT originalTransactionId FROM subscription ORDER BY periodCount DESC LIMIT 1;")
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let reports: [(String, [String])] = [
            ("states", ["states"]),
            ("events, one month", ["events", "--from", month + "-01", "--to", nextMonth(month) + "-01"]),
            ("cohorts 24×12", ["cohorts", "--periods", "12"]),
            ("recovery, one month", ["recovery", "--from", month + "-01", "--to", nextMonth(month) + "-01"]),
            ("subscriber", ["subscriber", subscriber]),
            ("eligibility", ["eligibility"]),
        ]
        for (label, args) in reports {
            var times: [Double] = []
            var peak = 0
            for _ in 0..<runs {
                let t = try subdash(["report"] + args + ["--db", v2Store, "--format", "json"])
                times.append(t.seconds)
                peak = max(peak, t.peakKB)
            }
            md += "| \(label) | \(String(format: "%.2f", median(times))) | \(String(format: "%.2f", times.max() ?? 0)) | \(peak / 1024) |\n"
        }
        // Baseline: hand-written SQL over the periods table for state-like counts and a cohort grid.
        var handTimes: [Double] = []
        for _ in 0..<runs {
            handTimes.append(try sqlite(base, """
                SELECT offerKind, COUNT(*) FROM period WHERE start <= strftime('%s','\(asOf.prefix(10))')*1000 AND "end" > strftime('%s','\(asOf.prefix(10))')*1000 GROUP BY 1;
                WITH f AS (SELECT originalTransactionId, runIndex, MIN(start) s, SUM(countsForRetention) n FROM period WHERE countsForRetention GROUP BY 1, 2)
                SELECT strftime('%Y-%m', s / 1000, 'unixepoch') m, n, COUNT(*) FROM f GROUP BY 1, 2;
                """).seconds)
        }
        md += "| hand-written SQL: states + cohort grid over `period` (baseline) | \(String(format: "%.2f", median(handTimes))) | \(String(format: "%.2f", handTimes.max() ?? 0)) | – |\n"

        // The dashboard through TestBackend, in its own process (its peak memory is its own).
        md += "\n### Dashboard on the v2 store (`subdash-frames --db STORE`: the real run loop drawing 120×40 frames into TestBackend)\n\n"
        md += try timed(Self.binDir.appendingPathComponent("subdash-frames").path, ["--db", v2Store, "--markdown"]).stdout
        return md
    }

    func nextMonth(_ m: String) -> String {
        let y = Int(m.prefix(4)) ?? 1970, mo = Int(m.suffix(2)) ?? 1
        return mo == 12 ? String(format: "%04d-01", y + 1) : String(format: "%04d-%02d", y, mo + 1)
    }
}
