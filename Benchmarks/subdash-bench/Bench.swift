import ArgumentParser
import Foundation
import LifecycleSimulator
import SubscriberAnalytics

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
    @Option(help: "Where generated data and stores are cached.") var cache =
        FileManager.default.temporaryDirectory.path + "/subdash-bench"
    @Option(help: "Write the results here (empty: don't write).") var output = "docs/performance.md"
    @Option(
        help:
            "Imports to measure, comma-separated: v1, v2 (verified), v2-no-verify. Reports and the dashboard run on the v2 verified store, else the v1 store."
    )
    var imports = "v1,v2,v2-no-verify"
    @Option(
        help: "Import v2 only at sizes up to this many subscribers (a million verified v2 subscribers take hours on two cores).")
    var v2UpTo = Int.max
    @Flag(help: "Reuse a store already imported by an earlier run (its import figures are the earlier run's, marked cached).")
    var reuse = false
    @Option(
        help:
            "Instead of the benchmarks: import this many mutants of SampleData documents through the real binary and report crashes and peak memory."
    )
    var fuzz: Int?
    @Option(
        help:
            "Only compare the archive's codecs (zstd, zlib) on the first N documents of each size's v1 dataset, and print the table."
    )
    var archiveCodecs: Int?
    @Option(
        help:
            "Only measure the archive's compact layout (as received and compact, zstd and zlib, a trained dictionary) on the first N documents of each size's v2 dataset, and print the table."
    )
    var archiveLayout: Int?
    @Option(
        help:
            "Only measure these stores (comma-separated paths): archive and store bytes per document, and the time to read and decode every archived document (best of --runs)."
    )
    var archiveStores: String?
    @Option(
        help:
            "Only compare decoders (subdash's, JSONDecoder + Decodable, JSONSerialization) on the first N documents of each size's v1 and v2 datasets, and print the table."
    )
    var decode: Int?
    @Flag(
        help:
            "Only run subdash side by side with hand-written baselines on the same v1 files: `subdash import` against Benchmarks/baselines/load_periods.py (orjson + sqlite3) and `report cohorts` against cohort_grid.py (DuckDB), and print the ratios. Needs python3 with orjson and duckdb; skipped with a note without them."
    )
    var baselines = false
    @Option(help: "Merge each size's figures into this JSON file (Benchmarks/growth.py draws the growth table and plot from it).")
    var figuresFile: String?
    @Option(
        help:
            "Instead of the benchmarks: compare v2 stores generated with these shares of 12-month commitments (comma-separated, such as 0,0.2): imports, every report and the dashboard's first visits, interleaved so that the machine's load falls on each alike; print the table."
    )
    var commitmentShares: String?
    @Option(help: "With --commitment-shares: imports of each store (interleaved).") var importRuns = 1
    @Option(help: "With --commitment-shares: subdash-frames runs on each store (interleaved).") var frameRuns = 3

    /// Figures kept per size for the growth and baseline tables.
    final class Figures { var bySize: [(n: Int, values: [String: Double])] = [] }
    let figures = Figures()

    enum CodingKeys: String, CodingKey {
        case subscribers, runs, cache, output, imports, v2UpTo, reuse, archiveCodecs, archiveLayout, archiveStores, decode, fuzz,
            baselines, figuresFile
        case commitmentShares, importRuns, frameRuns
    }

    struct Timing {
        var seconds: Double
        /// User + system CPU seconds.
        var cpuSeconds: Double = 0
        var peakKB: Int
        var stdout: String
        var stderr: String
    }

    static let binDir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()

    func timed(_ executable: String, _ arguments: [String], stdin: String? = nil) throws -> Timing {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        let timeFile = cache + "/time.txt"
        p.arguments = ["-f", "%e %U %S %M", "-o", timeFile, executable] + arguments
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        if let stdin { p.standardInput = FileHandle(forReadingAtPath: stdin) }
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let t = try String(contentsOfFile: timeFile, encoding: .utf8).split(whereSeparator: \.isWhitespace)
        guard p.terminationStatus == 0, t.count >= 4, let s = Double(t[t.count - 4]), let user = Double(t[t.count - 3]),
            let sys = Double(t[t.count - 2]), let kb = Int(t[t.count - 1])
        else {
            throw ValidationError(
                "\(executable) \(arguments.joined(separator: " ")) failed (\(p.terminationStatus)): \(String(decoding: e, as: UTF8.self).suffix(400))"
            )
        }
        return Timing(
            seconds: s, cpuSeconds: user + sys, peakKB: kb, stdout: String(decoding: o, as: UTF8.self),
            stderr: String(decoding: e, as: UTF8.self))
    }

    func subdash(_ arguments: [String]) throws -> Timing {
        try timed(Self.binDir.appendingPathComponent("subdash").path, arguments)
    }

    func sqlite(_ db: String, _ script: String) throws -> Timing {
        let file = cache + "/script.sql"
        try script.write(toFile: file, atomically: true, encoding: .utf8)
        return try timed("/usr/bin/sqlite3", [db], stdin: file)
    }

    func remove(_ path: String) { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }

    func size(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0 }

    func documents(_ summary: String) -> Int { Int(summary.split(separator: " ").first.map(String.init) ?? "") ?? 0 }

    func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s[s.count / 2]
    }

    mutating func run() throws {
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        if let fuzz { return try runFuzz(mutants: fuzz) }
        if let limit = decode {
            for n in subscribers.split(separator: ",").compactMap({ Int($0) }) {
                for format in ["v1", "v2"] {
                    print("## Decoding, \(n) subscribers (\(format))\n")
                    print(try DecodeBench.measure(directory: try dataset(n, format), limit: limit))
                }
            }
            return
        }
        if baselines {
            let sizes = subscribers.split(separator: ",").compactMap { Int($0) }
            print(try SideBySide(bench: self).run(sizes: sizes))
            try saveFigures()
            return
        }
        if let commitmentShares {
            let shares = commitmentShares.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard shares.count >= 2 else { throw ValidationError("--commitment-shares needs two shares or more, such as 0,0.2") }
            let sizes = subscribers.split(separator: ",").compactMap { Int($0) }
            print(try CommitmentShares(bench: self, shares: shares).run(sizes: sizes))
            return
        }
        if let limit = archiveLayout {
            for n in subscribers.split(separator: ",").compactMap({ Int($0) }) {
                print("## Archive layout, \(n) subscribers (v2)\n")
                print(try ArchiveLayoutBench.measure(directory: try dataset(n, "v2"), limit: limit))
            }
            return
        }
        if let archiveStores {
            for path in archiveStores.split(separator: ",") {
                print(try ArchiveLayoutBench.store(path: String(path), runs: runs))
            }
            return
        }
        if let limit = archiveCodecs {
            for n in subscribers.split(separator: ",").compactMap({ Int($0) }) {
                print("## Archive codecs, \(n) subscribers (v1)\n")
                print(try ArchiveCodecBench.measure(directory: try dataset(n, "v1"), limit: limit))
            }
            return
        }
        var report =
            "# Performance\n\nMeasured by `swift run -c release subdash-bench --subscribers \(subscribers)` on this machine "
        report += "(\(ProcessInfo.processInfo.activeProcessorCount) cores), \(ISO8601DateFormatter().string(from: Date())).\n"
        report += "Each figure is one process timed by `/usr/bin/time` (wall seconds, peak resident memory).\n"
        for n in subscribers.split(separator: ",").compactMap({ Int($0) }) {
            report += try measure(n)
        }
        report += growth()
        try saveFigures()
        print(report)
        if !output.isEmpty {
            // subdash-listen-bench's section, written by that tool, is kept.
            if let existing = try? String(contentsOfFile: output, encoding: .utf8),
                let kept = existing.range(of: "<!-- subdash-listen-bench -->")
            {
                report += "\n" + existing[kept.lowerBound...]
            }
            try report.write(toFile: output, atomically: true, encoding: .utf8)
        }
    }

    func dataset(_ n: Int, _ format: String) throws -> String {
        let dir = "\(cache)/data-\(n)-\(format)"
        if !FileManager.default.fileExists(atPath: dir + "/manifest.json") {
            try? FileManager.default.removeItem(atPath: dir)
            FileHandle.standardError.write(Data("generating \(n) subscribers (\(format))…\n".utf8))
            // gzip from 100,000 up: a million v2 subscribers are 64 GB as plain NDJSON.
            _ = try subdash(
                ["generate", "--subscribers", "\(n)", "--seed", "1", "--versions", format, "--out", dir]
                    + (n >= 100_000 ? ["--gzip"] : []))
        }
        return dir
    }

    /// An import's figures, kept beside its store so `--reuse` can print them again.
    struct ImportRecord: Codable {
        var documents: Int
        var seconds: Double
        var peakKB: Int
        var periods: Int
    }

    func measure(_ n: Int) throws -> String {
        var md =
            "\n## \(n) subscribers\n\n### Import\n\n| input | documents | seconds | documents/s | periods/s | peak MB | store MB |\n|---|---|---|---|---|---|---|\n"
        var values: [String: Double] = [:]
        let wanted = Set(imports.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        var stores: [String: String] = [:]
        for (key, label, format, verify) in [
            ("v1", "v1", "v1", true), ("v2", "v2 verified", "v2", true),
            ("v2-no-verify", "v2 --no-verify", "v2", false),
        ]
        where wanted.contains(key) && (format == "v1" || n <= v2UpTo) {
            let dir = try dataset(n, format)
            let extra = format == "v1" ? [] : verify ? ["--trust-root", dir + "/test-root.pem"] : ["--no-verify"]
            let db = "\(cache)/store-\(n)-\(key).sqlite"
            let recordPath = db + ".import.json"
            var record: ImportRecord
            var cached = ""
            if reuse, let data = FileManager.default.contents(atPath: recordPath),
                let saved = try? JSONDecoder().decode(ImportRecord.self, from: data), FileManager.default.fileExists(atPath: db)
            {
                record = saved
                cached = " (cached)"
            } else {
                remove(db)
                try? FileManager.default.removeItem(atPath: recordPath)
                FileHandle.standardError.write(Data("importing \(label) (\(n) subscribers)…\n".utf8))
                let t = try subdash(["import", "--db", db] + extra + [dir])
                let docs = documents(
                    t.stderr.split(separator: "\n").first { $0.contains("documents read") }.map(String.init) ?? "")
                let periods =
                    Int(try sqlite(db, "SELECT COUNT(*) FROM period;").stdout.trimmingCharacters(in: .whitespacesAndNewlines))
                    ?? 0
                record = ImportRecord(documents: docs, seconds: t.seconds, peakKB: t.peakKB, periods: periods)
                try JSONEncoder().encode(record).write(to: URL(fileURLWithPath: recordPath))
            }
            let rate = Double(record.documents) / record.seconds
            md +=
                "| \(label)\(cached) | \(record.documents) | \(String(format: "%.1f", record.seconds)) | \(Int(rate)) | \(Int(Double(record.periods) / record.seconds)) | \(record.peakKB / 1024) | \(size(db) / 1_048_576) |\n"
            values["import \(label): µs per document"] = 1e6 / rate
            values["import \(label): µs per period"] = 1e6 * record.seconds / Double(max(record.periods, 1))
            values["import \(label): peak MB"] = Double(record.peakKB / 1024)
            values["store \(label): MB"] = Double(size(db) / 1_048_576)
            stores[key] = db
        }
        guard let v2Store = stores["v2"] ?? stores["v1"] ?? stores["v2-no-verify"] else {
            throw ValidationError("--imports names none of v1, v2, v2-no-verify")
        }
        let storeLabel = stores["v2"] != nil ? "v2" : stores["v1"] != nil ? "v1" : "v2 --no-verify"

        // Baseline: SQLite itself loading the same period rows from CSV in one transaction.
        let csv = "\(cache)/periods-\(n).csv"
        // The baseline table's columns by name: the store's period table has more since.
        _ = try sqlite(
            v2Store,
            """
            .headers off
            .mode csv
            .output \(csv)
            SELECT transactionId, originalTransactionId, environment, runIndex, productId, start, "end", offerKind, class,
                   isPaid, isRefunded, isCutByUpgrade, countsForRetention FROM period;
            """)
        let base = "\(cache)/baseline-\(n).sqlite"
        remove(base)
        let periodsRaw = try sqlite(v2Store, "SELECT COUNT(*) FROM period;").stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let load = try sqlite(
            base,
            """
            CREATE TABLE period (transactionId TEXT PRIMARY KEY, originalTransactionId TEXT, environment TEXT, runIndex INT,
              productId TEXT, start INT, "end" INT, offerKind TEXT, class TEXT, isPaid INT, isRefunded INT, isCutByUpgrade INT,
              countsForRetention INT);
            BEGIN;
            .mode csv
            .import \(csv) period
            COMMIT;
            """)
        md +=
            "| sqlite3 `.import` of the \(periodsRaw) period rows (baseline) | – | \(String(format: "%.2f", load.seconds)) | – | \(Int((Double(periodsRaw) ?? 0) / max(load.seconds, 0.001))) | \(load.peakKB / 1024) | \(size(base) / 1_048_576) |\n"
        let baselinePerPeriod = 1e6 * load.seconds / max(Double(periodsRaw) ?? 1, 1)
        values["baseline sqlite3 .import: µs per period"] = baselinePerPeriod
        md += "\nsubdash ÷ baseline, time per period row: "
        md +=
            stores.keys.sorted().compactMap { key -> String? in
                let label = key == "v1" ? "v1" : key == "v2" ? "v2 verified" : "v2 --no-verify"
                guard let mine = values["import \(label): µs per period"] else { return nil }
                return "\(label) \(String(format: "%.0f", mine / baselinePerPeriod))×"
            }.joined(separator: ", ") + " (target: within 3×).\n"

        md +=
            "\n### Reports on the \(storeLabel) store (\(runs) runs)\n\n| report | median s | max s | peak MB |\n|---|---|---|---|\n"
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
            md +=
                "| \(label) | \(String(format: "%.3f", median(times))) | \(String(format: "%.3f", times.max() ?? 0)) | \(peak / 1024) |\n"
            values["report \(label): median s"] = median(times)
            values["report \(label): peak MB"] = Double(peak / 1024)
        }
        // Baseline: hand-written SQL over the periods table for state-like counts and a cohort grid.
        var handTimes: [Double] = []
        for _ in 0..<runs {
            handTimes.append(
                try sqlite(
                    base,
                    """
                    SELECT offerKind, COUNT(*) FROM period WHERE start <= strftime('%s','\(asOf.prefix(10))')*1000 AND "end" > strftime('%s','\(asOf.prefix(10))')*1000 GROUP BY 1;
                    WITH f AS (SELECT originalTransactionId, runIndex, MIN(start) s, SUM(countsForRetention) n FROM period WHERE countsForRetention GROUP BY 1, 2)
                    SELECT strftime('%Y-%m', s / 1000, 'unixepoch') m, n, COUNT(*) FROM f GROUP BY 1, 2;
                    """
                ).seconds)
        }
        md +=
            "| hand-written SQL: states + cohort grid over `period` (baseline) | \(String(format: "%.3f", median(handTimes))) | \(String(format: "%.3f", handTimes.max() ?? 0)) | – |\n"
        values["baseline hand-written SQL states + cohorts: median s"] = median(handTimes)
        if let states = values["report states: median s"], let cohorts = values["report cohorts 24×12: median s"] {
            md +=
                "\nsubdash states + cohorts ÷ the hand-written SQL: \(String(format: "%.2f", (states + cohorts) / max(median(handTimes), 0.001)))× "
            md += "(two processes against one; target: no slower).\n"
        }

        md += try moneyReports(stores: stores, asOf: String(asOf), values: &values)

        // The dashboard through TestBackend, in its own process (its peak memory is its own).
        md +=
            "\n### Dashboard on the \(storeLabel) store (`subdash-frames --db STORE`: the real run loop drawing 120×40 frames into TestBackend)\n\n"
        let frames = try timed(Self.binDir.appendingPathComponent("subdash-frames").path, ["--db", v2Store, "--markdown"]).stdout
        md += frames
        for line in frames.split(separator: "\n") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3 else { continue }
            if cells[0].hasPrefix("first full frame") { values["dashboard first frame: ms"] = Double(cells[2]) }
            if cells[0].contains("all navigation keys") { values["dashboard key → frame: median ms"] = Double(cells[2]) }
            if cells[0].hasPrefix("open a subscriber") { values["dashboard open a subscriber: median ms"] = Double(cells[2]) }
            if cells[0].hasPrefix("`6` first visit, first frame") {
                values["dashboard pane 6 first frame: ms"] = Double(cells[2])
            }
            if cells[0].hasPrefix("`5` first visit, first frame") {
                values["dashboard pane 5 first frame: ms"] = Double(cells[2])
            }
            if cells[0].contains("first visit"), !cells[0].contains("first frame") {
                // "`3` first visit (Cohorts queries)" → "dashboard first visit, pane 3 Cohorts: ms"
                let pane = cells[0].split(separator: "`").first.map(String.init) ?? cells[0]
                let name =
                    cells[0].split(separator: "(").dropFirst().first?.split(separator: " ").dropLast()
                    .joined(separator: " ") ?? ""
                values["dashboard first visit, pane \(pane) \(name): ms"] = Double(cells[2])
            }
            if cells[0].hasPrefix("peak resident") {
                values["dashboard: peak MB"] = Double(cells[2].split(separator: " ").first ?? "")
            }
        }
        figures.bySize.append((n, values))
        return md
    }

    /// The money reports on the v1 store priced by a table (the simulator's USD prices, every
    /// storefront) and on the v2 store, whose transactions carry their own prices.
    func moneyReports(stores: [String: String], asOf: String, values: inout [String: Double]) throws -> String {
        let month = String(asOf.prefix(7))
        let year = "\(Int(month.prefix(4))! - 1)" + month.dropFirst(4)
        let reports: [(String, [String])] = [
            ("revenue, one month", ["revenue", "--from", month + "-01", "--to", nextMonth(month) + "-01"]),
            (
                "revenue, twelve months by month",
                [
                    "revenue", "--from", nextMonth(year) + "-01", "--to", nextMonth(month) + "-01",
                    "--by", "month",
                ]
            ),
            ("mrr", ["mrr"]),
            ("ltv 24×12", ["ltv", "--periods", "12"]),
            ("offers, twelve months", ["offers", "--from", nextMonth(year) + "-01", "--to", nextMonth(month) + "-01"]),
            ("refunds, one month", ["refunds", "--from", month + "-01", "--to", nextMonth(month) + "-01"]),
        ]
        var md = ""
        for key in ["v1", "v2"] {
            guard let db = stores[key] else { continue }
            md += "\n### Money reports on the \(key) store\(key == "v1" ? " (priced by a table)" : "") (\(runs) runs)\n\n"
            if key == "v1" {
                let table = "\(cache)/prices.csv"
                let rows = Catalog.products.map { "\($0.productId),,USD,\(MoneyFormat.plain($0.price)),2000-01-01" }
                try (["productId,storefront,currency,price,validFrom"] + rows).joined(separator: "\n")
                    .write(toFile: table, atomically: true, encoding: .utf8)
                let t = try subdash(["prices", "import", "--db", db, table])
                md += "`subdash prices import` (\(Catalog.products.count) rows, re-pricing every v1 subscription): "
                md += "\(String(format: "%.1f", t.seconds)) s, \(t.peakKB / 1024) MB.\n\n"
                values["prices import v1: s"] = t.seconds
            }
            md += "| report | median s | max s | peak MB |\n|---|---|---|---|\n"
            for (label, args) in reports {
                var times: [Double] = []
                var peak = 0
                for _ in 0..<runs {
                    let t = try subdash(["report"] + args + ["--db", db, "--format", "json"])
                    times.append(t.seconds)
                    peak = max(peak, t.peakKB)
                }
                md +=
                    "| \(label) | \(String(format: "%.3f", median(times))) | \(String(format: "%.3f", times.max() ?? 0)) | \(peak / 1024) |\n"
                values["report \(label) (\(key)): median s"] = median(times)
            }
        }
        return md
    }

    /// Each figure at every size, and its growth from one size to the next divided by the growth
    /// of the data: 1.0 is linear, above 1 super-linear (each unit of data costs more at the
    /// larger size). Time per document or per period is already per unit: its ratio shows directly.
    func growth() -> String {
        let sizes = figures.bySize
        guard sizes.count > 1 else { return "" }
        var md = "\n## Growth\n\nEach figure at each size; `a→b` is its ratio between two sizes. For totals (report and frame "
        md += "times, memory, store size) the ratio is divided by the ratio of the sizes, so 1.0 means linear and 0.1 flat; "
        md +=
            "figures already per unit (µs per document or period) are shown as their own ratio: 1.0 means a constant cost per unit.\n\n"
        md += "| figure | " + sizes.map { "\($0.n)" }.joined(separator: " | ") + " | "
        md += (1..<sizes.count).map { "\(sizes[$0 - 1].n)→\(sizes[$0].n)" }.joined(separator: " | ") + " |\n"
        md += "|---|" + String(repeating: "---|", count: sizes.count * 2 - 1) + "\n"
        let keys = Set(sizes.flatMap { $0.values.keys }).sorted()
        for key in keys {
            let perUnit = key.contains(" per ")
            md +=
                "| \(key) | " + sizes.map { $0.values[key].map { String(format: "%.3g", $0) } ?? "–" }.joined(separator: " | ")
                + " | "
            md +=
                (1..<sizes.count).map { i -> String in
                    guard let a = sizes[i - 1].values[key], let b = sizes[i].values[key], a > 0 else { return "–" }
                    let dataRatio = Double(sizes[i].n) / Double(sizes[i - 1].n)
                    return String(format: "%.2f", perUnit ? b / a : (b / a) / dataRatio)
                }.joined(separator: " | ") + " |\n"
        }
        return md
    }

    /// Merges this run's figures into `--figures-file`: each size measured now replaces that
    /// size's entry, others are kept (so figures measured apart, say at a million, join them).
    func saveFigures() throws {
        guard let figuresFile, !figures.bySize.isEmpty else { return }
        var saved: [String: [String: Double]] = [:]
        if let data = FileManager.default.contents(atPath: figuresFile) {
            saved = try JSONDecoder().decode(FiguresFile.self, from: data).bySubscribers
        }
        for (n, values) in figures.bySize { saved["\(n)", default: [:]].merge(values) { _, new in new } }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try (encoder.encode(FiguresFile(bySubscribers: saved)) + [0x0A]).write(to: URL(fileURLWithPath: figuresFile))
    }

    /// `--figures-file`: every figure by subscriber count, then by name.
    struct FiguresFile: Codable { var bySubscribers: [String: [String: Double]] }

    func nextMonth(_ m: String) -> String {
        let y = Int(m.prefix(4)) ?? 1970
        let mo = Int(m.suffix(2)) ?? 1
        return mo == 12 ? String(format: "%04d-01", y + 1) : String(format: "%04d-%02d", y, mo + 1)
    }
}
