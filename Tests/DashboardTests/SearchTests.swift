import Dashboard
import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI
import TestSupport
import Testing

/// The sample store (24 subscriptions 5000, 5010 … 5230) with the ids support is asked about:
/// customers from a CSV (one with a mixed-case email), and subscription 7000 whose customer is linked
/// only through its appAccountToken, with a long product id.
private enum SearchStore {
    static let token = "6f1c2a3b-0000-4000-8000-00000000abcd"

    /// `extra` more subscriptions 9000, 9001, … of one month each (for lists longer than a page),
    /// and a Sandbox subscription 8000 of customer0048.
    static func documents(extra: Int = 0) -> [IncomingDocument] {
        var documents = SampleStore.documents()
        func add(_ name: String, _ facts: DocumentFacts) {
            documents.append(
                IncomingDocument(
                    sha256: String(repeating: "0", count: 64 - name.count) + name, source: name,
                    byteCount: 1, body: nil, content: .facts(facts)))
        }
        var t = TransactionFact(
            transactionId: "7000", originalTransactionId: "7000", productId: "com.example.pro.monthly",
            purchaseDate: Instant(parsing: "2025-05-01")!, expiresDate: Instant(parsing: "2025-07-01")!,
            environment: .production)
        t.appAccountToken = token
        add("search-7000", DocumentFacts(format: .v2Notification, transactions: [t]))
        add(
            "search-8000",
            DocumentFacts(
                format: .v2Notification,
                transactions: [
                    TransactionFact(
                        transactionId: "8000", originalTransactionId: "8000", productId: "pro.monthly",
                        purchaseDate: Instant(parsing: "2025-06-01")!, expiresDate: Instant(parsing: "2025-07-01")!,
                        environment: .sandbox)
                ]))
        for i in 0..<extra {
            let id = "\(9000 + i)"
            add(
                "search-\(id)",
                DocumentFacts(
                    format: .v2Notification,
                    transactions: [
                        TransactionFact(
                            transactionId: id, originalTransactionId: id, productId: "pro.monthly",
                            purchaseDate: Instant(parsing: "2025-03-01")!, expiresDate: Instant(parsing: "2025-04-01")!,
                            environment: .production)
                    ]))
        }
        add(
            "search-customers",
            DocumentFacts(
                format: .customersCSV,
                customers: [
                    CustomerFact(userId: "user-0002", email: "Customer0002@Example.com", originalTransactionId: "5010"),
                    CustomerFact(userId: "user-0003", email: "customer0003@example.com", originalTransactionId: "5020"),
                    CustomerFact(
                        userId: "user-0007", email: "anna.lindqvist.support.case.long@example.com", appAccountToken: token),
                    CustomerFact(userId: "user-0048", email: "customer0048@example.com", originalTransactionId: "8000"),
                ]))
        return documents
    }

    static func runner(extra: Int = 0, exportDirectory: String = TemporaryDirectory.process.path) throws -> EffectRunner {
        let db = try AppDatabase.inMemory()
        try db.apply(documents(extra: extra))
        return EffectRunner(
            analytics: SubscriberAnalytics(database: db), exportDirectory: exportDirectory,
            now: { Instant(parsing: "2025-06-15T12:00:00Z")! })
    }
}

private func started(_ runner: EffectRunner) -> AppState {
    var state = AppState(asOf: SampleStore.asOf, operatorName: "alice")
    drive(.start, &state, runner)
    return state
}

private func type(_ text: String, _ state: inout AppState, _ runner: EffectRunner) {
    for c in text { drive(.key(KeyEvent(.char(c))), &state, runner) }
}

private func screen(_ state: AppState, width: Int = 80, height: Int = 24) -> [String] {
    let backend = TestBackend(width: width, height: height, colorSupport: .none)
    Terminal(backend: backend).draw { buffer in render(state, into: &buffer, palette: .builtinDefault(.none)) }
    return backend.lines
}

/// The pane's title row (the border's top line).
private func title(_ state: AppState, width: Int = 80) -> String { screen(state, width: width)[2] }

@Suite struct SubscriberSearchScreens {
    @Test func anEmailPrefixFindsItsSubscriberInAnyCase() throws {
        let runner = try SearchStore.runner()
        var state = started(runner)
        try keys("/", state: &state, runner: runner)
        type("customer0002", &state, runner)
        // Live: the list follows the text before enter.
        let lines = screen(state, width: 120)
        #expect(lines.contains { $0.contains("5010") && $0.contains("user-0002") && $0.contains("Customer0002@Example.com") })
        #expect(lines[2].contains("Subscribers 1/1 · all matching \"customer0002\""))
        #expect(!lines.contains { $0.contains("│ 5000") || $0.contains("5020 ") })
    }

    @Test func anIdPrefixAUserIdPrefixAndAPartOfAnEmailFindThem() throws {
        let runner = try SearchStore.runner()
        var state = started(runner)
        try keys("/", state: &state, runner: runner)
        type("502", &state, runner)
        #expect(state.subscribers.rows.map(\.id) == ["5020"])
        try keys("ctrl-u", state: &state, runner: runner)
        type("USER-000", &state, runner)
        #expect(state.subscribers.rows.map(\.id) == ["5010", "5020", "7000"])
        #expect(title(state).contains("Subscribers 1/3 · all matching \"USER-000\""))
        try keys("ctrl-u", state: &state, runner: runner)
        type("lindqvist", &state, runner)
        #expect(state.subscribers.rows.map(\.id) == ["7000"])
    }

    @Test func anUpperCaseAppAccountTokenFindsItsSubscription() throws {
        let runner = try SearchStore.runner()
        var state = started(runner)
        try keys("/", state: &state, runner: runner)
        type(SearchStore.token.uppercased(), &state, runner)
        try keys("enter", state: &state, runner: runner)
        #expect(state.subscribers.rows.map(\.id) == ["7000"])
        #expect(screen(state, width: 120).contains { $0.contains("7000") && $0.contains("user-0007") })
    }

    /// Sandbox subscribers are found by search (and `:user`), each row and pane 2 saying so; `:env`
    /// and `E` choose the environments every pane counts.
    @Test func aSandboxSubscriberIsFoundAndSaysSo() throws {
        let runner = try SearchStore.runner()
        var state = started(runner)
        // Not in the production list…
        #expect(!state.subscribers.rows.contains { $0.id == "8000" })
        // …but a search finds it, and its row says Sandbox.
        try keys("/", state: &state, runner: runner)
        type("customer0048", &state, runner)
        #expect(state.subscribers.rows.map(\.id) == ["8000"])
        var lines = screen(state, width: 120)
        #expect(lines[3].contains("Env"))
        #expect(lines.contains { $0.contains("8000") && $0.contains("customer0048@example.com") && $0.hasSuffix("sbx│") })
        try keys("esc", ":", state: &state, runner: runner)
        type("user 8000", &state, runner)
        try keys("enter", state: &state, runner: runner)
        #expect(state.pane == .subscriber && state.subscriber.id == "8000")
        lines = screen(state, width: 120)
        #expect(lines.contains { $0.contains("Environment  Sandbox") })
        // `:env sandbox`: the list is the Sandbox subscribers; `E` goes on to every environment.
        state = started(runner)
        try keys(":", state: &state, runner: runner)
        type("env sandbox", &state, runner)
        try keys("enter", state: &state, runner: runner)
        #expect(state.scope.environment == .sandbox)
        #expect(state.subscribers.rows.map(\.id) == ["8000"])
        #expect(screen(state)[1].contains("sandbox"))
        try keys("E", state: &state, runner: runner)
        #expect(state.scope.environment == .all)
        #expect(state.subscribers.rows.count == 26)
        try keys("E", state: &state, runner: runner)
        #expect(state.scope.environment == .production)
        try keys(":", state: &state, runner: runner)
        type("env staging", &state, runner)
        try keys("enter", state: &state, runner: runner)
        #expect(state.status?.contains("usage: :env production|sandbox|all") == true)
    }

    /// `:user` reads its argument as `report subscriber` does: a user id prefix naming three
    /// subscriptions lists them and says how many; an upper-case token opens its subscription.
    @Test func userCommandUsesTheLookupOfTheCLI() throws {
        let runner = try SearchStore.runner()
        var state = started(runner)
        try keys(":", state: &state, runner: runner)
        type("user user-000", &state, runner)
        try keys("enter", state: &state, runner: runner)
        #expect(state.pane == .subscribers)
        #expect(state.notice == "3 subscriptions match user-000: pick one")
        try keys(":", state: &state, runner: runner)
        type("user \(SearchStore.token.uppercased())", &state, runner)
        try keys("enter", state: &state, runner: runner)
        #expect(state.pane == .subscriber && state.subscriber.id == "7000")
    }

    /// Exports used for outreach name the people: pane 1's and pane 5's ctrl-s carry the user id,
    /// email and appAccountToken of each subscription.
    @Test func exportsCarryUserIdEmailAndToken() throws {
        let export = try TemporaryDirectory("people")
        defer { export.remove() }
        let runner = try SearchStore.runner(exportDirectory: export.path)
        var state = started(runner)
        try keys("/", state: &state, runner: runner)
        type("user-000", &state, runner)
        try keys("enter", "ctrl-s", state: &state, runner: runner)
        let subscribers = try String(contentsOfFile: export.path + "/subdash-subscribers-2025-06-15.csv", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        #expect(subscribers.first?.hasSuffix(",environment,userId,email,appAccountToken") == true)
        #expect(subscribers.contains { $0.hasPrefix("5010,") && $0.hasSuffix(",Production,user-0002,Customer0002@Example.com,") })
        #expect(
            subscribers.contains {
                $0.hasPrefix("7000,")
                    && $0.hasSuffix(",user-0007,anna.lindqvist.support.case.long@example.com,\(SearchStore.token)")
            })
        // Flag 5010, then export pane 5's flagged list.
        try keys("f", state: &state, runner: runner)
        try keys("enter", state: &state, runner: runner)
        try keys(":", state: &state, runner: runner)
        type("offers flagged", &state, runner)
        try keys("enter", "ctrl-s", state: &state, runner: runner)
        let flagged = try String(contentsOfFile: export.path + "/subdash-offers-flagged-2025-06-15.csv", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        #expect(flagged.first == "originalTransactionId,offers,operator,flaggedAt,note,userId,email,appAccountToken")
        #expect(flagged.contains { $0.hasPrefix("5010,") && $0.hasSuffix(",user-0002,Customer0002@Example.com,") }, "\(flagged)")
    }

    /// `/customer0002⏎` then `/5`: the second search is "5", not "customer00025"; the first is
    /// one `↑` away.
    @Test func aNewSearchStartsEmptyWithThePreviousOneOnUp() throws {
        let runner = try SearchStore.runner()
        var state = started(runner)
        try keys("/", state: &state, runner: runner)
        type("customer0002", &state, runner)
        try keys("enter", state: &state, runner: runner)
        #expect(state.subscribers.rows.map(\.id) == ["5010"])
        try keys("/", state: &state, runner: runner)
        #expect(state.commandLine?.prompt.value == "")
        type("502", &state, runner)
        #expect(state.subscribers.filter == "502")
        #expect(state.subscribers.rows.map(\.id) == ["5020"])
        try keys("ctrl-u", "up", state: &state, runner: runner)
        #expect(state.commandLine?.prompt.value == "customer0002")
        try keys("enter", state: &state, runner: runner)
        #expect(state.subscribers.rows.map(\.id) == ["5010"])
    }

    @Test func nobodyFoundSaysSoAndEscCancelsTheTypedSearch() throws {
        let runner = try SearchStore.runner()
        var state = started(runner)
        try keys("/", state: &state, runner: runner)
        type("zzzz", &state, runner)
        #expect(screen(state).contains { $0.contains("Nobody matches \"zzzz\"") })
        try keys("esc", state: &state, runner: runner)
        #expect(state.subscribers.filter == nil)
        #expect(title(state).contains("Subscribers 1/25 · all ─"))
    }

    @Test func titleCountsAndGGoesToTheRealLastRow() throws {
        let runner = try SearchStore.runner(extra: 130)
        var state = started(runner)
        #expect(state.subscribers.rows.count == SubscribersPane.pageSize)
        #expect(title(state).contains("Subscribers 1/155 · all"))
        try keys("j", "j", state: &state, runner: runner)
        #expect(title(state).contains("Subscribers 3/155 ·"))
        try keys("G", state: &state, runner: runner)
        #expect(title(state).contains("Subscribers 155/155 ·"))
        // The last row by id is 9129, beyond the first page: on screen, under the cursor.
        #expect(state.subscribers.selectedId == "9129")
        #expect(screen(state).contains { $0.contains("9129") })
        try keys("k", state: &state, runner: runner)
        #expect(state.subscribers.selectedId == "9128")
        try keys("g g", state: &state, runner: runner)
        #expect(state.subscribers.selectedId == "5000")
        #expect(title(state).contains("Subscribers 1/155 ·"))
    }

    @Test func columnsShowUserAndEmailAndSortByAnyColumn() throws {
        let runner = try SearchStore.runner()
        var state = started(runner)
        let header = screen(state)[3]
        for column in ["Subscription", "User", "Email", "State", "Product"] { #expect(header.contains(column)) }
        // On the User column, descending: the subscriptions with a user id first, user-0007 on top.
        try keys("l", "]", state: &state, runner: runner)
        #expect(state.subscribers.rows.prefix(3).map(\.id) == ["7000", "5020", "5010"])
        #expect(screen(state)[3].contains("User↓"))
        // On the Subscription column, ascending again.
        try keys("h", "[", state: &state, runner: runner)
        #expect(state.subscribers.rows.first?.id == "5000")
    }

    @Test func stateCommandFiltersByState() throws {
        let runner = try SearchStore.runner()
        var state = started(runner)
        try keys(":", state: &state, runner: runner)
        type("state expired", &state, runner)
        try keys("enter", state: &state, runner: runner)
        #expect(!state.subscribers.rows.isEmpty)
        #expect(state.subscribers.rows.allSatisfy { $0.state == "expired" })
        #expect(title(state).contains("state expired"))
        try keys("esc", state: &state, runner: runner)
        #expect(title(state).contains("· all ─"))
    }

    @Test func aSearchInADrillDownFindsAnyoneAndEscUnwindsEachStep() throws {
        let runner = try SearchStore.runner()
        var state = started(runner)
        // Pane 4, the "expired" row: the drill-down lists the expired subscriptions.
        try keys("4", state: &state, runner: runner)
        let expired = StatesEventsPane.stateRows.firstIndex { $0.name == "expired" }!
        for _ in 0..<expired { try keys("j", state: &state, runner: runner) }
        try keys("enter", state: &state, runner: runner)
        #expect(state.pane == .subscribers)
        let drilled = state.subscribers.rows.map(\.id)
        #expect(!drilled.contains("7000"))
        #expect(title(state).contains("state expired"))
        // A search in it filters it…
        try keys("/", state: &state, runner: runner)
        type("customer0002", &state, runner)
        #expect(state.subscribers.rows.map(\.id) == ["5010"])
        #expect(title(state, width: 120).contains("Subscribers 1/1 · state expired (9) matching \"customer0002\""))
        // …and one who is not in it is still found, among everyone, and the title says so.
        try keys("ctrl-u", state: &state, runner: runner)
        type("lindqvist", &state, runner)
        try keys("enter", state: &state, runner: runner)
        #expect(state.subscribers.rows.map(\.id) == ["7000"])
        #expect(title(state, width: 120).contains("Subscribers 1/1 · all matching \"lindqvist\" (none in state expired)"))
        // Open it, then unwind: the search's list, the drill-down, pane 4, pane 1 — and no further.
        try keys("enter", state: &state, runner: runner)
        #expect(state.pane == .subscriber)
        try keys("esc", state: &state, runner: runner)
        #expect(state.pane == .subscribers && state.subscribers.filter == "lindqvist")
        try keys("esc", state: &state, runner: runner)
        #expect(state.pane == .subscribers && state.subscribers.filter == nil)
        #expect(state.subscribers.rows.map(\.id) == drilled)
        try keys("esc", state: &state, runner: runner)
        #expect(state.pane == .statesEvents)
        #expect(state.statesEvents.row == expired)
        try keys("esc", state: &state, runner: runner)
        #expect(state.pane == .subscribers && state.subscribers.population == nil)
        try keys("esc", state: &state, runner: runner)
        #expect(state.pane == .subscribers && state.history.isEmpty)
    }

    @Test func escFromTheSubscriberComesBackToTheSameRow() throws {
        let runner = try SearchStore.runner()
        var state = started(runner)
        try keys("j", "j", "j", "enter", state: &state, runner: runner)
        #expect(state.pane == .subscriber && state.subscriber.id == "5030")
        try keys("esc", state: &state, runner: runner)
        #expect(state.pane == .subscribers && state.subscribers.selectedId == "5030")
        #expect(title(state).contains("Subscribers 4/25 ·"))
    }

    @Test func fFlagsTheMarkedRowsOfPaneOne() throws {
        let runner = try SearchStore.runner()
        var state = started(runner)
        try keys("space", "space", "f", state: &state, runner: runner)
        #expect(screen(state).contains { $0.contains("Flag 2 subscribers for winBack?") })
        try keys("o", "enter", state: &state, runner: runner)
        #expect(state.notice == "flagged for retention: 2 subscriptions as alice")
        #expect(try runner.analytics.database.flags().map(\.originalTransactionId).sorted() == ["5000", "5010"])
        // The Flg column counts them.
        #expect(screen(state).filter { $0.contains("5000") || $0.contains("5010") }.allSatisfy { $0.hasSuffix("1    │") })
    }

    @Test func productIdsKeepTheirEndAndTruncatedTextGetsAnEllipsis() throws {
        let runner = try SearchStore.runner()
        var state = started(runner)
        try keys("G", state: &state, runner: runner)
        let narrow = screen(state).first { $0.contains("7000") }!
        #expect(narrow.contains("…pro.monthly"))
        #expect(narrow.contains("anna.lindq…") || narrow.contains("anna.lindqvi…") || narrow.contains("…"))
        #expect(!narrow.contains("anna.lindqvist.support.case.long@example.com"))
        let wide = screen(state, width: 160).first { $0.contains("7000") }!
        #expect(wide.contains("anna.lindqvist.support.case.long@example.com"))
        // Sized by content (issue 30 §3.8): at 160 columns the product is whole, not "…ium.monthly".
        #expect(wide.contains(" com.example.pro.monthly "))
    }

    /// At 80×24 emails keep their local part, what tells one customer from another.
    @Test func emailsKeepTheirLocalPartAtEightyColumns() throws {
        let runner = try SearchStore.runner()
        var state = started(runner)
        try keys("/", state: &state, runner: runner)
        type("user-000", &state, runner)
        let lines = screen(state)
        #expect(lines.contains { $0.contains("5010") && $0.contains("Customer0002@") }, "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("5020") && $0.contains("customer0003@") })
    }
}

@Suite struct SubscriberSearchStore {
    @Test func searchCoversEveryIdAnyCaseAndStopsAtTheLimit() throws {
        let db = try AppDatabase.inMemory()
        try db.apply(SearchStore.documents())
        #expect(try db.subscriptions(searching: "customer0002") == ["5010"])
        #expect(try db.subscriptions(searching: "CUSTOMER0003@EXAMPLE.COM") == ["5020"])
        #expect(try db.subscriptions(searching: "5031") == ["5030"])  // a transactionId prefix
        #expect(try db.subscriptions(searching: String(SearchStore.token.uppercased().prefix(8))) == ["7000"])
        #expect(try db.subscriptions(searching: "support.case") == ["7000"])  // a part of an email
        #expect(try db.subscriptions(searching: "5", limit: 4) == ["5000", "5010", "5020", "5030"])
        #expect(try db.subscriptions(searching: "zz").isEmpty)
    }

    @Test func aCustomerLinkedByTokenImportedLaterIsFound() throws {
        let db = try AppDatabase.inMemory()
        var t = TransactionFact(
            transactionId: "8000", originalTransactionId: "8000", productId: "pro.monthly",
            purchaseDate: Instant(parsing: "2025-05-01")!, expiresDate: Instant(parsing: "2025-06-01")!,
            environment: .production)
        t.appAccountToken = "aaaa0000-0000-4000-8000-000000000001"
        func document(_ name: String, _ facts: DocumentFacts) -> IncomingDocument {
            IncomingDocument(
                sha256: String(repeating: "0", count: 64 - name.count) + name, source: name, byteCount: 1,
                body: nil, content: .facts(facts))
        }
        try db.apply([document("t", DocumentFacts(format: .v2Notification, transactions: [t]))])
        try db.apply([
            document(
                "c",
                DocumentFacts(
                    format: .customersCSV,
                    customers: [
                        CustomerFact(
                            userId: "late-user", email: "late@example.com",
                            appAccountToken: "aaaa0000-0000-4000-8000-000000000001")
                    ]))
        ])
        #expect(try db.subscriptions(searching: "late@") == ["8000"])
        #expect(try db.subscriptions(searching: "LATE-USER") == ["8000"])
    }
}

/// A search's limit applies after the list's own conditions: 5,100 purchased subscriptions
/// 90000 … 95099 and 200 family-shared ones 95100 … 95299, all found by the prefix `9`.
@Suite struct SearchCutOffCounts {
    static func runner() throws -> EffectRunner {
        var documents: [IncomingDocument] = []
        for n in 90000..<95300 {
            let id = "\(n)"
            var t = TransactionFact(
                transactionId: id, originalTransactionId: id, productId: "pro.monthly",
                purchaseDate: Instant(parsing: "2025-03-01")!, expiresDate: Instant(parsing: "2025-07-01")!,
                environment: .production)
            t.inAppOwnershipType = n >= 95100 ? "FAMILY_SHARED" : "PURCHASED"
            let name = "cut-\(id)"
            documents.append(
                IncomingDocument(
                    sha256: String(repeating: "0", count: 64 - name.count) + name, source: name, byteCount: 1, body: nil,
                    content: .facts(DocumentFacts(format: .v2Notification, transactions: [t]))))
        }
        let db = try AppDatabase.inMemory()
        try db.apply(documents)
        return EffectRunner(analytics: SubscriberAnalytics(database: db))
    }

    @Test func countsAreTrueOrSayTheyAreCutOff() throws {
        let runner = try Self.runner()
        var state = started(runner)
        try keys("/", state: &state, runner: runner)
        type("9", &state, runner)
        // 5,300 match: the list holds the first 5,000 and says there are more.
        #expect(title(state).contains("Subscribers 1/5,000+ · all matching \"9\""))
        // Purchased: still more than the limit.
        try keys("enter", "o", state: &state, runner: runner)
        #expect(title(state).contains("Subscribers 1/5,000+ · purchased matching \"9\""))
        // Family-shared: the 200 beyond the first 5,000 the search finds, counted truly.
        try keys("o", state: &state, runner: runner)
        #expect(title(state).contains("Subscribers 1/200 · family-shared matching \"9\""))
        #expect(state.subscribers.rows.first?.id == "95100")
        // A narrower search under the limit: its true count, no "+" (95100 … 95199, and 90951 …
        // 94951 that hold "951").
        try keys("o", "/", state: &state, runner: runner)
        type("951", &state, runner)
        #expect(title(state).contains("Subscribers 1/105 · all matching \"951\""))
    }
}
