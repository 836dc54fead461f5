import ArgumentParser
import Foundation

/// Stores that differ only in their share of 12-month commitments paid monthly (`subdash generate
/// --commitment-share`), measured by the same build in the same run: the imports, every report
/// and the dashboard's first visits, each step run on every store in turn before the next, so
/// that whatever else the machine is doing weighs on each store alike. The first share is the
/// "before" the others are compared with (docs/performance.md).
struct CommitmentShares {
    let bench: Bench
    let shares: [Double]

    struct Samples {
        var wall: [Double] = []
        var cpu: [Double] = []
        var peakKB = 0

        mutating func add(_ t: Bench.Timing) {
            wall.append(t.seconds)
            cpu.append(t.cpuSeconds)
            peakKB = max(peakKB, t.peakKB)
        }
    }

    func label(_ share: Double) -> String { String(format: "%g", share) }

    /// The machine's load averages (1, 5, 15 minutes), as /proc/loadavg gives them.
    func load() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "unknown" }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    func dataset(_ n: Int, share: Double) throws -> String {
        let dir = "\(bench.cache)/data-\(n)-v2-commitments-\(label(share))"
        if !FileManager.default.fileExists(atPath: dir + "/manifest.json") {
            try? FileManager.default.removeItem(atPath: dir)
            FileHandle.standardError.write(Data("generating \(n) subscribers, commitment share \(label(share))…\n".utf8))
            _ = try bench.subdash(
                [
                    "generate", "--subscribers", "\(n)", "--seed", "1", "--versions", "v2", "--commitment-share", label(share),
                    "--out", dir,
                ] + (n >= 100_000 ? ["--gzip"] : []))
        }
        return dir
    }

    func run(sizes: [Int]) throws -> String {
        var md = ""
        for n in sizes { md += try measure(n) }
        return md
    }

    func cell(_ s: Samples) -> String {
        "\(String(format: "%.3f", bench.median(s.wall))) (\(String(format: "%.3f", s.wall.min() ?? 0))–\(String(format: "%.3f", s.wall.max() ?? 0))) / \(String(format: "%.3f", bench.median(s.cpu))) / \(s.peakKB / 1024)"
    }

    func ratio(_ a: [Double], _ b: [Double]) -> String {
        let (x, y) = (bench.median(a), bench.median(b))
        return x > 0 ? String(format: "%.2f", y / x) : "–"
    }

    private func measure(_ n: Int) throws -> String {
        let dirs = try shares.map { try dataset(n, share: $0) }
        let stores = shares.map { "\(bench.cache)/store-\(n)-v2-commitments-\(label($0)).sqlite" }
        var md = "### \(n) subscribers, v2, commitment shares \(shares.map(label).joined(separator: " and "))\n\n"
        md += "Load averages (1, 5, 15 min) before the imports: \(load()).\n\n"

        // Imports, interleaved.
        var imports = [Samples](repeating: Samples(), count: shares.count)
        var documents = [Int](repeating: 0, count: shares.count)
        for _ in 0..<bench.importRuns {
            for (i, share) in shares.enumerated() {
                bench.remove(stores[i])
                FileHandle.standardError.write(Data("importing \(n) subscribers, commitment share \(label(share))…\n".utf8))
                let t = try bench.subdash(["import", "--db", stores[i], "--trust-root", dirs[i] + "/test-root.pem", dirs[i]])
                imports[i].add(t)
                documents[i] = bench.documents(
                    t.stderr.split(separator: "\n").first { $0.contains("documents read") }.map(String.init) ?? "")
            }
        }
        md += "| store | documents | periods | commitments | import wall s (min–max) / CPU s / peak MB | store MB |\n"
        md += "|---|---|---|---|---|---|\n"
        for (i, share) in shares.enumerated() {
            let count = { (table: String) in
                (try? bench.sqlite(stores[i], "SELECT COUNT(*) FROM \(table);").stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines))
                    ?? "?"
            }
            md +=
                "| share \(label(share)) | \(documents[i]) | \(count("period")) | \(count("commitment")) | \(cell(imports[i])) | \(bench.size(stores[i]) / 1_048_576) |\n"
        }
        md += "\nLoad averages after the imports: \(load()).\n\n"

        // Every report, each run on every store in turn.
        var reports: [[(String, [String])]] = []
        for store in stores {
            let states = try bench.subdash(["report", "states", "--db", store, "--format", "json"]).stdout
            let asOf = states.split(separator: "\"")[3]
            let month = String(asOf.prefix(7))
            let (next, yearAgo) = (bench.nextMonth(month), bench.nextMonth("\(Int(month.prefix(4))! - 1)" + month.dropFirst(4)))
            let oneMonth = ["--from", month + "-01", "--to", next + "-01"]
            let twelveMonths = ["--from", yearAgo + "-01", "--to", next + "-01"]
            let subscriber = try bench.sqlite(
                store, "SELECT originalTransactionId FROM subscription ORDER BY periodCount DESC LIMIT 1;"
            )
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            reports.append([
                ("states", ["states"]),
                ("events, one month", ["events"] + oneMonth),
                ("cohorts 24×12", ["cohorts", "--periods", "12"]),
                ("recovery, one month", ["recovery"] + oneMonth),
                ("revenue, twelve months by month", ["revenue"] + twelveMonths + ["--by", "month"]),
                ("mrr", ["mrr"]),
                ("ltv 24×12", ["ltv", "--periods", "12"]),
                ("offers, twelve months", ["offers"] + twelveMonths),
                ("refunds, twelve months by month", ["refunds"] + twelveMonths),
                ("eligibility", ["eligibility"]),
                ("movement, twelve months by month", ["movement"] + twelveMonths),
                ("series mrr, twelve months", ["series", "mrr"] + twelveMonths),
                ("series committed, twelve months", ["series", "committed"] + twelveMonths),
                ("subscriber (most periods)", ["subscriber", subscriber]),
            ])
        }
        var samples = [[Samples]](repeating: [Samples](repeating: Samples(), count: shares.count), count: reports[0].count)
        let reportLoad = load()
        for _ in 0..<bench.runs {
            for r in reports[0].indices {
                for i in shares.indices {
                    samples[r][i].add(
                        try bench.subdash(["report"] + reports[i][r].1 + ["--db", stores[i], "--format", "json"]))
                }
            }
        }
        md += "Reports, \(bench.runs) runs each, interleaved (load averages before: \(reportLoad); after: \(load())):\n\n"
        md +=
            "| report | "
            + shares.map { "share \(label($0)): wall s median (min–max) / CPU s / peak MB" }.joined(separator: " | ")
        md +=
            " | " + shares.dropFirst().map { "wall, CPU ÷ share \(label(shares[0])) (\(label($0)))" }.joined(separator: " | ")
            + " |\n"
        md += "|---|" + String(repeating: "---|", count: shares.count * 2 - 1) + "\n"
        for r in reports[0].indices {
            md += "| \(reports[0][r].0) | " + samples[r].map(cell).joined(separator: " | ") + " | "
            md +=
                samples[r].dropFirst().map { "\(ratio(samples[r][0].wall, $0.wall)), \(ratio(samples[r][0].cpu, $0.cpu))" }
                .joined(separator: " | ") + " |\n"
        }

        // The dashboard: subdash-frames on every store in turn; each row's median over the runs.
        var frames = [[String: [Double]]](repeating: [:], count: shares.count)
        var order: [String] = []
        let framesLoad = load()
        for _ in 0..<bench.frameRuns {
            for i in shares.indices {
                let out = try bench.timed(
                    Bench.binDir.appendingPathComponent("subdash-frames").path,
                    ["--db", stores[i], "--markdown", "--presses", "20", "--opens", "5"]
                ).stdout
                for line in out.split(separator: "\n") {
                    let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                    guard cells.count >= 3, cells[0].contains("first") || cells[0].hasPrefix("open a subscriber"),
                        let ms = Double(cells[2])
                    else { continue }
                    if !order.contains(cells[0]) { order.append(cells[0]) }
                    frames[i][cells[0], default: []].append(ms)
                }
            }
        }
        md += "\nDashboard (`subdash-frames --db STORE --presses 20 --opens 5`, \(bench.frameRuns) runs each, interleaved; "
        md += "load averages before: \(framesLoad); after: \(load())), median ms of the runs (min–max):\n\n"
        md += "| dashboard | " + shares.map { "share \(label($0))" }.joined(separator: " | ") + " | "
        md += shares.dropFirst().map { "÷ share \(label(shares[0])) (\(label($0)))" }.joined(separator: " | ") + " |\n"
        md += "|---|" + String(repeating: "---|", count: shares.count * 2 - 1) + "\n"
        for row in order {
            let values = frames.map { $0[row] ?? [] }
            md += "| \(row) | "
            md +=
                values.map { v in
                    v.isEmpty
                        ? "–"
                        : "\(String(format: "%.0f", bench.median(v))) (\(String(format: "%.0f", v.min()!))–\(String(format: "%.0f", v.max()!)))"
                }.joined(separator: " | ") + " | "
            md += values.dropFirst().map { v in values[0].isEmpty || v.isEmpty ? "–" : ratio(values[0], v) }.joined(
                separator: " | ")
            md += " |\n"
        }
        return md
    }
}
