import Dashboard
import SubscriberAnalytics
import SubscriptionModel
import TerminalUI
import Testing

/// `:asof` and `:product` on the command line, and how as-of is shown.
@Suite struct AsOfAndProductTests {
    static func submit(_ line: String, _ state: inout AppState, _ runner: EffectRunner) throws {
        try keys(":", state: &state, runner: runner)
        for character in line { drive(.key(.char(character)), &state, runner) }
        try keys("enter", state: &state, runner: runner)
    }

    @Test func aDateOnlyAsOfIsShownAsMidnightUTC() throws {
        let runner = try SampleStore.runner()
        var state = AppState(asOf: SampleStore.asOf)
        drive(.start, &state, runner)
        try Self.submit("asof 2025-06-30", &state, runner)
        #expect(state.asOf == Instant(parsing: "2025-06-30"))
        let lines = CohortsPaneTests.screen(state)
        #expect(lines[1].contains("as of 2025-06-30 00:00 UTC · production"))
        try keys("4", state: &state, runner: runner)
        #expect(CohortsPaneTests.screen(state)[2].contains("States as of 2025-06-30 00:00 UTC"))
    }

    @Test func asOfAloneGoesBackToTheDataHorizon() throws {
        let runner = try SampleStore.runner()
        let horizon = try #require(try runner.analytics.dataHorizon())
        var state = AppState()
        drive(.start, &state, runner)
        #expect(state.asOf == horizon)
        try Self.submit("asof 2025-03-01", &state, runner)
        #expect(state.asOf == Instant(parsing: "2025-03-01"))
        try Self.submit("asof", &state, runner)
        #expect(state.asOf == horizon)
        #expect(state.status == nil)
        #expect(state.notice == "as of the data horizon")
        #expect(state.subscribers.rows.isEmpty == false)
    }

    @Test func anUnknownProductIsRefusedWithTheKnownOnes() throws {
        let runner = try SampleStore.runner()
        var state = AppState(asOf: SampleStore.asOf)
        drive(.start, &state, runner)
        try Self.submit("product com.example.bogus", &state, runner)
        #expect(state.scope.productId == nil)
        #expect(state.status == "unknown product com.example.bogus (known products: pro.monthly, pro.yearly)")
        #expect(CohortsPaneTests.screen(state)[22].hasPrefix("unknown product com.example.bogus"))
        try Self.submit("product pro.yearly", &state, runner)
        #expect(state.scope.productId == "pro.yearly")
        #expect(state.status == nil)
    }

    /// `:asof 2025-06-01` is the end of May: pane 4 shows May's events (June's would all be 0), pane
    /// 6's months end with May, the cohorts with May's.
    @Test func anAsOfAtAMonthsFirstInstantShowsTheMonthThatEndedThere() throws {
        let runner = try SampleStore.runner(priced: true)
        var state = AppState(asOf: SampleStore.asOf)
        drive(.start, &state, runner)
        try Self.submit("asof 2025-06-01", &state, runner)
        try keys("4", state: &state, runner: runner)
        #expect(state.statesEvents.shownMonth(asOf: try #require(state.asOf)) == Month(year: 2025, month: 5))
        #expect(CohortsPaneTests.screen(state, width: 120, height: 40).contains { $0.contains("Events in 2025-05") })
        try keys("l", state: &state, runner: runner)
        #expect(state.statesEvents.shownMonth(asOf: try #require(state.asOf)) == Month(year: 2025, month: 5))
        try keys("6", state: &state, runner: runner)
        let figures = try #require(state.money.figures)
        #expect(figures.shownMonths.last == Month(year: 2025, month: 5))
        #expect(figures.shownMonths.first == Month(year: 2024, month: 6))
        try keys("3", state: &state, runner: runner)
        #expect(state.cohorts.grid?.cohorts.last?.month == Month(year: 2025, month: 5))
        // Any later instant of June is June's.
        try Self.submit("asof 2025-06-01T00:00:01Z", &state, runner)
        try keys("4", state: &state, runner: runner)
        #expect(state.statesEvents.shownMonth(asOf: try #require(state.asOf)) == Month(year: 2025, month: 6))
    }
}
