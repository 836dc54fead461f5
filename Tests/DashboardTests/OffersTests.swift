import Dashboard
import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI
import TestSupport
import Testing

/// As of 2025-03-10: 1000, 2000 and 3000 are active with auto-renew off (retention); 4000 ended
/// voluntarily on 2025-02-01 (win-back); 5000 is active with auto-renew on (nothing); 6000 renews
/// monthly since 2025-01-05 (the January cohort with 4000). 2000's customer is known by a customers
/// CSV (customer2000@example.com).
func makeOffersRunner(exportDirectory: String = TemporaryDirectory.process.path) throws -> EffectRunner {
    var documents: [IncomingDocument] = []
    func add(_ facts: DocumentFacts) {
        let name = "doc\(documents.count + 1)"
        documents.append(
            IncomingDocument(
                sha256: String(repeating: "0", count: 64 - name.count) + name, source: name,
                byteCount: 1, body: nil, content: .facts(facts)))
    }
    func period(_ id: String, _ start: String, _ end: String, original: String? = nil) {
        add(
            DocumentFacts(
                format: .v2Notification,
                transactions: [
                    TransactionFact(
                        transactionId: id, originalTransactionId: original ?? id, productId: "pro.monthly",
                        purchaseDate: Instant(parsing: start)!, expiresDate: Instant(parsing: end)!, environment: .production)
                ]))
    }
    func autoRenewOff(_ id: String, _ at: String) {
        add(
            DocumentFacts(
                format: .v2Notification,
                notifications: [
                    NotificationFact(
                        notificationId: "off-\(id)", format: .v2Notification, notificationType: "DID_CHANGE_RENEWAL_STATUS",
                        subtype: "AUTO_RENEW_DISABLED", instant: Instant(parsing: at)!, originalTransactionId: id,
                        autoRenewStatus: false)
                ]))
    }
    for id in ["1000", "2000", "3000"] {
        period(id, "2025-03-01", "2025-04-01")
        autoRenewOff(id, "2025-03-05")
    }
    period("4000", "2025-01-01", "2025-02-01")
    autoRenewOff("4000", "2025-01-15")
    period("5000", "2025-03-02", "2025-04-02")
    period("6000", "2025-01-05", "2025-02-05")
    period("6001", "2025-02-05", "2025-03-05", original: "6000")
    period("6002", "2025-03-05", "2025-04-05", original: "6000")
    add(
        DocumentFacts(
            format: .customersCSV,
            customers: [CustomerFact(userId: "user-2000", email: "customer2000@example.com", originalTransactionId: "2000")]))
    let db = try AppDatabase.inMemory()
    try db.apply(documents)
    let stamp = Instant(parsing: "2025-03-11T09:30:00Z")!
    return EffectRunner(analytics: SubscriberAnalytics(database: db), exportDirectory: exportDirectory, now: { stamp })
}

/// Runs `action` and every effect it causes, synchronously, to a quiet state.
private func send(_ action: Action, to state: inout AppState, runner: EffectRunner) {
    var queue = [action]
    while !queue.isEmpty {
        let effects = update(&state, queue.removeFirst())
        queue += effects.map(runner.perform)
    }
}

private func press(_ chords: String..., state: inout AppState, runner: EffectRunner) throws {
    for chord in chords {
        for key in try KeyChord(parsing: chord).keys { send(.key(key), to: &state, runner: runner) }
    }
}

private func type(_ text: String, _ state: inout AppState, runner: EffectRunner) {
    for c in text { send(.key(.char(c)), to: &state, runner: runner) }
}

private func screen(_ state: AppState, width: Int = 80, height: Int = 24) -> [String] {
    let backend = TestBackend(width: width, height: height, colorSupport: .none)
    let terminal = Terminal(backend: backend)
    terminal.draw { buffer in render(state, into: &buffer, palette: Palette.builtinDefault(.none)) }
    return backend.lines
}

private let asOf = Instant(parsing: "2025-03-10")!

/// Started and on pane 5's retention list.
func onRetention(_ runner: EffectRunner, readOnly: Bool = false) throws -> AppState {
    var state = AppState(asOf: asOf, readOnly: readOnly, operatorName: "alice", themeNames: ["default", "mono"])
    send(.start, to: &state, runner: runner)
    try press("5", ">", state: &state, runner: runner)
    #expect(state.pane == .offers)
    #expect(state.offers.list == .eligible(.retention))
    return state
}

/// The retention list of `makeOffersRunner()`'s store, as ctrl-s writes it.
private let retentionExport = """
    originalTransactionId,productId,why,flags,userId,email,appAccountToken
    3000,pro.monthly,"auto-renew off, standard",,,,
    2000,pro.monthly,"auto-renew off, standard",,user-2000,customer2000@example.com,
    1000,pro.monthly,"auto-renew off, standard",,,,

    """

@Suite struct OffersScreens {
    @Test func offersPaneListsEligibleSubscribersByOffer() throws {
        let runner = try makeOffersRunner()
        var state = AppState(asOf: asOf, operatorName: "alice")
        send(.start, to: &state, runner: runner)
        try press("5", state: &state, runner: runner)
        var lines = screen(state)
        #expect(lines[0].contains("5 Offers"))
        #expect(lines[1].contains("subdash") && lines[1].contains("Offers"))
        #expect(lines[2].contains("Offers · winBack (1 shown)"))
        #expect(lines[3].contains(" winBack 1   retention 3   upgrade 0   loyalty 0   service 0   flagged 0"))
        #expect(lines[5].hasPrefix("│ Subscription"))
        #expect(
            lines[6].hasPrefix("│ 4000") && lines[6].contains("pro.monthly") && lines[6].contains("ended voluntary 2025-02-01"),
            "\(lines[6])")
        #expect(lines[23].contains("space mark") && lines[23].contains("f flag"))

        try press(">", state: &state, runner: runner)
        lines = screen(state)
        #expect(lines[2].contains("Offers · retention (3 shown)"))
        #expect(Array(lines[6...8]).map { String($0.prefix(6)) } == ["│ 1000", "│ 2000", "│ 3000"])
        #expect(lines[6].contains("auto-renew off, standard"))
        #expect(!lines[9].contains("000"))
    }

    @Test func marksShowInTheGutterAndTheTitle() throws {
        let runner = try makeOffersRunner()
        var state = try onRetention(runner)
        try press("space", "j", "s", state: &state, runner: runner)
        let lines = screen(state)
        #expect(lines[2].contains("Offers · retention · 2 marked (3 shown)"))
        #expect(lines[6].hasPrefix("│*1000"))
        #expect(lines[7].hasPrefix("│ 2000"))
        #expect(lines[8].hasPrefix("│*3000"))
    }

    @Test func confirmDialogShowsTheCount() throws {
        let runner = try makeOffersRunner()
        var state = try onRetention(runner)
        try press("g s", "f", state: &state, runner: runner)
        let text = screen(state).joined(separator: "\n")
        #expect(text.contains("Flag for an offer"))
        #expect(text.contains("Flag 3 subscribers for retention?"))
        #expect(text.contains("[ Flag ]  [ Cancel ]"))
    }

    @Test func flaggedListShowsWhoAndWhen() throws {
        let runner = try makeOffersRunner()
        var state = try onRetention(runner)
        try press("f", "enter", state: &state, runner: runner)
        try press("<", "<", "<", state: &state, runner: runner)
        #expect(state.offers.list == .flagged)
        let lines = screen(state, width: 120, height: 40)
        #expect(lines[2].contains("Offers · flagged (1 shown)"))
        #expect(
            lines.contains {
                $0.hasPrefix("│ 1000") && $0.contains("retention") && $0.contains("alice")
                    && $0.contains("2025-03-11T09:30:00Z")
            })
        #expect(lines[3].contains("retention 3") && lines[3].contains("flagged 1"))
        // enter opens the subscriber, whose pane shows the flag with who and when.
        try press("enter", state: &state, runner: runner)
        #expect(state.pane == .subscriber && state.subscriber.id == "1000")
        #expect(screen(state).contains { $0.contains("Flags        retention by alice 2025-03-11") })
    }

    @Test func readOnlyHidesFlagging() throws {
        let runner = try makeOffersRunner()
        var state = try onRetention(runner, readOnly: true)
        var lines = screen(state)
        #expect(lines[2].contains("read-only"))
        #expect(lines[23].contains("space mark") && !lines[23].contains("flag"))
        try press("?", state: &state, runner: runner)
        let help = screen(state, width: 120, height: 40).joined(separator: "\n")
        #expect(help.contains("Mark the row"))
        #expect(!help.contains("Flag the marked rows"))
        #expect(!help.contains("Clear an offer flag"))
        // At 80×24 the overlay shows what fits and scrolls to the rest.
        var small = screen(state).joined(separator: "\n")
        #expect(small.contains("Mark the row") && small.contains("more below") && !small.contains("Reload the pane"))
        for _ in 0..<40 { try press("j", state: &state, runner: runner) }
        small = screen(state).joined(separator: "\n")
        #expect(small.contains("Reload the pane") && small.contains("end of the list"))
        #expect(state.overlay == .help)
        try press("esc", "f", state: &state, runner: runner)
        #expect(state.confirmation == nil)
        lines = screen(state)
        #expect(lines[22].contains("read-only: flag is off"))
        try press("F", state: &state, runner: runner)
        #expect(state.confirmation == nil)
        #expect(try runner.analytics.database.flags().isEmpty)
    }
}

@Suite struct OffersUpdate {
    @Test func marksSurviveResortFilterAndReload() throws {
        let runner = try makeOffersRunner()
        var state = try onRetention(runner)
        try press("space", "j", "j", "space", state: &state, runner: runner)
        #expect(state.offers.marks == ["1000", "3000"])
        // Sort by id descending: the same ids stay marked, wherever their rows went.
        try press("]", state: &state, runner: runner)
        #expect(state.offers.shown.map(\.id) == ["3000", "2000", "1000"])
        #expect(state.offers.marks == ["1000", "3000"])
        #expect(screen(state)[6].hasPrefix("│*3000") && screen(state)[8].hasPrefix("│*1000"))
        // A filter hides a marked row without unmarking it.
        try press("/", state: &state, runner: runner)
        type("2000", &state, runner: runner)
        try press("enter", state: &state, runner: runner)
        #expect(state.offers.shown.map(\.id) == ["2000"])
        #expect(state.offers.marks == ["1000", "3000"])
        try press("esc", state: &state, runner: runner)
        #expect(state.offers.shown.count == 3)
        // A reload from the store keeps them too.
        try press("ctrl-r", state: &state, runner: runner)
        #expect(state.offers.marks == ["1000", "3000"])
        #expect(state.offers.sort == OfferSort(column: 0, ascending: false))
        #expect(screen(state)[6].hasPrefix("│*3000"))
    }

    @Test func flagWithNoMarksActsOnTheCursorRow() throws {
        let runner = try makeOffersRunner()
        var state = try onRetention(runner)
        try press("j", "f", state: &state, runner: runner)
        #expect(state.confirmation == Confirmation(offer: .retention, ids: ["2000"], clear: false))
        try press("enter", state: &state, runner: runner)
        #expect(state.confirmation == nil)
        let flags = try runner.analytics.database.flags()
        #expect(flags.map(\.originalTransactionId) == ["2000"])
        #expect(flags.first?.offer == .retention)
        #expect(flags.first?.operatorName == "alice")
        let log = try runner.analytics.database.flagLog()
        #expect(
            log.map { "\($0.originalTransactionId) \($0.offer) \($0.action) \($0.operatorName)" } == ["2000 retention set alice"])
        #expect(state.notice == "flagged for retention: 1 subscription as alice")
        #expect(state.offers.shown.first { $0.id == "2000" }?.flags == [.retention])
    }

    /// Columns sized by content (issue 30 §3.8): on a wide screen "Why" is as wide as its longest
    /// reason ("auto-renew off, standard"), not most of the screen, and products are whole.
    @Test func columnsAreSizedByTheirContent() throws {
        let runner = try makeOffersRunner()
        let state = try onRetention(runner)
        let backend = TestBackend(width: 200, height: 30, colorSupport: .none)
        Terminal(backend: backend).draw { buffer in render(state, into: &buffer, palette: .builtinDefault(.none)) }
        let header = try #require(backend.lines.first { $0.contains("Subscription") && $0.contains("Why") })
        let why = try #require(header.range(of: "Why"))
        let flags = try #require(header.range(of: "Flags"))
        #expect(header.distance(from: why.lowerBound, to: flags.lowerBound) == "auto-renew off, standard".count + 1, "\(header)")
    }

    @Test func eligibleAndFlaggedRowsShowTheCustomersEmail() throws {
        let runner = try makeOffersRunner()
        var state = try onRetention(runner)
        // Wide: the whole email beside its subscription; at 80 columns it keeps its local part.
        let wide = screen(state, width: 160, height: 24)
        #expect(wide.contains { $0.contains("Email") && $0.contains("Why") })
        #expect(
            wide.contains { $0.contains("2000") && $0.contains("customer2000@example.com") }, "\(wide.joined(separator: "\n"))")
        let narrow = screen(state)
        #expect(narrow.contains { $0.contains("2000") && $0.contains("customer2000@") }, "\(narrow.joined(separator: "\n"))")
        // The filter finds a subscriber by email.
        try press("/", state: &state, runner: runner)
        type("customer2000", &state, runner: runner)
        try press("enter", state: &state, runner: runner)
        #expect(state.offers.shown.map(\.id) == ["2000"])
        // Flagged, 2000 shows its email on the flagged list too.
        try press("esc", "f", "enter", "<", "<", "<", state: &state, runner: runner)
        #expect(state.offers.list == .flagged && state.offers.shown.map(\.id) == ["2000"])
        let flagged = screen(state, width: 160, height: 24)
        #expect(
            flagged.contains { $0.contains("2000") && $0.contains("customer2000@example.com") },
            "\(flagged.joined(separator: "\n"))")
    }

    @Test func flagActsOnTheMarkedRowsAndTheDialogCanChangeTheOffer() throws {
        let runner = try makeOffersRunner()
        var state = try onRetention(runner)
        try press("space", "space", state: &state, runner: runner)
        try press("f", state: &state, runner: runner)
        #expect(state.confirmation?.ids == ["1000", "2000"])
        #expect(state.confirmation?.question == "Flag 2 subscribers for retention?")
        try press("o", state: &state, runner: runner)
        #expect(state.confirmation?.question == "Flag 2 subscribers for upgrade?")
        try press("enter", state: &state, runner: runner)
        #expect(
            try runner.analytics.database.flags().map { "\($0.originalTransactionId) \($0.offer)" }.sorted()
                == ["1000 upgrade", "2000 upgrade"])
        // The flagged rows' marks are done with (issue 30 §3.10): marked again for the clear.
        #expect(state.offers.marks.isEmpty)
        try press("g g", "space", "space", state: &state, runner: runner)
        // F clears, also after a confirm; `esc` in the dialog changes nothing.
        try press("F", state: &state, runner: runner)
        #expect(state.confirmation?.clear == true)
        try press("esc", state: &state, runner: runner)
        #expect(state.confirmation == nil)
        #expect(state.notice == "nothing changed")
        #expect(try runner.analytics.database.flags().count == 2)
        try press("F", "o", "enter", state: &state, runner: runner)
        #expect(try runner.analytics.database.flags().isEmpty)
        #expect(try runner.analytics.database.flagLog().map(\.action) == [.set, .set, .clear, .clear])
    }

    @Test func aNoteTypedInTheDialogIsKeptWithTheFlags() throws {
        let runner = try makeOffersRunner()
        var state = try onRetention(runner)
        try press("f", "n", state: &state, runner: runner)
        #expect(state.commandLine?.kind == .note && state.confirmation != nil)
        type("called 3 times", &state, runner: runner)
        try press("enter", state: &state, runner: runner)
        #expect(state.commandLine == nil)
        #expect(state.confirmation?.note == "called 3 times")
        #expect(screen(state).joined(separator: "\n").contains("Note: called 3 times"))
        try press("enter", state: &state, runner: runner)
        #expect(try runner.analytics.database.flags().map(\.note) == ["called 3 times"])
        #expect(try runner.analytics.database.flagLog().map(\.note) == ["called 3 times"])
    }

    @Test func escPrecedence() throws {
        let runner = try makeOffersRunner()
        var state = try onRetention(runner)
        try press("/", state: &state, runner: runner)
        type("000", &state, runner: runner)
        try press("enter", state: &state, runner: runner)
        #expect(state.offers.filter == "000")
        // The dialog first…
        try press("f", state: &state, runner: runner)
        #expect(state.confirmation != nil)
        try press("esc", state: &state, runner: runner)
        #expect(state.confirmation == nil && state.offers.filter == "000" && state.pane == .offers)
        // …then the command line…
        try press(":", state: &state, runner: runner)
        #expect(state.commandLine != nil)
        try press("esc", state: &state, runner: runner)
        #expect(state.commandLine == nil && state.offers.filter == "000" && state.pane == .offers)
        // …then the filter…
        try press("esc", state: &state, runner: runner)
        #expect(state.offers.filter == nil && state.pane == .offers)
        // …then back to the previous pane.
        try press("esc", state: &state, runner: runner)
        #expect(state.pane == .subscribers)
    }

    @Test func filterAppliesAsItIsTyped() throws {
        let runner = try makeOffersRunner()
        var state = try onRetention(runner)
        try press("/", state: &state, runner: runner)
        type("30", &state, runner: runner)
        #expect(state.offers.shown.map(\.id) == ["3000"])
        #expect(screen(state)[2].contains("Offers · retention matching \"30\" (1 shown)"))
        try press("backspace", "backspace", "2", state: &state, runner: runner)
        #expect(state.offers.shown.map(\.id) == ["2000"])
        // esc in the prompt drops the filter with it.
        try press("esc", state: &state, runner: runner)
        #expect(state.commandLine == nil && state.offers.filter == nil && state.offers.shown.count == 3)
    }

    @Test func sortSurvivesSwitchingToAListWithFewerColumns() throws {
        let runner = try makeOffersRunner()
        var state = try onRetention(runner)
        try press("f", "enter", "<", "<", "<", "l", "l", "l", "l", "l", "[", state: &state, runner: runner)
        #expect(state.offers.list == .flagged && state.offers.sort == OfferSort(column: 5, ascending: true))
        try press(":", state: &state, runner: runner)
        type("offers retention", &state, runner: runner)
        try press("enter", state: &state, runner: runner)
        #expect(state.offers.shown.map(\.id) == ["1000", "2000", "3000"])
        #expect(state.offers.column == 4)
    }

    @Test func gSequencesActOnEveryShownRow() throws {
        let runner = try makeOffersRunner()
        var state = try onRetention(runner)
        try press("g", state: &state, runner: runner)
        #expect(state.pendingKeys == [.char("g")])
        #expect(screen(state)[22].contains("g …") && screen(state)[22].contains("g s mark all"))
        try press("s", state: &state, runner: runner)
        #expect(state.pendingKeys.isEmpty)
        #expect(state.offers.marks == ["1000", "2000", "3000"])
        try press("g u", state: &state, runner: runner)
        #expect(state.offers.marks.isEmpty)
        // "All" means every shown row: a filter narrows it.
        try press("/", state: &state, runner: runner)
        type("3000", &state, runner: runner)
        try press("enter", "g t", "esc", state: &state, runner: runner)
        #expect(state.offers.marks == ["3000"])
        try press("g t", state: &state, runner: runner)
        #expect(state.offers.marks == ["1000", "2000"])
        // An unfinished sequence is dropped by esc, without going back, or when no key follows in time.
        try press("g", "esc", state: &state, runner: runner)
        #expect(state.pendingKeys.isEmpty && state.pane == .offers)
        try press("g", state: &state, runner: runner)
        send(.keyTimeout, to: &state, runner: runner)
        try press("s", state: &state, runner: runner)
        #expect(state.pendingKeys.isEmpty && state.offers.marks == ["1000", "2000", "3000"])
    }

    @Test func ctrlSpaceMarksARange() throws {
        let runner = try makeOffersRunner()
        var state = try onRetention(runner)
        try press("s", state: &state, runner: runner)
        #expect(state.offers.selected == 1)
        try press("j", "ctrl-space", state: &state, runner: runner)
        #expect(state.offers.marks == ["1000", "2000", "3000"])
        try press("u", "k", "u", state: &state, runner: runner)
        #expect(state.offers.marks == ["1000"])
        try press("}", state: &state, runner: runner)
        #expect(state.offers.selected == 0)
        try press("j", "t", state: &state, runner: runner)
        #expect(state.offers.marks == ["1000", "2000"] && state.offers.selected == 2)
        try press("{", state: &state, runner: runner)
        #expect(state.offers.selected == 1)
        try press("{", state: &state, runner: runner)
        #expect(state.offers.selected == 0)
    }

    @Test func pipeMarksTheRowsMatchingARegularExpressionInTheColumn() throws {
        let runner = try makeOffersRunner()
        var state = try onRetention(runner)
        try press("|", state: &state, runner: runner)
        #expect(screen(state)[22].hasPrefix("|"))
        type("^[12]0", &state, runner: runner)
        try press("enter", state: &state, runner: runner)
        #expect(state.offers.marks == ["1000", "2000"])
        #expect(state.notice == "marked 2 rows whose Subscription matches /^[12]0/ · 2 marked")
        // In another column: the reason; `\` unmarks.
        try press("l", "l", "l", "\\", state: &state, runner: runner)
        type("OFF, stand", &state, runner: runner)
        try press("enter", state: &state, runner: runner)
        #expect(state.offers.marks.isEmpty)
        try press("|", state: &state, runner: runner)
        type("(", &state, runner: runner)
        try press("enter", state: &state, runner: runner)
        #expect(state.status == "not a regular expression: (")
    }

    @Test func exportWritesTheShownRows() throws {
        let export = try TemporaryDirectory("export")
        defer { export.remove() }
        let directory = export.path
        let runner = try makeOffersRunner(exportDirectory: directory)
        var state = try onRetention(runner)
        try press("]", "ctrl-s", state: &state, runner: runner)
        let path = directory + "/subdash-offers-retention-2025-03-10.csv"
        #expect(state.notice == "exported 3 rows to \(path)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == retentionExport)
        // A second export never replaces the first.
        try press("ctrl-s", state: &state, runner: runner)
        #expect(state.notice == "exported 3 rows to \(directory)/subdash-offers-retention-2025-03-10-2.csv")
    }

    @Test func ctrlSOnSubscribersExportsTheWholeDrillDown() throws {
        let export = try TemporaryDirectory("export")
        defer { export.remove() }
        let directory = export.path
        let runner = try makeOffersRunner(exportDirectory: directory)
        var state = AppState(asOf: asOf)
        send(.start, to: &state, runner: runner)
        try press("4", "enter", "ctrl-s", state: &state, runner: runner)
        let path = directory + "/subdash-subscribers-2025-03-10-state-standard.csv"
        #expect(state.notice == "exported 5 rows to \(path)")
        #expect(
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init) == [
                "originalTransactionId,productId,state,paidPeriods,autoRenew,flags,environment,userId,email,appAccountToken",
                "1000,pro.monthly,standard,1,off,0,Production,,,",
                "2000,pro.monthly,standard,1,off,0,Production,user-2000,customer2000@example.com,",
                "3000,pro.monthly,standard,1,off,0,Production,,,", "5000,pro.monthly,standard,1,on,0,Production,,,",
                "6000,pro.monthly,standard,3,on,0,Production,,,",
            ])
    }

    @Test func enterTypedAheadOfSearchResultsOpensTheRow() throws {
        let runner = try makeOffersRunner()
        var state = AppState(asOf: asOf)
        send(.start, to: &state, runner: runner)
        _ = update(&state, .key(.char("/")))
        // The search runs as it is typed; the rows of its last query are not back yet when enter comes.
        var search: [Effect] = []
        for c in "2000" { search = update(&state, .key(.char(c))) }
        #expect(update(&state, .key(KeyEvent(.enter))).isEmpty)
        #expect(state.subscribers.rows.isEmpty && state.subscribers.loading)
        #expect(update(&state, .key(KeyEvent(.enter))).isEmpty)
        #expect(state.pane == .subscribers)
        for effect in search { send(runner.perform(effect), to: &state, runner: runner) }
        #expect(state.pane == .subscriber)
        #expect(state.subscriber.id == "2000")
        #expect(state.subscriber.report?.originalTransactionId == "2000")
    }
}

@Suite struct DashboardCommandLine {
    @Test func tabCompletesCommandsAndTheirArguments() throws {
        let runner = try makeOffersRunner()
        var state = AppState(asOf: asOf, themeNames: ["default", "high-contrast", "mono"])
        send(.start, to: &state, runner: runner)
        try press(":", state: &state, runner: runner)
        type("th", &state, runner: runner)
        try press("tab", state: &state, runner: runner)
        #expect(state.commandLine?.prompt.value == "theme ")
        type("m", &state, runner: runner)
        try press("tab", state: &state, runner: runner)
        #expect(state.commandLine?.prompt.value == "theme mono")
        #expect(update(&state, .key(KeyEvent(.enter))) == [.loadTheme("mono")])
        #expect(state.commandHistory == ["theme mono"])

        try press(":", state: &state, runner: runner)
        type("pr", &state, runner: runner)
        try press("tab", "tab", state: &state, runner: runner)
        #expect(state.commandLine?.prompt.value == "product pro.monthly")
        try press("esc", state: &state, runner: runner)
        try press(":", state: &state, runner: runner)
        type("asof ", &state, runner: runner)
        #expect(state.commandLine?.prompt.matches.prefix(2) == ["asof 2025-03-10", "asof 2025-02-28"])
    }

    @Test func themeSwitchesLive() throws {
        let themeDirectory = try TemporaryDirectory("themes")
        defer { themeDirectory.remove() }
        let themes = themeDirectory.path
        try "name = \"Plain test\"\ntext = \"red\"\n".write(toFile: themes + "/plain.theme", atomically: true, encoding: .utf8)
        let base = try makeOffersRunner()
        let runner = EffectRunner(analytics: base.analytics, themes: ThemeCatalog(userDirectory: nil, bundledDirectory: themes))
        var state = AppState(asOf: asOf, themeNames: ["plain"])
        try press(":", state: &state, runner: runner)
        type("theme plain", &state, runner: runner)
        try press("enter", state: &state, runner: runner)
        #expect(state.theme?.name == "Plain test")
        #expect(state.notice == "theme Plain test")
        try press(":", state: &state, runner: runner)
        type("theme nope", &state, runner: runner)
        try press("enter", state: &state, runner: runner)
        #expect(state.theme?.name == "Plain test")
        #expect(state.status?.contains("nope") == true)
    }

    @Test func userOpensASubscriberByAnyId() throws {
        let runner = try makeOffersRunner()
        var state = AppState(asOf: asOf)
        send(.start, to: &state, runner: runner)
        try press("3", ":", state: &state, runner: runner)
        type("user 4000", &state, runner: runner)
        try press("enter", state: &state, runner: runner)
        #expect(state.pane == .subscriber)
        #expect(state.subscriber.report?.originalTransactionId == "4000")
        try press(":", state: &state, runner: runner)
        type("user 9999", &state, runner: runner)
        try press("enter", state: &state, runner: runner)
        #expect(state.pane == .subscribers)
        #expect(state.status == "no subscription matches 9999")
    }

    @Test func quitAndUnknownCommands() throws {
        let runner = try makeOffersRunner()
        var state = AppState(asOf: asOf)
        try press(":", state: &state, runner: runner)
        type("frobnicate", &state, runner: runner)
        try press("enter", state: &state, runner: runner)
        #expect(state.status?.hasPrefix("unknown command: frobnicate") == true)
        try press(":", state: &state, runner: runner)
        type("q", &state, runner: runner)
        try press("enter", state: &state, runner: runner)
        #expect(state.shouldQuit)
    }
}

@Suite struct DrillDownTests {
    @Test func enterOnAStateRowListsItsSubscribers() throws {
        let runner = try makeOffersRunner()
        var state = AppState(asOf: asOf)
        send(.start, to: &state, runner: runner)
        try press("4", state: &state, runner: runner)
        // standard is the first row: all but 4000.
        try press("enter", state: &state, runner: runner)
        #expect(state.pane == .subscribers)
        #expect(state.subscribers.population == .states([.standard]))
        #expect(state.subscribers.rows.map(\.id) == ["1000", "2000", "3000", "5000", "6000"])
        #expect(state.subscribers.populationSize == PopulationSize(figure: 5, subscriptions: 5))
        #expect(state.statesEvents.figures?.states[.standard] == 5)
        let lines = screen(state)
        #expect(lines[1].contains("States & Events") && lines[1].contains("Subscribers"))
        #expect(lines[2].contains("Subscribers 1/5 · state standard (5)"))
        // esc leaves the drill-down, back where it came from; pane 1 then lists everyone again.
        try press("esc", state: &state, runner: runner)
        #expect(state.pane == .statesEvents)
        try press("1", state: &state, runner: runner)
        #expect(state.subscribers.population == nil)
        #expect(state.subscribers.rows.count == 6)
    }

    @Test func enterOnAnEventRowListsItsSubscribers() throws {
        let runner = try makeOffersRunner()
        var state = AppState(asOf: asOf)
        send(.start, to: &state, runner: runner)
        try press("4", state: &state, runner: runner)
        // The event rows follow the state rows: activation first; March has 1000, 2000, 3000 and 5000.
        for _ in 0..<StatesEventsPane.stateRows.count { try press("j", state: &state, runner: runner) }
        try press("enter", state: &state, runner: runner)
        #expect(state.subscribers.population == .events(.activation, from: asOf.month.start, to: asOf.month.end))
        #expect(state.subscribers.rows.map(\.id) == ["1000", "2000", "3000", "5000"])
        #expect(state.statesEvents.figures?.events[.activation] == state.subscribers.populationSize?.figure)
    }

    @Test func enterOnACohortCellListsItsMembers() throws {
        let runner = try makeOffersRunner()
        var state = AppState(asOf: asOf)
        send(.start, to: &state, runner: runner)
        try press("3", state: &state, runner: runner)
        let grid = try #require(state.cohorts.grid)
        let january = try #require(grid.cohorts.firstIndex { $0.month == Month(year: 2025, month: 1) })
        #expect(grid.cohorts[january].started == 2)
        #expect(grid.cohorts[january].retained.prefix(3) == [1, 1, 0])
        while state.cohorts.row < january { try press("j", state: &state, runner: runner) }
        try press("enter", state: &state, runner: runner)
        // The grid opened on the store's most common billing duration (monthly).
        #expect(state.subscribers.population == .cohortRetained(month: Month(year: 2025, month: 1), period: 1, duration: .month))
        #expect(state.subscribers.rows.map(\.id) == ["6000"])
        #expect(state.subscribers.populationSize == PopulationSize(figure: 1, subscriptions: 1))
        #expect(screen(state)[2].contains("Subscribers 1/1 · cohort 2025-01 monthly · retained at P1 (1)"))
        // `c`: who ended by P1 — 4000, whose only month ended on 2025-02-01 (ended[1] = 1).
        try press("esc", "c", state: &state, runner: runner)
        #expect(state.subscribers.population == .cohortEnded(month: Month(year: 2025, month: 1), period: 1, duration: .month))
        #expect(state.subscribers.rows.map(\.id) == ["4000"])
        #expect(grid.cohorts[january].ended.prefix(3) == [1, 0, 0])
        #expect(state.subscribers.populationSize?.figure == 1)
        #expect(screen(state)[2].contains("Subscribers 1/1 · cohort 2025-01 monthly · ended by P1 (1)"))
    }
}

@Suite struct OffersStreaming {
    /// Runs `action` through `update` and returns the effects it asks for, without running them.
    private func step(_ action: Action, _ state: inout AppState) -> [Effect] { update(&state, action) }

    @Test func firstScreenShowsAtOnceAndTheRestStreamsWithProgressWhileKeysWork() throws {
        let runner = try makeOffersRunner()
        var state = AppState(asOf: asOf, operatorName: "alice")
        send(.start, to: &state, runner: runner)
        state.offers.list = .eligible(.retention)
        state.offers.firstScreenRows = 2
        // The first visit asks for the first screen only: two rows of the retention list, and the flags.
        let first = step(.key(.char("5")), &state)
        #expect(first == [.loadOffersFirst(asOf: asOf, scope: state.scope, list: .eligible(.retention), limit: 2)])
        let streamed = first.flatMap { step(runner.perform($0), &state) }
        #expect(
            streamed == [
                .loadOfferLists([.retention, .upgrade, .loyalty, .service], asOf: asOf, scope: state.scope),
                .loadOfferLists([.winBackOffer], asOf: asOf, scope: state.scope),
            ])
        var lines = screen(state)
        #expect(lines[2].contains("Offers · retention (2 shown) · loading 0 %"), "\(lines[2])")
        #expect(
            lines[3].contains(" winBack …   retention …   upgrade …   loyalty …   service …   flagged 0"),
            "\(lines[3])")
        #expect(Array(lines[6...7]).map { String($0.prefix(6)) } == ["│ 1000", "│ 2000"])
        #expect(!lines[8].contains("000"))

        // Keys work on the rows shown: down, mark.
        try press("j", "space", state: &state, runner: runner)
        #expect(state.offers.marks == ["2000"])

        // An answer for an as-of the pane has left is dropped.
        let elsewhere = Instant(parsing: "2025-01-20")!
        #expect(step(.loadedOfferLists([.winBackOffer], asOf: elsewhere, scope: state.scope, []), &state).isEmpty)
        #expect(state.offers.stream?.lists.isEmpty == true)

        // The first group: retention is whole (3 rows), win-back still on its way.
        _ = step(runner.perform(streamed[0]), &state)
        lines = screen(state)
        #expect(lines[2].contains("Offers · retention · 1 marked (3 shown) · loading 50 %"), "\(lines[2])")
        #expect(lines[3].contains(" winBack …   retention 3   upgrade 0   loyalty 0   service 0   flagged 0"), "\(lines[3])")
        #expect(Array(lines[6...8]).map { String($0.prefix(6)) } == ["│ 1000", "│*2000", "│ 3000"])
        // The cursor stayed on the last row shown then (2000), and stays on it.
        #expect(state.offers.selectedRow?.id == "2000")

        // The last group: the screen a single load gives, the mark and cursor kept.
        _ = step(runner.perform(streamed[1]), &state)
        #expect(state.offers.stream == nil && !state.offers.loading)
        var whole = AppState(asOf: asOf, operatorName: "alice")
        send(.start, to: &whole, runner: runner)
        whole.offers.list = .eligible(.retention)
        try press("5", "j", "space", "k", state: &whole, runner: runner)
        #expect(whole.offers.board == state.offers.board)
        #expect(screen(state) == screen(whole))
        #expect(screen(state)[2].contains("Offers · retention · 1 marked (3 shown)") && !screen(state)[2].contains("loading"))
        #expect(screen(state)[3].contains(" winBack 1   retention 3"))
    }

    @Test func ctrlSWhileTheListStreamsExportsTheWholeList() throws {
        let directory = NSTemporaryDirectory() + "subdash-export-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let runner = try makeOffersRunner(exportDirectory: directory)
        var state = AppState(asOf: asOf, operatorName: "alice")
        send(.start, to: &state, runner: runner)
        state.offers.list = .eligible(.retention)
        state.offers.firstScreenRows = 2
        // The first screen (2 of the 3 retention rows) has come; the whole lists have not.
        for effect in step(.key(.char("5")), &state) { _ = step(runner.perform(effect), &state) }
        _ = step(.key(.char("]")), &state)
        #expect(state.offers.shown.map(\.id) == ["2000", "1000"])
        let export = try KeyChord(parsing: "ctrl-s").keys.flatMap { step(.key($0), &state) }
        #expect(
            export == [
                .exportOffers(
                    stem: "offers-retention-2025-03-10", kind: .retention, asOf: asOf, scope: state.scope, flags: [],
                    filter: nil, sort: state.offers.sort)
            ])
        #expect(screen(state).contains { $0.contains("exporting the whole retention list…") }, "\(screen(state))")
        for effect in export { _ = step(runner.perform(effect), &state) }
        let path = directory + "/subdash-offers-retention-2025-03-10.csv"
        #expect(state.notice == "exported 3 rows to \(path)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == retentionExport)
    }

    @Test func aFirstScreenForAnAsOfLeftIsDropped() throws {
        let runner = try makeOffersRunner()
        var state = AppState(asOf: asOf, operatorName: "alice")
        send(.start, to: &state, runner: runner)
        let first = step(.key(.char("5")), &state)
        state.asOf = Instant(parsing: "2025-01-20")!
        #expect(step(runner.perform(first[0]), &state).isEmpty)
        #expect(state.offers.board == nil && state.offers.stream == nil)
    }
}
