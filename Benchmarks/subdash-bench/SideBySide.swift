import ArgumentParser
import Foundation

/// subdash beside what a user would write instead, on the same generated v1 files in the same run
/// (absolute times on a shared machine move from run to run; the ratios are what to quote):
/// `subdash import` against `Benchmarks/baselines/load_periods.py` (orjson + sqlite3, which
/// verifies, derives and archives nothing), and `subdash report cohorts` against
/// `Benchmarks/baselines/cohort_grid.py` (a DuckDB cohort grid over the baseline's `period`
/// table, the query alone timed, best of three). Target: a ratio of at most 1.0.
struct SideBySide {
    let bench: Bench

    /// The scripts, beside this file in the checkout.
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("baselines")

    /// Why the baselines cannot run here, or nil when python3 has what they import.
    static func missingPython() -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import orjson, duckdb"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return "python3 not found" }
        p.waitUntilExit()
        return p.terminationStatus == 0 ? nil : "python3 lacks orjson or duckdb (pip install orjson duckdb)"
    }

    func run(sizes: [Int]) throws -> String {
        if let missing = Self.missingPython() {
            return "Side by side: skipped, \(missing).\n"
        }
        var md = "## Side by side with hand-written baselines (same files, same run)\n\n"
        md += "| subscribers | job | subdash s | baseline s | subdash ÷ baseline |\n|---|---|---|---|---|\n"
        for n in sizes { md += try measure(n) }
        md += "\nBaselines: `Benchmarks/baselines/load_periods.py` (orjson + sqlite3: raw lines and receipt rows, one "
        md += "transaction; no verification, derivation or compressed archive) and `Benchmarks/baselines/cohort_grid.py` "
        md += "(DuckDB over that `period` table: the query alone, best of 3). subdash's cohorts: `report cohorts --periods 12`, "
        md += "the whole process, best of 3. Target: ≤ 1.0.\n"
        return md
    }

    private func measure(_ n: Int) throws -> String {
        let data = try bench.dataset(n, "v1")
        // The store and its record are those of the main benchmark's v1 import, so a later
        // `subdash-bench --reuse` measures reports and the dashboard on it without importing again.
        let store = "\(bench.cache)/store-\(n)-v1.sqlite"
        let baseline = "\(bench.cache)/side-\(n)-python.sqlite"
        bench.remove(store)
        bench.remove(baseline)
        FileHandle.standardError.write(Data("side by side, \(n) subscribers: subdash import…\n".utf8))
        let mine = try bench.subdash(["import", "--db", store, data])
        let documents = bench.documents(
            mine.stderr.split(separator: "\n").first { $0.contains("documents read") }.map(String.init) ?? "")
        let periods =
            Int(try bench.sqlite(store, "SELECT COUNT(*) FROM period;").stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            ?? 0
        try JSONEncoder().encode(
            Bench.ImportRecord(documents: documents, seconds: mine.seconds, peakKB: mine.peakKB, periods: periods)
        )
        .write(to: URL(fileURLWithPath: store + ".import.json"))
        FileHandle.standardError.write(Data("side by side, \(n) subscribers: load_periods.py…\n".utf8))
        let theirs = try bench.timed(
            "/usr/bin/env", ["python3", Self.scripts.appendingPathComponent("load_periods.py").path, baseline, data + "/v1"])

        var cohortTimes: [Double] = []
        for _ in 0..<3 {
            cohortTimes.append(
                try bench.subdash(["report", "cohorts", "--periods", "12", "--db", store, "--format", "json"]).seconds)
        }
        let grid = try bench.timed(
            "/usr/bin/env", ["python3", Self.scripts.appendingPathComponent("cohort_grid.py").path, baseline])
        let gridSeconds = Self.seconds(in: grid.stdout)
        let best = cohortTimes.min() ?? 0

        let importRatio = mine.seconds / max(theirs.seconds, 0.001)
        let cohortRatio = best / max(gridSeconds, 0.001)
        bench.figures.bySize.append(
            (
                n,
                [
                    "import v1: µs per document": 1e6 * mine.seconds / Double(max(documents, 1)),
                    "import v1: peak MB": Double(mine.peakKB / 1024),
                    "side by side: subdash import v1 s": mine.seconds,
                    "side by side: load_periods.py s": theirs.seconds,
                    "side by side: import ÷ baseline": importRatio,
                    "side by side: report cohorts best s": best,
                    "side by side: DuckDB cohort grid best s": gridSeconds,
                    "side by side: cohorts ÷ baseline": cohortRatio,
                ]
            ))
        let perDocument =
            documents > 0
            ? String(format: " (%.0f µs per document, peak %d MB)", 1e6 * mine.seconds / Double(documents), mine.peakKB / 1024)
            : ""
        var md = "| \(n) | import v1, \(documents) documents\(perDocument) | \(String(format: "%.1f", mine.seconds)) | "
        md += "\(String(format: "%.1f", theirs.seconds)) | **\(String(format: "%.2f", importRatio))** |\n"
        md += "| \(n) | cohort grid, 12 periods | \(String(format: "%.3f", best)) | \(String(format: "%.3f", gridSeconds)) | "
        md += "**\(String(format: "%.2f", cohortRatio))** |\n"
        return md
    }

    /// `seconds=1.234` in a baseline's one-line output.
    static func seconds(in output: String) -> Double {
        for field in output.split(whereSeparator: \.isWhitespace) where field.hasPrefix("seconds=") {
            return Double(field.dropFirst("seconds=".count)) ?? 0
        }
        return 0
    }
}
