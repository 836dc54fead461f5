import Foundation
import SubscriptionModel
import TerminalUI
import Testing

@testable import Dashboard
@testable import SubscriberAnalytics

/// Pane 3's cell counts and `t` line.
@Suite struct CohortsTrendTests {
    /// On ``MoneyPaneTests``' store as of 2025-06-15 (monthly products): the 2025-03 cohort is 9001,
    /// paid in March, April and May, its June period refunded on 06-10 (the run ended with 3 paid
    /// periods); the 2025-05 cohort is 9201, paid from 05-27 after a free week, still in its first
    /// paid period.
    @Test func theCellUnderTheCursorShowsItsCounts() throws {
        let runner = try MoneyPaneTests.runner()
        var state = AppState(asOf: MoneyPaneTests.asOf)
        try keys("3", state: &state, runner: runner)
        var lines = MoneyPaneTests.screen(state, width: 100, height: 30)
        #expect(lines.contains { $0.contains("│ 2025-03 · P1 100%: retained 1 · ended 0 · censored 0 of 1 · t: trend") })
        try keys("l", "l", state: &state, runner: runner)
        lines = MoneyPaneTests.screen(state, width: 100, height: 30)
        #expect(lines.contains { $0.contains("│ 2025-03 · P3 0%: retained 0 · ended 1 · censored 0 of 1") })
        try keys("j", "j", "h", "h", state: &state, runner: runner)
        lines = MoneyPaneTests.screen(state, width: 100, height: 30)
        #expect(lines.contains { $0.contains("│ 2025-05 · P1 –: retained 0 · ended 0 · censored 1 of 1") })
    }

    /// `t` draws the selected column's rate across the cohorts as a line beside the pooled average,
    /// the cursor on the selected cohort; `t` again brings the grid back.
    @Test func tShowsTheColumnAcrossCohorts() throws {
        let runner = try SampleStore.runner()
        var state = AppState(asOf: CohortsPaneTests.asOf)
        drive(.start, &state, runner)
        try keys("3", "l", "l", "t", state: &state, runner: runner)
        let grid = try #require(state.cohorts.grid)
        let model = try #require(state.cohorts.trendModel)
        #expect(model.labels == grid.cohorts.map(\.month.description))
        #expect(model.series[0].values == grid.cohorts.map { $0.rate[2].map { $0 * 100 } })
        #expect(model.series[1].values.allSatisfy { $0 == grid.average.rate[2].map { $0 * 100 } })
        let lines = CohortsPaneTests.screen(state, width: 100, height: 30)
        #expect(lines.contains { $0.contains("│ P3 retention by cohort month") && $0.contains("P3") && $0.contains("average │") })
        #expect(lines.contains { $0.contains("% 2025-01") }, "cohort months under the axis, the unit beside them")
        #expect(lines.contains { $0.contains("┤") })
        #expect(!lines.contains { $0.contains("P1   P2   P3") }, "the line in place of the grid")
        #expect(lines.contains { $0.contains("· t: grid") })
        try keys("t", state: &state, runner: runner)
        #expect(CohortsPaneTests.screen(state, width: 100, height: 30).contains { $0.contains("P1   P2   P3") })
    }
}
