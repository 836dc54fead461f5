import Dashboard
import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI
import Testing

/// Defects a new user hit: flags that silently replaced others, an idle dashboard that kept the
/// CPU busy, a status line that did not say which store or what an import was doing.
@Suite struct DashboardDefectTests {
    private func screen(_ state: AppState, width: Int = 120, height: Int = 40) -> [String] {
        let backend = TestBackend(width: width, height: height, colorSupport: .none)
        let terminal = Terminal(backend: backend)
        terminal.draw { buffer in render(state, into: &buffer, palette: Palette.builtinDefault(.none)) }
        return backend.lines
    }

    @Test func anEarlierFlagIsKeptUnlessTheOperatorReplacesIt() throws {
        let runner = try makeOffersRunner()
        try runner.analytics.database.setFlags(
            OfferFlagWrite(offer: .retention, ids: ["1000"], operatorName: "bob", note: "called on Monday"),
            at: Instant(parsing: "2025-03-03T10:00:00Z")!)
        var state = try onRetention(runner)
        #expect(state.offers.selectedRow?.id == "1000")
        try keys("f", state: &state, runner: runner)
        let lines = screen(state)
        #expect(lines.contains { $0.contains("Already flagged for retention by bob on 2025-03-03") })
        #expect(lines.contains { $0.contains("(note:") } && lines.contains { $0.contains("called on Monday).") })
        #expect(lines.contains { $0.contains("The earlier flag is kept (r: replace with yours).") })
        // enter keeps bob's flag: his note, his name, his date.
        try keys("enter", state: &state, runner: runner)
        #expect(state.notice == "flagged for retention: 0 subscriptions as alice (1 already flagged: kept)")
        var flags = try runner.analytics.database.flags()
        #expect(flags.map { "\($0.originalTransactionId) \($0.operatorName) \($0.note ?? "-")" } == ["1000 bob called on Monday"])
        // r, then enter: replaced, and the log keeps both.
        try keys("f", "r", state: &state, runner: runner)
        #expect(screen(state).contains { $0.contains("Replacing the earlier flag with yours (r: keep).") })
        try keys("enter", state: &state, runner: runner)
        flags = try runner.analytics.database.flags()
        #expect(flags.map { "\($0.originalTransactionId) \($0.operatorName) \($0.note ?? "-")" } == ["1000 alice -"])
        let log = try runner.analytics.database.flagLog()
        #expect(
            log.map { "\($0.kind.rawValue) \($0.operatorName) \($0.note ?? "-")" } == [
                "set bob called on Monday", "changed alice -",
            ])
    }

    @Test func severalAlreadyFlaggedAreCounted() throws {
        let runner = try makeOffersRunner()
        try runner.analytics.database.setFlags(
            OfferFlagWrite(offer: .retention, ids: ["1000", "3000"], operatorName: "bob"),
            at: Instant(parsing: "2025-03-03T10:00:00Z")!)
        var state = try onRetention(runner)
        try keys("g s", "f", state: &state, runner: runner)
        #expect(
            state.confirmation?.dialog.message.contains(
                "2 of them already flagged for retention: 1000 by bob on 2025-03-03 and 1 more.") == true)
        try keys("enter", state: &state, runner: runner)
        #expect(
            try runner.analytics.database.flags().map { "\($0.originalTransactionId) \($0.operatorName)" }.sorted()
                == ["1000 bob", "2000 alice", "3000 bob"])
    }

    @Test func theStatusLineNamesTheDemoStore() {
        var state = AppState(asOf: Instant(parsing: "2025-03-10")!)
        state.storeLabel = "demo store: /home/ann/.cache/subdash/demo.sqlite"
        let lines = screen(state)
        #expect(lines[38].hasSuffix("demo store: /home/ann/.cache/subdash/demo.sqlite"))
    }

    @Test func theStatusLineTellsARunningImportFromAnInterruptedOne() {
        var state = AppState(asOf: Instant(parsing: "2025-03-10")!)
        state.storeWatch.importActivity = .running
        #expect(screen(state)[38].hasPrefix("an import or the listener is writing: the figures follow it as it goes"))
        state.storeWatch.importActivity = .interrupted(pending: 3)
        #expect(
            screen(state)[38].hasPrefix(
                "the last import was interrupted: 3 subscriptions are not rebuilt; run `subdash import` again"))
        // While an import is running or was interrupted, every tick looks again.
        state.storeWatch.importActivity = .running
        #expect(update(&state, .tick) == [.checkStore, .checkImport])
    }

    @Test func anIdleDashboardSleepsUntilTheNextStoreCheckAndDrawsNothing() throws {
        let runner = try makeOffersRunner()
        let backend = TestBackend(width: 80, height: 24)
        let session = DashboardSession(
            backend: backend, runner: runner, palette: .builtinDefault(.none),
            state: AppState(asOf: Instant(parsing: "2025-03-10")!))
        session.apply(.start)
        session.settle()
        session.draw()
        // Nothing pending: the loop may sleep until the store check, about a second away.
        #expect(session.untilNextWakeUp() > .milliseconds(500))
        let flushes = backend.flushCount
        for _ in 0..<5 { session.step(timeout: .zero) }
        #expect(backend.flushCount == flushes, "a wake-up that changes nothing draws nothing")
        try backend.press("j")
        session.step(timeout: .zero)
        session.step(timeout: .zero)
        #expect(backend.flushCount == flushes + 1, "the key's frame is drawn at the next turn")
        // A `g` waiting for its second key shortens the sleep to its one-second timeout.
        try backend.press("g")
        session.step(timeout: .zero)
        #expect(session.untilNextWakeUp() <= .seconds(1))
    }
}
