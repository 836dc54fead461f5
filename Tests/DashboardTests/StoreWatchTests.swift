@testable import Dashboard
import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import Testing
import TerminalUI

/// Runs `action` and every effect it causes, synchronously, to a quiet state.
private func drive(_ action: Action, _ state: inout AppState, _ runner: EffectRunner) {
    var queue = [action]
    while !queue.isEmpty { queue += update(&state, queue.removeFirst()).map(runner.perform) }
}

private func keys(_ chords: String..., state: inout AppState, runner: EffectRunner) throws {
    for chord in chords {
        for key in try KeyChord(parsing: chord).keys { drive(.key(key), &state, runner) }
    }
}

/// A file store in a fresh temporary directory, removed at the end.
private func withFileStore(_ body: (String) throws -> Void) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("subdash-watch-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try body(directory.appendingPathComponent("store.sqlite").path)
}

@Suite struct StoreWatchTests {
    @Test func anImportByAnotherConnectionReloadsTheVisiblePaneInPlace() throws {
        try withFileStore { path in
            let dashboardStore = try AppDatabase.open(path: path)
            try dashboardStore.apply(SampleStore.documents(count: 6))
            let runner = EffectRunner(analytics: SubscriberAnalytics(database: dashboardStore))
            var state = AppState(asOf: SampleStore.asOf)
            drive(.start, &state, runner)
            drive(.tick, &state, runner)
            try keys("j", "j", "space", state: &state, runner: runner)
            let cursorId = state.subscribers.selectedId
            #expect(state.subscribers.rows.count == 6)
            #expect(state.marks.count == 1)

            // nothing changed: a tick reloads nothing
            #expect(update(&state, .tick) == [.checkStore])
            #expect(update(&state, runner.perform(.checkStore)).isEmpty)

            // another connection (as another process's import would) adds three subscriptions
            let importer = try AppDatabase.open(path: path)
            try importer.apply(SampleStore.documents(count: 3, idBase: 9000))
            #expect(update(&state, .tick) == [.checkStore])
            let reload = update(&state, runner.perform(.checkStore))
            #expect(reload == [.loadSubscribers(offset: 0, limit: SubscribersPane.pageSize, asOf: SampleStore.asOf,
                                                scope: state.scope, filter: nil)])
            #expect(!state.subscribers.rows.isEmpty, "the old rows stay on screen while the new ones load")
            for effect in reload { drive(runner.perform(effect), &state, runner) }

            #expect(state.subscribers.rows.count == 9)
            #expect(state.subscribers.rows.contains { $0.id == "9000" })
            #expect(state.subscribers.selectedId == cursorId, "the cursor stays on the same subscription")
            #expect(state.marks.count == 1, "marks survive the reload")
            // the other panes are reloaded when next shown, with the new figures
            #expect(state.storeWatch.stale == [.subscriber, .cohorts, .statesEvents])
            try keys("4", state: &state, runner: runner)
            #expect(state.statesEvents.figures?.states.total == 9)
            #expect(state.storeWatch.stale == [.subscriber, .cohorts])
        }
    }

    @Test func otherPanesKeepTheirCursorThroughAReload() throws {
        try withFileStore { path in
            let dashboardStore = try AppDatabase.open(path: path)
            try dashboardStore.apply(SampleStore.documents(count: 12))
            let runner = EffectRunner(analytics: SubscriberAnalytics(database: dashboardStore))
            var state = AppState(asOf: SampleStore.asOf)
            drive(.start, &state, runner)
            drive(.tick, &state, runner)
            try keys("3", "j", "j", "l", "l", state: &state, runner: runner)
            let cell = (state.cohorts.row, state.cohorts.column)
            let startedBefore = state.cohorts.grid?.cohorts.map(\.started).reduce(0, +)

            try AppDatabase.open(path: path).apply(SampleStore.documents(count: 12, idBase: 9000))
            drive(.tick, &state, runner)
            #expect(state.cohorts.grid?.cohorts.map(\.started).reduce(0, +) ?? 0 > startedBefore ?? 0)
            #expect(state.cohorts.row == cell.0 && state.cohorts.column == cell.1)

            // the Subscriber pane reloads the same subscription and keeps its scroll
            try keys("1", "enter", state: &state, runner: runner)
            try keys("j", state: &state, runner: runner)
            let id = state.subscriber.id
            try AppDatabase.open(path: path).apply(SampleStore.documents(count: 1, idBase: 9500))
            drive(.tick, &state, runner)
            #expect(state.subscriber.id == id && state.subscriber.report?.originalTransactionId == id)
            #expect(state.subscriber.scroll == 1)
            #expect(state.storeWatch.stale.contains(.subscribers))
        }
    }

    @Test func asOfFollowsTheDataHorizonUnlessChosen() throws {
        try withFileStore { path in
            let dashboardStore = try AppDatabase.open(path: path)
            try dashboardStore.apply(SampleStore.documents(count: 2))
            let runner = EffectRunner(analytics: SubscriberAnalytics(database: dashboardStore))
            var state = AppState()
            drive(.start, &state, runner)
            drive(.tick, &state, runner)
            let before = try #require(state.asOf)

            try AppDatabase.open(path: path).apply(SampleStore.documents(count: 20, idBase: 7000))
            drive(.tick, &state, runner)
            let after = try #require(state.asOf)
            #expect(after > before)
            #expect(state.subscribers.rows.count == 22)

            // an as-of chosen with :asof stays put
            try keys(":", state: &state, runner: runner)
            for c in "asof 2025-03-01" { drive(.key(.char(c)), &state, runner) }
            try keys("enter", state: &state, runner: runner)
            try AppDatabase.open(path: path).apply(SampleStore.documents(count: 1, idBase: 8000))
            drive(.tick, &state, runner)
            #expect(state.asOf == Instant(parsing: "2025-03-01"))
        }
    }

    /// The real loop, as `subdash dashboard` runs it: ticks on the clock, the check on the effect
    /// queue, and the new rows on screen without a key being pressed.
    @Test func theRunLoopShowsAnImportWithoutAKey() throws {
        try withFileStore { path in
            let store = try AppDatabase.open(path: path)
            try store.apply(SampleStore.documents(count: 3))
            let session = DashboardSession(backend: TestBackend(width: 80, height: 24),
                                           runner: EffectRunner(analytics: SubscriberAnalytics(database: store)),
                                           palette: .builtinDefault(.none), state: AppState(asOf: SampleStore.asOf))
            session.tickInterval = .milliseconds(20)
            session.apply(.start)
            func screenShows(_ text: String) -> Bool {
                let deadline = ContinuousClock.now + .seconds(10)
                while ContinuousClock.now < deadline {
                    session.step(timeout: .milliseconds(5))
                    if session.backend.lines.contains(where: { $0.contains(text) }) { return true }
                }
                return false
            }
            #expect(screenShows("│ 5020 "))
            try AppDatabase.open(path: path).apply(SampleStore.documents(count: 1, idBase: 9900))
            #expect(screenShows("│ 9900 "), "the imported subscription appears by itself")
        }
    }

    @Test func ticksDoNotPileUpBehindASlowCheck() {
        var state = AppState(asOf: SampleStore.asOf)
        #expect(update(&state, .tick) == [.checkStore])
        #expect(update(&state, .tick).isEmpty)
        _ = update(&state, .storeVersion(nil))
        #expect(update(&state, .tick) == [.checkStore])
    }
}

@Suite struct StatesEventsPaneTests {
    @Test func dailyStatesAreTheStatesOfEachDay() throws {
        let analytics = SubscriberAnalytics(database: try SampleStore.database())
        let asOf = SampleStore.asOf.adding(hours: 7)
        let daily = try analytics.dailyStates(endingAt: asOf, days: 31)
        #expect(daily.values.allSatisfy { $0.count == 31 })
        for day in 0..<31 {
            let states = try analytics.states(asOf: asOf.adding(days: Int64(day - 30)))
            for state in SubscriptionState.allCases {
                #expect((daily[state]?[day] ?? 0) == states[state], "\(state) on day \(day)")
            }
        }
        #expect(daily[.expired]?.last ?? 0 > 0)
    }

    @Test func figuresCompareWithThirtyDaysAndThePreviousMonth() throws {
        let runner = try SampleStore.runner()
        var state = AppState(asOf: SampleStore.asOf)
        try keys("4", state: &state, runner: runner)
        let figures = try #require(state.statesEvents.figures)
        let analytics = runner.analytics
        #expect(figures.month == Month(year: 2025, month: 6))
        #expect(figures.states == (try analytics.states(asOf: SampleStore.asOf)))
        #expect(figures.statesBefore == (try analytics.states(asOf: SampleStore.asOf.adding(days: -30))))
        #expect(figures.series(summing: { _ in true }).last == figures.states.total)
        #expect(figures.series(summing: { _ in true }).first == figures.statesBefore.total)
        #expect(figures.dailyEvents.values.allSatisfy { $0.count == 30 })
        #expect(figures.series(.renewal).reduce(0, +) == figures.count(.renewal))
        let june = try analytics.events(from: figures.month.start, to: figures.month.end, asOf: SampleStore.asOf)
        let may = try analytics.events(from: figures.month.previous.start, to: figures.month.start, asOf: SampleStore.asOf)
        for type in EventType.allCases {
            #expect(figures.count(type) == june[type], "\(type) in June")
            #expect(figures.previousCount(type) == may[type], "\(type) in May")
        }
        #expect(EventType.allCases.contains { figures.count($0) > 0 } && EventType.allCases.contains { figures.previousCount($0) > 0 })

        try keys("l", state: &state, runner: runner)
        #expect(state.statesEvents.figures?.month == Month(year: 2025, month: 6), "no month after as-of's")
        try keys("h", "h", state: &state, runner: runner)
        let april = try #require(state.statesEvents.figures)
        #expect(april.month == Month(year: 2025, month: 4))
        let aprilEvents = try analytics.events(from: Month(year: 2025, month: 4).start, to: Month(year: 2025, month: 5).start,
                                               asOf: SampleStore.asOf)
        let marchEvents = try analytics.events(from: Month(year: 2025, month: 3).start, to: Month(year: 2025, month: 4).start,
                                               asOf: SampleStore.asOf)
        for type in EventType.allCases {
            #expect(april.count(type) == aprilEvents[type] && april.previousCount(type) == marchEvents[type], "\(type)")
        }
        #expect(april.dailyEvents.values.allSatisfy { $0.count == 30 })
        #expect(april.states == figures.states, "states stay at as-of")
    }

    @Test func sparklinesSpanTheWholeSeriesAtAnyWidth() {
        let series = Array(1...31)
        let six = (0..<6).map { b in (b * 31 / 6, (b + 1) * 31 / 6) }
        #expect(six.first! == (0, 5) && six.last! == (25, 31))
        let resampled = SparkTable.resample(series, width: 6)
        #expect(resampled.count == 6)
        #expect(resampled.first == 3 && resampled.last == 28.5)
        #expect(SparkTable.resample(series, width: 40).count == 31)
    }
}
