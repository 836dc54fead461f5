import Foundation
import SubscriberStore
import SubscriptionModel
import TerminalUI
import Testing

@testable import Dashboard
@testable import SubscriberAnalytics

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Pane 7 on a store small enough to work out by hand (as of 2025-06-15), all monthly at 9.99 USD
/// unless said:
/// - 7001 from 2025-01-10, four periods to 2025-05-10 (renewals 02-10, 03-10, 04-10);
/// - 7101 from 2025-03-05, four periods to 2025-07-05 (renewals 04-05, 05-05, 06-05);
/// - 7201 yearly at 99.90 EUR from 2024-05-20, renewed on 2025-05-20.
///
/// Active at each month's end (the next month's first instant): 2024-06 … 2024-12: 1 (7201);
/// 2025-01, 2025-02: 2; 2025-03, 2025-04: 3; 2025-05: 2 (7001 ended 05-10); 2025-06 to as-of: 2.
/// Renewals: 2025-02: 1, 03: 1, 04: 2 (7101, 7001), 05: 2 (7101, 7201), 06: 1.
/// MRR at the end of 2025-04 in USD: 19.98; in EUR: 99.90 / 12 = 8.325 → 8.33.
@Suite struct TrendsPaneTests {
    static let asOf = Instant(parsing: "2025-06-15")!

    static func runner(exportDirectory: String = NSTemporaryDirectory()) throws -> EffectRunner {
        var documents: [IncomingDocument] = []
        func add(
            _ id: String, _ original: String, _ product: String, _ from: String, _ to: String, price: Int64, currency: String
        ) {
            var t = TransactionFact(
                transactionId: id, originalTransactionId: original, productId: product,
                purchaseDate: Instant(parsing: from)!, expiresDate: Instant(parsing: to)!, environment: .production)
            t.price = price
            t.currency = currency
            let name = "trends-\(id)"
            documents.append(
                IncomingDocument(
                    sha256: String(repeating: "0", count: 64 - name.count) + name, source: name, byteCount: 1, body: nil,
                    content: .facts(DocumentFacts(format: .v2Notification, transactions: [t]))))
        }
        let a = ["2025-01-10", "2025-02-10", "2025-03-10", "2025-04-10", "2025-05-10"]
        let b = ["2025-03-05", "2025-04-05", "2025-05-05", "2025-06-05", "2025-07-05"]
        for n in 0..<4 {
            add("\(7002 + n)", "7001", "pro.monthly", a[n], a[n + 1], price: 9_990, currency: "USD")
            add("\(7102 + n)", "7101", "pro.monthly", b[n], b[n + 1], price: 9_990, currency: "USD")
        }
        add("7202", "7201", "pro.yearly", "2024-05-20", "2025-05-20", price: 99_900, currency: "EUR")
        add("7203", "7201", "pro.yearly", "2025-05-20", "2026-05-20", price: 99_900, currency: "EUR")
        let database = try AppDatabase.inMemory()
        try database.apply(documents)
        return EffectRunner(analytics: SubscriberAnalytics(database: database), exportDirectory: exportDirectory)
    }

    static func opened(_ runner: EffectRunner) throws -> AppState {
        var state = AppState(asOf: asOf)
        drive(.switchPane(.trends), &state, runner)
        return state
    }

    static func screen(_ state: AppState, width: Int = 100, height: Int = 30, palette: Palette = .builtinDefault(.truecolor))
        -> [String]
    {
        view(state, size: Size(width: width, height: height), palette: palette).lines()
    }

    @Test func theChartHasDateAndValueAxesAndTheCursorReadsTheLatestPoint() throws {
        let state = try Self.opened(try Self.runner())
        let lines = Self.screen(state)
        #expect(lines[0].contains(" 7 Trends "))
        #expect(lines[2].contains("Trends · active · 1y by month · 13/13"))
        #expect(lines[3].contains("active at each month's end"))
        #expect(lines[3].contains("previous 1y"), "the legend names the dashed previous period")
        // Value labels on the axis, bucket labels with dates underneath (first, last, the cursor's).
        let chart = lines[4..<25].joined(separator: "\n")
        #expect(chart.contains("3┤"))
        #expect(chart.contains("1┤"))
        let labels = lines.first { $0.contains("2024-06") && $0.contains("2025-06") }
        #expect(labels != nil, "bucket labels from the first month to as-of's")
        #expect(
            lines[25].contains("2025-06 (to 2025-06-15, so far): active 2 · vs 2025-05: 0 (0.0 %) · vs 2024-06: +1 (+100.0 %)"))
        #expect(lines[26].contains("dashed: the previous 1y · enter lists active at 2025-06-15 00:00 UTC"))
    }

    @Test func theCursorReadsEachPointWithItsChanges() throws {
        let runner = try Self.runner()
        var state = try Self.opened(runner)
        try keys("h", state: &state, runner: runner)
        var lines = Self.screen(state)
        #expect(lines[2].contains("12/13"))
        #expect(lines[25].contains("2025-05: active 2 · vs 2025-04: -1 (-33.3 %) · vs 2024-05: +1 (+100.0 %)"))
        #expect(lines[26].contains("enter lists active at 2025-06-01 00:00 UTC"))
        try keys("h", "h", state: &state, runner: runner)
        lines = Self.screen(state)
        #expect(lines[25].contains("2025-03: active 3 · vs 2025-02: +1 (+50.0 %) · vs 2024-03: +3 (—)"))
        // The cursor stops at the first bucket (H and L move ten at a time).
        try keys("H", state: &state, runner: runner)
        #expect(Self.screen(state)[2].contains("· 1/13"))
        try keys("L", state: &state, runner: runner)
        #expect(Self.screen(state)[2].contains("· 11/13"))
        for _ in 0..<20 { try keys("left", state: &state, runner: runner) }
        #expect(Self.screen(state)[25].contains("2024-06: active 1 · vs 2024-05: 0 (0.0 %)"))
    }

    @Test func enterListsTheSubscriptionsBehindThePoint() throws {
        let runner = try Self.runner()
        var state = try Self.opened(runner)
        // 2025-04: active at its end (05-01) are all three.
        try keys("h", "h", "enter", state: &state, runner: runner)
        #expect(state.pane == .subscribers)
        #expect(state.subscribers.rows.map(\.id).sorted() == ["7001", "7101", "7201"])
        let lines = Self.screen(state)
        #expect(lines[1].contains("subdash  ›  Trends  ›  Subscribers"))
        #expect(lines[2].contains("active at 2025-05-01 00:00 UTC"))
        // esc comes back to the chart, the cursor where it was.
        try keys("esc", state: &state, runner: runner)
        #expect(state.pane == .trends)
        #expect(Self.screen(state)[25].hasPrefix("│ 2025-04: active 3"))
        // 2025-05: 7001 ended on 05-10.
        try keys("l", "enter", state: &state, runner: runner)
        #expect(state.subscribers.rows.map(\.id).sorted() == ["7101", "7201"])
    }

    /// What `enter` lists on a point is what the point counts, on every bucket of a stock and of events.
    @Test func everyPointListsAsManySubscriptionsAsItCounts() throws {
        let runner = try Self.runner()
        for metric in [SeriesMetric.active, .event(.renewal), .state(.standard)] {
            var state = AppState(asOf: Self.asOf)
            state.trends.metric = metric
            drive(.switchPane(.trends), &state, runner)
            let data = try #require(state.trends.data)
            #expect(data.series.lines[0].values.contains { $0 > 0 })
            for i in data.first..<data.series.buckets.count {
                let bucket = data.series.buckets[i]
                let size = try runner.analytics.size(of: trendsPopulation(metric, bucket), asOf: Self.asOf)
                #expect(Int64(size.figure) == data.series.lines[0].values[i], "\(metric.name) \(bucket.label)")
            }
        }
    }

    @Test func eventsAreBarsAndEnterListsThoseWhoseEventFallsInTheBucket() throws {
        let runner = try Self.runner()
        var state = try Self.opened(runner)
        try keys(":", state: &state, runner: runner)
        for c in "metric renewal" { try keys(c == " " ? "space" : String(c), state: &state, runner: runner) }
        try keys("enter", state: &state, runner: runner)
        #expect(state.trends.metric == .event(.renewal))
        var lines = Self.screen(state)
        #expect(lines[2].contains("Trends · renewal · 1y by month"))
        #expect(lines[3].contains("renewal per month"))
        #expect(lines[25].contains("2025-06 (to 2025-06-15, so far): renewal 1 · vs 2025-05: -1 (-50.0 %)"))
        try keys("h", state: &state, runner: runner)
        lines = Self.screen(state)
        #expect(lines[25].contains("2025-05: renewal 2 · vs 2025-04: 0 (0.0 %) · vs 2024-05: +2 (—)"))
        #expect(lines[26].contains("enter lists renewal in 2025-05"))
        try keys("h", "enter", state: &state, runner: runner)
        #expect(state.subscribers.rows.map(\.id).sorted() == ["7001", "7101"])
    }

    @Test func metricRangeAndBucketSwitch() throws {
        let runner = try Self.runner()
        var state = try Self.opened(runner)
        // m: active → mrr, in the currency with the most at the latest bucket (EUR 8.33 < USD 9.99).
        try keys("m", state: &state, runner: runner)
        #expect(state.trends.metric == .mrr)
        var lines = Self.screen(state)
        #expect(lines[2].contains("Trends · mrr · 1y by month · USD"))
        try keys("h", "h", state: &state, runner: runner)
        #expect(Self.screen(state)[25].contains("2025-04: mrr 19.98 USD · vs 2025-03: 0.00 USD (0.0 %)"))
        try keys("c", state: &state, runner: runner)
        lines = Self.screen(state)
        #expect(lines[2].contains("· EUR ·"))
        #expect(lines[25].contains("2025-04: mrr 8.33 EUR"))
        // M goes back; [ shortens the range to 6 months, b takes weeks then days.
        try keys("M", "[", state: &state, runner: runner)
        #expect(state.trends.metric == .active)
        #expect(state.trends.range == .months(6))
        #expect(state.trends.data?.shownCount == 7, "2024-12 … 2025-06")
        try keys("b", state: &state, runner: runner)
        #expect(state.trends.bucket == .day)
        try keys("b", state: &state, runner: runner)
        #expect(state.trends.bucket == .week)
        lines = Self.screen(state)
        #expect(lines[2].contains("Trends · active · 6m by week"))
        #expect(lines[25].hasPrefix("│ 2025-W24 (to 2025-06-15, so far): active 2"))
        // :range takes days, months, years or all; a bad one says what it takes.
        try keys(":", state: &state, runner: runner)
        for c in "range 2q" { try keys(c == " " ? "space" : String(c), state: &state, runner: runner) }
        try keys("enter", state: &state, runner: runner)
        #expect(state.status?.hasPrefix("usage: :range 90d|12w|6m|1y|all") == true)
        try keys(":", state: &state, runner: runner)
        for c in "range all" { try keys(c == " " ? "space" : String(c), state: &state, runner: runner) }
        try keys("enter", state: &state, runner: runner)
        #expect(state.trends.range == .all)
        #expect(state.trends.data?.series.buckets.first?.label == "2024-W21", "from the first purchase, 2024-05-20")
    }

    @Test func chartStyleIsChosenForEveryChart() throws {
        let runner = try Self.runner()
        var state = try Self.opened(runner)
        let braille = Self.screen(state).joined()
        #expect(braille.unicodeScalars.contains { (0x2801...0x28FF).contains($0.value) })
        try keys(":", state: &state, runner: runner)
        for c in "chart ascii" { try keys(c == " " ? "space" : String(c), state: &state, runner: runner) }
        try keys("enter", state: &state, runner: runner)
        #expect(state.chartGlyphs == .ascii)
        let ascii = Self.screen(state)
        #expect(!ascii.joined().unicodeScalars.contains { (0x2800...0x28FF).contains($0.value) })
        #expect(ascii[4..<25].joined().contains("*"))
        #expect(ascii[4..<25].joined().contains("3+"))
    }

    @Test func ctrlSSavesTheChartAsSVGBesideItsCSV() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trends-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let runner = try Self.runner(exportDirectory: directory)
        var state = try Self.opened(runner)
        try keys("ctrl-s", state: &state, runner: runner)
        let stem = directory + "/subdash-trends-active-1y-by-month-2025-06-15"
        #expect(state.notice == "saved the chart to \(stem).svg (figures in subdash-trends-active-1y-by-month-2025-06-15.csv)")
        let csv = try String(contentsOfFile: stem + ".csv", encoding: .utf8).split(separator: "\n")
        #expect(csv.count == 14)
        #expect(csv[0] == "start,end,currency,value")
        #expect(csv[11] == "2025-04-01T00:00:00Z,2025-05-01T00:00:00Z,,3")
        let svg = try Data(contentsOf: URL(fileURLWithPath: stem + ".svg"))
        for path in [stem + ".csv", stem + ".svg"] {
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
        // Valid XML whose points carry the figures of the CSV; the previous period is dashed.
        let reader = SVGValues()
        let parser = XMLParser(data: svg)
        parser.delegate = reader
        #expect(parser.parse(), "the SVG parses: \(parser.parserError.map { "\($0)" } ?? "")")
        #expect(reader.values["active"] == ["1", "1", "1", "1", "1", "1", "1", "2", "2", "3", "3", "2", "2"])
        #expect(reader.values["previous 1y"]?.count == 13)
        #expect(reader.dashed)
        // A second save never replaces the first.
        try keys("ctrl-s", state: &state, runner: runner)
        #expect(FileManager.default.fileExists(atPath: stem + "-2.svg"))
        #expect(FileManager.default.fileExists(atPath: stem + "-2.csv"))
    }

    @Test func anIdlePaneDrawsNothing() throws {
        let runner = try Self.runner()
        let backend = TestBackend(width: 100, height: 30)
        let session = DashboardSession(
            backend: backend, runner: runner, palette: .builtinDefault(.none), state: AppState(asOf: Self.asOf))
        session.apply(.start)
        session.settle()
        session.apply(.switchPane(.trends))
        session.settle()
        session.draw()
        #expect(backend.lines[2].contains("Trends · active"))
        let flushes = backend.flushCount
        for _ in 0..<5 {
            session.apply(.tick)
            session.settle()
            session.step(timeout: .zero)
        }
        #expect(backend.flushCount == flushes, "store checks that find nothing new draw nothing")
        try backend.press("h")
        session.step(timeout: .zero)
        session.step(timeout: .zero)
        #expect(backend.flushCount == flushes + 1)
    }

    @Test func eightyColumnsShowEveryTabAndTheWholeReadOut() throws {
        let state = try Self.opened(try Self.runner())
        let row = Self.screen(state, width: 80, height: 24)[0]
        #expect(row.contains(" 4 States ") && row.hasSuffix(" 7 Trends  "))
        // The read-out's changes take a line of their own when the width is short.
        let lines = Self.screen(state, width: 80, height: 24)
        #expect(lines[18].hasPrefix("│ 2025-06 (to 2025-06-15, so far): active 2 "))
        #expect(lines[19].hasPrefix("│ vs 2025-05: 0 (0.0 %) · vs 2024-06: +1 (+100.0 %) "))
        #expect(lines[20].hasPrefix("│ dashed: the previous 1y · enter lists active at 2025-06-15 00:00 UTC"))
    }
}

/// The `data-value`s of each series (`data-series`) in an SVG, and whether a line is dashed.
private final class SVGValues: NSObject, XMLParserDelegate {
    var values: [String: [String]] = [:]
    var dashed = false
    private var series: [String] = []

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if name == "g" { series.append(attributes["data-series"] ?? "") }
        if attributes["stroke-dasharray"] != nil && name == "path" { dashed = true }
        if let value = attributes["data-value"], let current = series.last, !current.isEmpty {
            values[current, default: []].append(value)
        }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "g" { _ = series.popLast() }
    }
}
