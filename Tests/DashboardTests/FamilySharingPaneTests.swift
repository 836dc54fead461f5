import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI
import Testing

@testable import Dashboard

/// Family Sharing on the dashboard: the Subscriber pane says so, pane 4 counts purchased
/// subscriptions until `o` switches it, pane 1 filters by ownership.
@Suite struct FamilySharingPaneTests {
    static let asOf = Instant(parsing: "2025-03-20")!

    /// `f`: a family member for two months, its access revoked on 2025-02-20; `p` the purchaser,
    /// still subscribed.
    static func runner() throws -> EffectRunner {
        func t(
            _ original: String, _ id: String, _ start: String, _ end: String, revoked: String? = nil,
            shared: Bool
        ) -> TransactionFact {
            TransactionFact(
                transactionId: id, originalTransactionId: original, productId: "pro.monthly",
                purchaseDate: Instant(parsing: start)!, expiresDate: Instant(parsing: end)!,
                revocationDate: revoked.flatMap { Instant(parsing: $0) },
                inAppOwnershipType: shared ? "FAMILY_SHARED" : "PURCHASED")
        }
        let facts = DocumentFacts(
            format: .v2Notification,
            transactions: [
                t("f", "f1", "2025-01-01", "2025-02-01", shared: true),
                t("f", "f2", "2025-02-01", "2025-03-01", revoked: "2025-02-20", shared: true),
                t("p", "p1", "2025-01-01", "2025-02-01", shared: false), t("p", "p2", "2025-02-01", "2025-03-01", shared: false),
                t("p", "p3", "2025-03-01", "2025-04-01", shared: false),
            ])
        let db = try AppDatabase.inMemory()
        try db.apply([
            IncomingDocument(
                sha256: String(repeating: "0", count: 63) + "1", source: "family", byteCount: 1, body: nil,
                content: .facts(facts))
        ])
        return EffectRunner(analytics: SubscriberAnalytics(database: db))
    }

    static func screen(_ state: AppState, palette: Palette) -> TestBackend {
        let backend = TestBackend(width: 100, height: 30, colorSupport: .none)
        Terminal(backend: backend).draw { buffer in render(state, into: &buffer, palette: palette) }
        return backend
    }

    static func opened(_ id: String) throws -> AppState {
        let runner = try Self.runner()
        var state = AppState(asOf: Self.asOf)
        drive(.start, &state, runner)
        guard case .found(let report) = try runner.analytics.subscriber(id, asOf: Self.asOf) else {
            Issue.record("\(id) not found")
            return state
        }
        drive(.switchPane(.subscriber), &state, runner)
        state.subscriber.id = id
        drive(.loadedSubscriber(report), &state, runner)
        return state
    }

    /// Header rows of their own, in the theme's accent and warning roles, and in NO_COLOR (bold,
    /// attributes only).
    @Test(arguments: [ColorSupport.none, .truecolor])
    func subscriberPaneSaysFamilySharing(colors: ColorSupport) throws {
        let palette = Palette.builtinDefault(colors)
        let backend = Self.screen(try Self.opened("f"), palette: palette)
        let line = try #require(backend.lines.first { $0.contains("Family Sharing") }, "\(backend.lines.joined(separator: "\n"))")
        #expect(line.contains("Ownership    Family Sharing — access through a family member's purchase"))
        let revokedLine = try #require(backend.lines.first { $0.contains("sharing revoked on 2025-02-20") })
        let revokedY = try #require(backend.lines.firstIndex(of: revokedLine))
        let revokedX = revokedLine.distance(
            from: revokedLine.startIndex,
            to: try #require(revokedLine.range(of: "sharing")).lowerBound)
        #expect(backend.screen[revokedX, revokedY].style == palette[.warning])
        let y = try #require(backend.lines.firstIndex(of: line))
        let x = line.distance(from: line.startIndex, to: try #require(line.range(of: "Family")).lowerBound)
        #expect(backend.screen[x, y].style == palette[.accent])
        if colors == .none { #expect(backend.screen[x, y].style.attributes.contains(.bold)) }
        // The revoked period is marked so, not as a refund.
        #expect(
            backend.lines.contains { $0.contains("2025-02-01") && $0.contains(" revoked") && !$0.contains("refund") },
            "\(backend.lines.joined(separator: "\n"))")
        // A purchase has no such line.
        let purchased = Self.screen(try Self.opened("p"), palette: palette).lines
        #expect(purchased.contains { $0.contains("Subscription") && $0.contains(" p ") })
        #expect(!purchased.contains { $0.contains("Family Sharing") }, "\(purchased.joined(separator: "\n"))")
    }

    /// Pane 4 counts purchased subscriptions; `o` switches to family-shared, then all, and the
    /// title says which.
    @Test func statesAndEventsSwitchOwnership() throws {
        let runner = try Self.runner()
        var state = AppState(asOf: Self.asOf)
        drive(.start, &state, runner)
        try keys("4", state: &state, runner: runner)
        func title() -> String { Self.screen(state, palette: .builtinDefault(.none)).lines.prefix(3).joined(separator: "\n") }
        #expect(state.statesEvents.figures?.states.total == 1)
        #expect(title().contains("Events in 2025-03 · purchased"))
        try keys("o", state: &state, runner: runner)
        #expect(state.statesEvents.figures?.states.counts == [.expired: 1])
        #expect(title().contains("Events in 2025-03 · family-shared"))
        // `enter` on the expired row lists the one it counts: the family member.
        state.statesEvents.row = StatesEventsPane.stateRows.firstIndex { $0.name == "expired" }!
        try keys("enter", state: &state, runner: runner)
        #expect(state.subscribers.rows.map(\.id) == ["f"])
        #expect(title().contains("Subscribers 1/1 · state expired (1) · family-shared"), "\(title())")
        try keys("esc", state: &state, runner: runner)
        #expect(state.pane == .statesEvents)
        try keys("o", state: &state, runner: runner)
        #expect(state.statesEvents.figures?.states.total == 2)
        #expect(title().contains("Events in 2025-03 · all ownerships"))
        try keys("o", state: &state, runner: runner)
        #expect(state.statesEvents.ownership == .purchased && state.statesEvents.figures?.states.total == 1)
    }

    /// Pane 1 lists everyone; `o` narrows it to purchased, then family-shared.
    @Test func subscribersFilterByOwnership() throws {
        let runner = try Self.runner()
        var state = AppState(asOf: Self.asOf)
        drive(.start, &state, runner)
        #expect(state.subscribers.rows.map(\.id) == ["f", "p"])
        try keys("o", state: &state, runner: runner)
        #expect(state.subscribers.rows.map(\.id) == ["p"])
        try keys("o", state: &state, runner: runner)
        #expect(state.subscribers.rows.map(\.id) == ["f"])
        #expect(
            Self.screen(state, palette: .builtinDefault(.none)).lines.contains { $0.contains("Subscribers 1/1 · family-shared") })
        try keys("o", state: &state, runner: runner)
        #expect(state.subscribers.rows.map(\.id) == ["f", "p"])
        #expect(Self.screen(state, palette: .builtinDefault(.none)).lines.contains { $0.contains("Subscribers 1/2 · all") })
    }

    /// Pane 1's last column says "yes" for a family member; `[` on it lists purchased
    /// subscriptions first, `]` family-shared ones first.
    @Test func subscribersSortByOwnership() throws {
        let runner = try Self.runner()
        var state = AppState(asOf: Self.asOf)
        drive(.start, &state, runner)
        let lines = Self.screen(state, palette: .builtinDefault(.none)).lines
        let header = try #require(lines.first { $0.contains("Subscription") })
        #expect(header.hasSuffix("Flg Fam│"), "\(header)")
        #expect(lines.contains { $0.hasPrefix("│ f ") && $0.hasSuffix("yes│") }, "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.hasPrefix("│ p ") && $0.hasSuffix("   │") }, "\(lines.joined(separator: "\n"))")
        for _ in 0..<8 { try keys("l", state: &state, runner: runner) }
        #expect(state.subscribers.column == 8)
        try keys("[", state: &state, runner: runner)
        #expect(state.subscribers.rows.map(\.id) == ["p", "f"])
        try keys("]", state: &state, runner: runner)
        #expect(state.subscribers.rows.map(\.id) == ["f", "p"])
        #expect(state.subscribers.view.sort == SubscriberSort(.ownership, ascending: false))
    }
}
