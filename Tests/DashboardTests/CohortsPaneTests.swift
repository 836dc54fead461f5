import Dashboard
import SubscriberAnalytics
import SubscriptionModel
import TerminalUI
import Testing

/// Pane 3 on the sample store (24 subscriptions begun weekly from 2025-01-03, monthly and yearly)
/// read as of 2026-12-31: 24 cohort months, 2025-01 … 2026-12, more than an 80×24 screen holds.
@Suite struct CohortsPaneTests {
    static let asOf = Instant(parsing: "2026-12-31")!

    static func screen(_ state: AppState, width: Int = 80, height: Int = 24) -> [String] {
        let backend = TestBackend(width: width, height: height, colorSupport: .none)
        Terminal(backend: backend).draw { buffer in render(state, into: &buffer, palette: Palette.builtinDefault(.none)) }
        return backend.lines
    }

    static func open() throws -> (AppState, EffectRunner) {
        let runner = try SampleStore.runner()
        var state = AppState(asOf: asOf)
        drive(.start, &state, runner)
        try keys("3", state: &state, runner: runner)
        return (state, runner)
    }

    @Test func everyCohortRowIsReachable() throws {
        var (state, runner) = try Self.open()
        let grid = try #require(state.cohorts.grid)
        #expect(grid.cohorts.count == 24)
        #expect(grid.cohorts.first?.month == Month(year: 2025, month: 1))
        var lines = Self.screen(state)
        #expect(lines[2].contains("Cohorts · retention by paid periods · monthly products (most common) · 1/24"))
        #expect(lines[3].contains("P1   P2   P3"))
        #expect(lines.contains { $0.hasPrefix("│ 2025-01") })
        #expect(!lines.contains { $0.hasPrefix("│ 2026-12") })
        // The average row stays under the window, with every month's members.
        let averageLine = try #require(lines.first { $0.hasPrefix("│ average") })
        #expect(averageLine.contains(" \(grid.average.started) "))
        try keys("G", state: &state, runner: runner)
        lines = Self.screen(state)
        #expect(lines[2].contains("· 24/24"))
        #expect(lines.contains { $0.hasPrefix("│ 2026-12") })
        #expect(!lines.contains { $0.hasPrefix("│ 2025-01") })
        try keys("pgup", state: &state, runner: runner)
        lines = Self.screen(state)
        #expect(lines.contains { $0.hasPrefix("│ 2025-04") })
        try keys("g g", state: &state, runner: runner)
        lines = Self.screen(state)
        #expect(lines.contains { $0.hasPrefix("│ 2025-01") })
        for _ in 0..<23 { try keys("j", state: &state, runner: runner) }
        for _ in 0..<23 { try keys("k", state: &state, runner: runner) }
        #expect(Self.screen(state).contains { $0.hasPrefix("│ 2025-01") })
    }

    @Test func unknownRatesShowADash() throws {
        let (state, _) = try Self.open()
        let grid = try #require(state.cohorts.grid)
        // The June 2025 cohort as of 2026-12-31: every member has ended (all fates known), or the
        // yearly ones renewed; an empty month (2026-01) is unknown at every step.
        let empty = try #require(Self.screen(state).first { $0.hasPrefix("│ 2026-01") })
        #expect(grid.cohorts.first { $0.month == Month(year: 2026, month: 1) }?.started == 0)
        #expect(empty.contains("–    –    –"))
    }

    /// The grid opens on the store's most common billing duration (monthly: 19 of the 24 sample
    /// subscriptions), and says so; `d` goes on to yearly, every duration, monthly again.
    @Test func dCyclesTheBillingDurationFromTheMostCommon() throws {
        var (state, runner) = try Self.open()
        #expect(state.cohorts.durations == [.month, .year])
        #expect(state.cohorts.duration == .month)
        #expect(Self.screen(state)[2].contains("retention by paid periods · monthly products (most common)"))
        let monthly = try #require(state.cohorts.grid).average.started
        try keys("d", state: &state, runner: runner)
        #expect(state.cohorts.duration == .year)
        #expect(Self.screen(state)[2].contains("yearly products"))
        #expect(!Self.screen(state)[2].contains("most common"))
        let yearly = try #require(state.cohorts.grid).average.started
        // enter lists the retained of the shown duration.
        try keys("enter", state: &state, runner: runner)
        #expect(state.subscribers.population == .cohortRetained(month: Month(year: 2025, month: 1), period: 1, duration: .year))
        try keys("esc", state: &state, runner: runner)
        try keys("d", state: &state, runner: runner)
        #expect(state.cohorts.duration == nil)
        #expect(Self.screen(state)[2].contains("every billing duration"))
        let all = try #require(state.cohorts.grid).average.started
        #expect(monthly > 0 && yearly > 0 && monthly + yearly == all)
        try keys("d", state: &state, runner: runner)
        #expect(state.cohorts.duration == .month)
        #expect(!Self.screen(state)[2].contains("most common"))
    }

    /// The count column has a header, and a rate resting on fewer than 10 members is dimmed (every
    /// sample cohort is that small); on a larger store the cells of large cohorts are not.
    @Test func theCountColumnHasAHeaderAndSmallSamplesAreDimmed() throws {
        let (state, _) = try Self.open()
        let backend = TestBackend(width: 80, height: 24, colorSupport: .none)
        Terminal(backend: backend).draw { buffer in render(state, into: &buffer, palette: .builtinDefault(.none)) }
        #expect(backend.lines[3].hasPrefix("│ cohort  members   P1   P2"))
        let row = try #require(backend.lines.firstIndex { $0.hasPrefix("│ 2025-01") })
        let p1 = try #require(backend.lines[row].range(of: "%")).lowerBound
        let x = backend.lines[row].distance(from: backend.lines[row].startIndex, to: p1)
        #expect(backend.screen[x, row].style.attributes.contains(.dim))
        // The month label is not dimmed.
        #expect(!backend.screen[3, row].style.attributes.contains(.dim))
    }
}
