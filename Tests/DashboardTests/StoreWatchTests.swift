import Dashboard
import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI
import TestSupport
import Testing

/// A file store in a fresh temporary directory, removed at the end.
private func withFileStore(_ body: (String) throws -> Void) throws {
    let directory = try TemporaryDirectory("watch")
    defer { directory.remove() }
    try body(directory.path("store.sqlite"))
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
            #expect(
                reload == [
                    .loadSubscribers(
                        offset: 0, limit: SubscribersPane.pageSize, asOf: SampleStore.asOf,
                        scope: state.subscribersScope, filter: nil),
                    .countSubscribers(asOf: SampleStore.asOf, scope: state.subscribersScope, filter: nil, population: nil),
                    .checkImport,
                ])
            #expect(!state.subscribers.rows.isEmpty, "the old rows stay on screen while the new ones load")
            for effect in reload { drive(runner.perform(effect), &state, runner) }

            #expect(state.subscribers.rows.count == 9)
            #expect(state.subscribers.rows.contains { $0.id == "9000" })
            #expect(state.subscribers.selectedId == cursorId, "the cursor stays on the same subscription")
            #expect(state.marks.count == 1, "marks survive the reload")
            // the other panes are reloaded when next shown, with the new figures
            #expect(state.storeWatch.stale == [.subscriber, .cohorts, .statesEvents, .offers, .money, .trends])
            try keys("4", state: &state, runner: runner)
            #expect(state.statesEvents.figures?.states.total == 9)
            #expect(state.storeWatch.stale == [.subscriber, .cohorts, .offers, .money, .trends])
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

            // the Subscriber pane reloads the same subscription and keeps its cursor
            try keys("1", "enter", state: &state, runner: runner)
            try keys("k", state: &state, runner: runner)
            let id = state.subscriber.id
            let row = try #require(state.subscriber.periodRow)
            try AppDatabase.open(path: path).apply(SampleStore.documents(count: 1, idBase: 9500))
            drive(.tick, &state, runner)
            #expect(state.subscriber.id == id && state.subscriber.report?.originalTransactionId == id)
            #expect(state.subscriber.periodRow == row)
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
            let session = DashboardSession(
                backend: TestBackend(width: 80, height: 24),
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
