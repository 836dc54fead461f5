import Foundation
import ReportOutputs
import SubscriberStore
import SubscriptionModel
import TerminalUI
import Testing

@testable import Dashboard
@testable import SubscriberAnalytics

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Pane 6's MRR line and movement bars on ``MoneyPaneTests``' store with an upgrade (as of
/// 2025-06-15), worked out by hand in USD:
/// MRR is read at each month's end, the first instant of the next month (docs/metrics.md "MRR
/// movement"), so a period starting at 00:00 on the first counts at the end of the month before:
/// - 2025-02: 9001 (from 03-01 00:00) is new, +9.99: 0 → 9.99;
/// - 2025-03: 9501 (from 03-15) is new, +9.99: 9.99 → 19.98;
/// - 2025-04: nothing moves: 19.98 → 19.98;
/// - 2025-05: 9201 is new after its free week (+9.99); 9501 moves from 9.99 a month to 180.00 a
///   year, 15.00 a month: expansion +5.01; 19.98 → 34.98;
/// - 2025-06 (to as-of): 9001's June period is refunded on 06-10: churn −9.99; 34.98 → 24.99.
/// In EUR, 9101 (from 06-01 00:00) is new in May (+10.00).
@Suite struct MoneyMovementPaneTests {
    static func open(exportDirectory: String? = nil) throws -> (AppState, EffectRunner) {
        let runner = try MoneyPaneTests.runner(upgrade: true, exportDirectory: exportDirectory)
        var state = AppState(asOf: MoneyPaneTests.asOf)
        try keys("6", state: &state, runner: runner)
        return (state, runner)
    }

    static func screen(_ state: AppState) -> [String] { MoneyPaneTests.screen(state, width: 120, height: 40) }

    @Test func movementByHand() throws {
        let (state, _) = try Self.open()
        let movement = try #require(state.money.figures?.movement)
        func row(_ month: String, _ currency: String) -> MRRMovement.Row? {
            movement.rows.first { $0.bucket.label == month && $0.currency == currency }
        }
        let february = try #require(row("2025-02", "USD"))
        #expect(february.mrrStart == 0 && february[.new] == 9_990 && february.count(.new) == 1 && february.mrrEnd == 9_990)
        let march = try #require(row("2025-03", "USD"))
        #expect(march.mrrStart == 9_990 && march[.new] == 9_990 && march.count(.new) == 1 && march.mrrEnd == 19_980)
        let april = try #require(row("2025-04", "USD"))
        #expect(april.amounts.values.allSatisfy { $0 == 0 } && april.mrrEnd == 19_980)
        let may = try #require(row("2025-05", "USD"))
        #expect(may[.new] == 9_990 && may.count(.new) == 1 && may[.expansion] == 5_010 && may.count(.expansion) == 1)
        #expect(may.mrrStart == 19_980 && may.mrrEnd == 34_980)
        let june = try #require(row("2025-06", "USD"))
        #expect(june[.churn] == -9_990 && june.count(.churn) == 1 && june.mrrEnd == 24_990)
        #expect(row("2025-05", "EUR")?[.new] == 10_000 && row("2025-06", "EUR")?.mrrEnd == 10_000)
        // The line: MRR at each month's end, then at as-of: each bar's mrrEnd.
        let line = try #require(state.money.mrrLineModel(store: "test"))
        #expect(line.series[0].values.suffix(5) == [9.99, 19.98, 19.98, 34.98, 24.99])
        #expect(line.series[0].values.prefix(7).allSatisfy { $0 == 0 })
        let usd = movement.rows.filter { $0.currency == "USD" }.map { Double($0.mrrEnd) / 1000 }
        #expect(line.series[0].values == usd.map(Optional.some))
    }

    /// The line and the bars are drawn with axes; the cursor starts on the latest month and its
    /// bridge is read out under the bars.
    @Test func lineBarsAndTheCursorReadout() throws {
        var (state, runner) = try Self.open()
        var lines = Self.screen(state)
        #expect(lines.contains { $0.contains("┌ MRR by month · USD ─") })
        #expect(lines.contains { $0.contains("┌ MRR movement by month · USD ─") })
        #expect(lines.contains { $0.contains("⠤⠒⠤ MRR│") }, "the line's legend")
        #expect(lines.contains { $0.contains("█ new  ▓ reactivation  ▒ expansion  ░ contraction  ▚ churn│") })
        #expect(lines.contains { $0.contains("│USD 2024-07") }, "month labels under both charts, the unit beside them")
        // The value axes: MRR up to 34.98, movement from −9.99 to +19.98 around the zero line.
        #expect(lines.contains { $0.contains("│ 35┤") || $0.contains("│ 40┤") })
        let zero = try #require(lines.firstIndex { $0.contains("  0┼") })
        #expect(lines[(zero + 1)...].prefix(8).contains { $0.contains("▚") }, "June's churn under the axis")
        #expect(lines[..<zero].contains { $0.contains("▒") }, "May's expansion over it")
        #expect(lines.contains { $0.contains("│2025-06 (to 2025-06-15) · MRR 34.98 → 24.99 USD") })
        #expect(
            lines.contains {
                $0.contains("│new 0.00 (0)  react 0.00 (0)  exp 0.00 (0)  contr 0.00 (0)  churn -9.99 (1)")
            })
        try keys("h", state: &state, runner: runner)
        lines = Self.screen(state)
        #expect(lines.contains { $0.contains("│2025-05 · MRR 19.98 → 34.98 USD") })
        #expect(
            lines.contains {
                $0.contains("│new +9.99 (1)  exp +5.01 (1)")
            }, "too wide for every movement by its short name: those that moved")
        try keys("h", "h", state: &state, runner: runner)
        #expect(Self.screen(state).contains { $0.contains("│2025-03 · MRR 9.99 → 19.98 USD") })
        #expect(
            MoneyPaneTests.screen(state, width: 160, height: 40).contains {
                $0.contains("│new +9.99 (1)  reactivation 0.00 (0)  expansion 0.00 (0)  contraction 0.00 (0)  churn 0.00 (0)")
            }, "whole names when they fit")
        // At 80 columns only what moved is listed.
        try keys("l", "l", "l", "l", state: &state, runner: runner)
        #expect(MoneyPaneTests.screen(state).contains { $0.contains("│churn -9.99 (1)") })
        // c: the other currency's movement.
        try keys("c", state: &state, runner: runner)
        #expect(Self.screen(state).contains { $0.contains("│2025-06 (to 2025-06-15) · MRR 10.00 → 10.00 EUR") })
    }

    /// The readout under the bars at the 100,000-subscriber store's December: too wide for every
    /// movement that moved with its counts in a 100-cell box, so the counts go, not the churn.
    @Test func theReadoutDropsItsCountsBeforeItIsCut() {
        let december = ReportBucket(
            start: Instant(parsing: "2025-12-01")!, end: Instant(parsing: "2025-12-31T23:59:45Z")!, isComplete: false,
            size: .month)
        let row = MRRMovement.Row(
            bucket: december, currency: "USD", mrrStart: 136_552_910,
            amounts: [
                .new: 18_559_680, .reactivation: 3_203_640, .expansion: 2_396_740, .contraction: -1_760_440,
                .churn: -20_545_400,
            ], counts: [.new: 1_964, .reactivation: 367, .expansion: 435, .contraction: 325, .churn: 1_990], fx: 0,
            mrrEnd: 138_405_220)
        func text(_ width: Int) -> String { movementReadout(row, width: width).map(\.1).joined(separator: "  ") }
        #expect(
            text(120)
                == "new +18,559.68 (1,964)  react +3,203.64 (367)  exp +2,396.74 (435)  contr -1,760.44 (325)  churn -20,545.40 (1,990)"
        )
        #expect(text(100) == "new +18,559.68  react +3,203.64  exp +2,396.74  contr -1,760.44  churn -20,545.40")
        #expect(text(100).count <= 100)
        // The 100,000-subscriber store's pane at 120 columns leaves the readout 75: whole units,
        // never a number cut in the middle ("churn -20," was drawn before).
        #expect(text(75) == "new +18,560  react +3,204  exp +2,397  contr -1,760  churn -20,545")
        // Narrower: the movements that fit whole.
        #expect(text(30) == "new +18,560  react +3,204")
    }

    /// `enter` on a bar lists its subscriptions grouped by movement; `enter` on one opens it,
    /// `esc` comes back to the list, then to the bars.
    @Test func enterListsTheBarsSubscriptions() throws {
        var (state, runner) = try Self.open()
        try keys("h", "enter", state: &state, runner: runner)
        var lines = Self.screen(state)
        #expect(lines.contains { $0.contains("┌ MRR movement 2025-05 · USD · subscriptions by movement (esc: back) ─") })
        let new = try #require(lines.firstIndex { $0.contains("│new · 1 subscription · +9.99") })
        #expect(lines[new + 1].contains("│  9201                       0.00 →       9.99       +9.99"))
        #expect(lines[new + 2].contains("│expansion · 1 subscription · +5.01"))
        #expect(lines[new + 3].contains("│  9501                       9.99 →      15.00       +5.01"))
        try keys("j", "enter", state: &state, runner: runner)
        #expect(state.pane == .subscriber && state.subscriber.id == "9501")
        try keys("esc", state: &state, runner: runner)
        #expect(state.pane == .money && state.money.members != nil)
        try keys("esc", state: &state, runner: runner)
        #expect(state.money.members == nil)
        lines = Self.screen(state)
        #expect(lines.contains { $0.contains("┌ MRR movement by month · USD ─") })
        // The June bar: the churned subscription.
        try keys("l", "enter", state: &state, runner: runner)
        lines = Self.screen(state)
        let churn = try #require(lines.firstIndex { $0.contains("│churn · 1 subscription · -9.99") })
        #expect(lines[churn + 1].contains("│  9001                       9.99 →       0.00       -9.99"))
        #expect(!lines.contains { $0.contains("│new ·") })
    }

    /// `ctrl-s`: the charts shown as SVG that parses as XML, beside the movement's CSV as
    /// `report movement --format csv` writes it.
    @Test func ctrlSSavesTheChartsBesideTheirCSV() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("money-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var (state, runner) = try Self.open(exportDirectory: directory)
        try keys("ctrl-s", state: &state, runner: runner)
        let svgPath = directory + "/subdash-money-USD-2025-06-15.svg"
        let csvPath = directory + "/subdash-money-USD-2025-06-15.csv"
        #expect(state.notice == "saved the chart to \(svgPath) (figures in \(URL(fileURLWithPath: csvPath).lastPathComponent))")
        let svg = try Data(contentsOf: URL(fileURLWithPath: svgPath))
        let parser = XMLParser(data: svg)
        #expect(parser.parse(), "the SVG is well-formed XML")
        let text = String(decoding: svg, as: UTF8.self)
        #expect(text.contains("MRR movement by month, USD") && text.contains("MRR at each month"))
        #expect(!text.contains("EUR"), "the currency shown")
        let csv = try String(contentsOfFile: csvPath, encoding: .utf8).split(separator: "\n")
        #expect(csv[0] == MovementOutput.csvHeader.joined(separator: ","))
        let may = try #require(csv.first { $0.hasPrefix("2025-05-01T00:00:00Z,2025-06-01T00:00:00Z,USD,") })
        #expect(
            may.split(separator: ",").dropFirst(3).map(String.init) == [
                "19.98", "9.99", "0.00", "5.01", "0.00", "0.00", "0.00", "34.98", "1", "0", "1", "0", "0",
            ])
        let attributes = try FileManager.default.attributesOfItem(atPath: csvPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // A second save never replaces the first.
        try keys("ctrl-s", state: &state, runner: runner)
        #expect(FileManager.default.fileExists(atPath: directory + "/subdash-money-USD-2025-06-15-2.svg"))
    }
}
