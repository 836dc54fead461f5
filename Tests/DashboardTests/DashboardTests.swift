import Dashboard
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI
import Testing

/// A three-subscriber store built from hand-made facts, through the same writer an import uses.
private func makeRunner() throws -> EffectRunner {
    var documents: [IncomingDocument] = []
    func add(_ facts: DocumentFacts) {
        let name = "doc\(documents.count + 1)"
        documents.append(
            IncomingDocument(
                sha256: String(repeating: "0", count: 64 - name.count) + name, source: name,
                byteCount: 1, body: nil, content: .facts(facts)))
    }
    func period(
        _ original: String, _ id: String, _ start: String, _ end: String, product: String = "pro.monthly",
        trial: Bool = false
    ) {
        var t = TransactionFact(
            transactionId: id, originalTransactionId: original, productId: product,
            purchaseDate: Instant(parsing: start)!, expiresDate: Instant(parsing: end)!,
            environment: .production)
        if trial {
            t.offerType = 1
            t.offerDiscountType = "FREE_TRIAL"
        }
        add(DocumentFacts(format: .v2Notification, transactions: [t]))
    }
    period("1000", "1000", "2025-01-10", "2025-01-17", trial: true)
    period("1000", "1001", "2025-01-17", "2025-02-17")
    period("1000", "1002", "2025-02-17", "2025-03-17")
    period("2000", "2000", "2025-02-01", "2025-03-01", product: "pro.yearly\u{1B}[31m")
    period("3000", "3000", "2025-03-01", "2025-04-01")
    let db = try AppDatabase.inMemory()
    try db.apply(documents)
    return EffectRunner(analytics: SubscriberAnalytics(database: db))
}

/// Runs `action` and every effect it causes, synchronously, to a quiet state.
private func send(_ action: Action, to state: inout AppState, runner: EffectRunner) {
    var queue = [action]
    while !queue.isEmpty {
        let effects = update(&state, queue.removeFirst())
        queue += effects.map(runner.perform)
    }
}

private func press(_ chord: String, _ state: inout AppState, runner: EffectRunner) throws {
    for key in try KeyChord(parsing: chord).keys { send(.key(key), to: &state, runner: runner) }
}

private let palette = Palette.builtinDefault(.none)

private func screen(_ state: AppState, width: Int = 80, height: Int = 24) -> [String] {
    let backend = TestBackend(width: width, height: height, colorSupport: .none)
    let terminal = Terminal(backend: backend)
    terminal.draw { buffer in render(state, into: &buffer, palette: palette) }
    return backend.lines
}

@Suite struct DashboardScreens {
    @Test func subscribersPaneListsTheStore() throws {
        let runner = try makeRunner()
        var state = AppState(asOf: Instant(parsing: "2025-03-10")!)
        send(.start, to: &state, runner: runner)
        let lines = screen(state)
        #expect(lines[0].contains("1 Subscribers"))
        // At 80 columns the longest inactive tab titles give way to their short ones.
        #expect(lines[0].contains("4 States  5 Offers  6 Money  7 Trends"))
        #expect(lines.contains { $0.contains("1000") && $0.contains("standard") && $0.contains("pro.monthly") })
        #expect(lines.contains { $0.contains("2000") })
        // the product id's escape sequence is shown (`\x1b`), never sent (the column keeps its end)
        #expect(lines.contains { $0.contains("2000") && $0.contains(#"rly\x1b[31m"#) })
        #expect(!lines.joined().contains("\u{1B}"))
    }

    @Test func helpBarComesFromTheBindings() throws {
        let lines = screen(AppState(asOf: Instant(parsing: "2025-03-10")!))
        #expect(lines[23].hasPrefix("/ filter  enter open  space mark  f flag  q quit  ? help  tab next  esc back"))
    }

    @Test func subscriberPaneShowsPeriodRows() throws {
        let runner = try makeRunner()
        var state = AppState(asOf: Instant(parsing: "2025-03-10")!)
        send(.start, to: &state, runner: runner)
        try press("enter", &state, runner: runner)
        #expect(state.pane == .subscriber)
        let lines = screen(state)
        #expect(lines[1].contains("Subscriber") && lines[1].contains("1000"))
        #expect(lines.contains { $0.contains("1000             2025-01-10 2025-01-17 freeTrial    activation      free") })
        #expect(lines.contains { $0.contains("1001             2025-01-17 2025-02-17 standard     conversion      paid") })
        #expect(lines.contains { $0.contains("1002             2025-02-17 2025-03-17") })
    }

    @Test func helpOverlayListsBindings() throws {
        var state = AppState(asOf: Instant(parsing: "2025-03-10")!)
        _ = update(&state, .key(.char("?")))
        #expect(state.overlay == .help)
        let text = screen(state).joined(separator: "\n")
        #expect(text.contains("Keys · Subscribers"))
        #expect(text.contains("Quit the dashboard"))
        _ = update(&state, .key(KeyEvent(.esc)))
        #expect(state.overlay == nil)
    }

    @Test func tooSmall() {
        let lines = screen(AppState(), width: 79, height: 24)
        #expect(lines.contains { $0.contains("Terminal too small") })
        #expect(lines.contains { $0.contains("need 80×24, have 79×24") })
        #expect(!screen(AppState(), width: 80, height: 23).filter { $0.contains("Terminal too small") }.isEmpty)
    }

    @Test func cohortsAndStatesPanes() throws {
        let runner = try makeRunner()
        var state = AppState(asOf: Instant(parsing: "2025-03-10")!)
        send(.start, to: &state, runner: runner)
        try press("3", &state, runner: runner)
        var lines = screen(state)
        #expect(lines[2].contains("Cohorts"))
        #expect(lines.contains { $0.hasPrefix("│ 2025-01") })
        try press("4", &state, runner: runner)
        lines = screen(state)
        #expect(lines[2].contains("States as of 2025-03-10 00:00 UTC"))
        #expect(lines.contains { $0.contains("│total") && $0.contains(" 3 ") })
    }
}

@Suite struct DashboardUpdate {
    @Test func numberKeysSwitchPanesAndEscGoesBack() {
        var state = AppState(asOf: Instant(parsing: "2025-03-10")!)
        let effects = update(&state, .key(.char("3")))
        #expect(state.pane == .cohorts)
        #expect(effects == [.loadCohorts(asOf: state.asOf!, scope: state.scope, mostCommon: true)])
        _ = update(&state, .key(.char("4")))
        #expect(state.pane == .statesEvents)
        _ = update(&state, .key(KeyEvent(.esc)))
        #expect(state.pane == .cohorts)
        _ = update(&state, .key(.char("-")))
        #expect(state.pane == .subscribers)
        _ = update(&state, .key(KeyEvent(.esc)))
        #expect(state.pane == .subscribers)
    }

    @Test func tabCyclesAndQQuits() {
        var state = AppState(asOf: Instant(parsing: "2025-03-10")!)
        for expected in [Pane.subscriber, .cohorts, .statesEvents, .offers, .money, .trends, .subscribers] {
            _ = update(&state, .key(KeyEvent(.tab)))
            #expect(state.pane == expected)
        }
        _ = update(&state, .key(.char("q")))
        #expect(state.shouldQuit)
    }

    @Test func marksAreIdsAndSurviveReload() throws {
        let runner = try makeRunner()
        var state = AppState(asOf: Instant(parsing: "2025-03-10")!)
        send(.start, to: &state, runner: runner)
        try press("space", &state, runner: runner)
        #expect(state.marks == ["1000"])
        send(.reload, to: &state, runner: runner)
        #expect(state.marks == ["1000"])
        #expect(screen(state).contains { $0.hasPrefix("│*1000") })
    }

    @Test func asOfCommandHidesLaterSubscriptions() throws {
        let runner = try makeRunner()
        var state = AppState(asOf: Instant(parsing: "2025-03-10")!)
        send(.start, to: &state, runner: runner)
        try press(":", &state, runner: runner)
        for c in "asof 2025-01-20" { send(.key(.char(c)), to: &state, runner: runner) }
        try press("enter", &state, runner: runner)
        #expect(state.asOf == Instant(parsing: "2025-01-20"))
        #expect(state.subscribers.rows.map(\.id) == ["1000"])
        #expect(state.subscribers.rows.first?.state == "standard")
    }

    @Test func searchFiltersThroughTheStoreLookup() throws {
        let runner = try makeRunner()
        var state = AppState(asOf: Instant(parsing: "2025-03-10")!)
        send(.start, to: &state, runner: runner)
        try press("/", &state, runner: runner)
        #expect(state.commandLine != nil)
        for c in "1001" { send(.key(.char(c)), to: &state, runner: runner) }
        try press("enter", &state, runner: runner)
        #expect(state.subscribers.filter == "1001")
        #expect(state.subscribers.rows.map(\.id) == ["1000"])
        try press("esc", &state, runner: runner)
        #expect(state.subscribers.filter == nil)
        #expect(state.subscribers.rows.count == 3)
    }
}
