import ArgumentParser
import Dashboard
import Foundation
import SubscriberAnalytics
import SubscriberStore
import TerminalUI

/// Frame times of the real dashboard on a store: the `Dashboard` run loop (`DashboardSession`)
/// drawing into a `TestBackend`, its queries on the effect queue exactly as under curses.
/// A frame counts when everything the key asked for has arrived and is drawn.
@main
struct Frames: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subdash-frames",
        abstract: "Time the dashboard's first frame, key-to-frame latencies and opening a subscriber on a store.")

    @Option(help: "The store to open (read-only).") var db: String
    @Option(help: "Screen width.") var width = 120
    @Option(help: "Screen height.") var height = 40
    @Option(help: "Presses of each navigation key.") var presses = 100
    @Option(help: "Subscribers to open.") var opens = 30
    @Flag(help: "Print only the markdown table rows (what subdash-bench puts in docs/performance.md).") var markdown = false
    @Flag(
        help:
            "Log every statement with its SQLite VM steps, full-scan steps and sorts on stderr (opens the store writable: use a copy)."
    ) var trace = false

    struct Row {
        var label: String
        var samples: [Double]
    }

    func run() throws {
        let clock = ContinuousClock()
        let started = clock.now
        let database = trace ? try StatementTrace.open(path: db) : try AppDatabase.open(path: db, readOnly: true)
        if trace { StatementTrace.phase("first full frame") }
        let session = DashboardSession(
            backend: TestBackend(width: width, height: height),
            runner: EffectRunner(analytics: SubscriberAnalytics(database: database)),
            palette: .builtinDefault(.truecolor))
        session.apply(.start)
        session.settle()
        session.draw()
        let firstFrame = milliseconds(clock.now - started)
        guard !session.state.subscribers.rows.isEmpty else {
            throw ValidationError("\(db): the first frame lists no subscribers")
        }

        /// Presses `chord`, waits for what it asked for, draws: milliseconds.
        func time(_ chord: String) throws -> Double {
            let keys = try KeyChord(parsing: chord).keys
            if trace { StatementTrace.phase("key \(chord)") }
            let start = clock.now
            for key in keys { session.press(key) }
            session.settle()
            session.draw()
            return milliseconds(clock.now - start)
        }

        var rows: [Row] = []
        // Pane 1: down through the list (paging from SQL as it goes), then back up.
        rows.append(
            Row(
                label: "`j`/`k` on Subscribers",
                samples: try (0..<presses).map { _ in try time("j") }
                    + (0..<presses).map { _ in try time("k") }))
        rows.append(
            Row(
                label: "`pgdn`/`pgup` on Subscribers",
                samples: try (0..<presses).map { _ in try time("pgdn") }
                    + (0..<presses).map { _ in try time("pgup") }))
        // Opening a subscriber: enter on a row until its pane is drawn; esc back, next row.
        var openSamples: [Double] = []
        for _ in 0..<opens {
            _ = try time("j")
            openSamples.append(try time("enter"))
            guard session.state.subscriber.report != nil else { throw ValidationError("enter did not open a subscriber") }
            _ = try time("esc")
        }
        // First visits run the pane's queries; later visits redraw what is loaded.
        var firstVisits: [Row] = []
        for (key, pane) in [("3", "Cohorts"), ("4", "States & Events")] {
            firstVisits.append(Row(label: "`\(key)` first visit (\(pane) queries)", samples: [try time(key)]))
        }
        // Pane 6 draws MRR now as soon as it arrives, then fills in its other sections.
        if trace { StatementTrace.phase("key 6") }
        let moneyStart = clock.now
        session.press(KeyEvent(.char("6")))
        session.settle { $0.money.figures != nil }
        session.draw()
        firstVisits.append(Row(label: "`6` first visit, first frame (MRR now)", samples: [milliseconds(clock.now - moneyStart)]))
        session.settle()
        session.draw()
        firstVisits.append(Row(label: "`6` first visit (Money queries)", samples: [milliseconds(clock.now - moneyStart)]))
        // Pane 5 draws the first screen of its list as soon as it arrives, then streams the other lists.
        if trace { StatementTrace.phase("key 5") }
        let offersStart = clock.now
        session.press(KeyEvent(.char("5")))
        session.settle { $0.offers.board != nil }
        session.draw()
        firstVisits.append(
            Row(
                label: "`5` first visit, first frame (first screen of its list)", samples: [milliseconds(clock.now - offersStart)]
            ))
        session.settle()
        session.draw()
        firstVisits.append(Row(label: "`5` first visit (Offers queries)", samples: [milliseconds(clock.now - offersStart)]))
        // Pane 7 reads its series (the metric's buckets over the range) on its first visit.
        firstVisits.append(Row(label: "`7` first visit (Trends queries)", samples: [try time("7")]))
        var paneSamples: [Double] = []
        var tabSamples: [Double] = []
        for _ in 0..<max(1, presses / 4) {
            for key in ["1", "2", "3", "4"] { paneSamples.append(try time(key)) }
        }
        _ = try time("1")
        for _ in 0..<presses { tabSamples.append(try time("tab")) }
        rows.append(Row(label: "`tab` (panes loaded)", samples: tabSamples))
        rows.append(Row(label: "`1`–`4` (panes loaded)", samples: paneSamples))
        _ = try time("3")
        rows.append(Row(label: "`j`/`k` on Cohorts", samples: try (0..<presses).map { i in try time(i % 2 == 0 ? "j" : "k") }))
        rows.append(Row(label: "**all navigation keys above**", samples: rows.flatMap(\.samples)))
        // `:asof` on pane 6 (90 days back): MRR then is its first frame, then every section again.
        if let asOf = session.state.asOf {
            _ = try time("6")
            session.press(KeyEvent(.char(":")))
            for c in "asof \(asOf.adding(days: -90).isoDate)" { session.press(KeyEvent(.char(c))) }
            let asOfStart = clock.now
            session.press(KeyEvent(.enter))
            session.settle { $0.money.figures != nil }
            session.draw()
            firstVisits.append(
                Row(label: "`:asof` on pane 6, first frame (MRR then)", samples: [milliseconds(clock.now - asOfStart)]))
            session.settle()
            session.draw()
            firstVisits.append(Row(label: "`:asof` on pane 6 (Money queries)", samples: [milliseconds(clock.now - asOfStart)]))
        }
        rows += firstVisits
        rows.append(Row(label: "open a subscriber (`enter` → its pane drawn)", samples: openSamples))

        let peakMB = peakResidentMegabytes()
        var table = markdown ? "" : "\(db), \(width)×\(height)\n\n"
        table += "| dashboard | runs | median ms | p99 ms | max ms |\n|---|---|---|---|---|\n"
        table += "| first full frame (open store, first queries, render) | 1 | \(format(firstFrame)) | – | – |\n"
        for row in rows {
            let sorted = row.samples.sorted()
            table +=
                "| \(row.label) | \(sorted.count) | \(format(percentile(sorted, 0.5))) | \(format(percentile(sorted, 0.99))) | \(format(sorted.last ?? 0)) |\n"
        }
        table += "| peak resident memory | – | \(peakMB) MB | – | – |\n"
        print(table, terminator: "")
    }

    func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }

    func format(_ ms: Double) -> String { ms < 10 ? String(format: "%.2f", ms) : String(format: "%.0f", ms) }

    /// VmHWM of this process, in MB (0 where /proc is missing).
    func peakResidentMegabytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kB = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kB / 1024
    }
}
