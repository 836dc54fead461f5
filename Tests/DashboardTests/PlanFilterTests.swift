import Dashboard
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI
import Testing

/// `:plan` (docs/keybindings.md): three January 2026 members in EUR, as of 2026-05-20. A pays
/// `pro.monthly` upfront (9.99) on 01-05, 02-05, 03-05 and ends 04-05; Y pays `pro.annual` upfront
/// (99.99) on 01-10, open; M pays payments 1–5 of a 12-month commitment to `pro.annual` (10.99
/// each) from 01-02, open.
@Suite struct PlanFilterTests {
    static let asOf = Instant(parsing: "2026-05-20")!

    static func runner() throws -> EffectRunner {
        var documents: [IncomingDocument] = []
        func add(_ id: String, _ original: String, _ product: String, _ from: String, _ to: String, _ price: Int64, k: Int? = nil)
        {
            var t = TransactionFact(
                transactionId: id, originalTransactionId: original, productId: product,
                purchaseDate: Instant(parsing: from)!, expiresDate: Instant(parsing: to)!, environment: .production)
            t.price = price
            t.currency = "EUR"
            if let k {
                t.billingPlanType = "MONTHLY"
                t.commitment = TransactionCommitment(
                    billingPeriodNumber: k, totalBillingPeriods: 12, commitmentExpiresDate: Instant(parsing: "2027-01-02")!,
                    commitmentPrice: 131_880)
            }
            let name = "plan-\(id)"
            documents.append(
                IncomingDocument(
                    sha256: String(repeating: "0", count: 64 - name.count) + name, source: name, byteCount: 1, body: nil,
                    content: .facts(DocumentFacts(format: .v2Notification, transactions: [t]))))
        }
        add("A1", "A", "pro.monthly", "2026-01-05", "2026-02-05", 9_990)
        add("A2", "A", "pro.monthly", "2026-02-05", "2026-03-05", 9_990)
        add("A3", "A", "pro.monthly", "2026-03-05", "2026-04-05", 9_990)
        add("Y1", "Y", "pro.annual", "2026-01-10", "2027-01-10", 99_990)
        let starts = ["2026-01-02", "2026-02-02", "2026-03-02", "2026-04-02", "2026-05-02", "2026-06-02"]
        for k in 1...5 { add("M\(k)", "M", "pro.annual", starts[k - 1], starts[k], 10_990, k: k) }
        let database = try AppDatabase.inMemory()
        try database.apply(documents)
        return EffectRunner(analytics: SubscriberAnalytics(database: database))
    }

    static func screen(_ state: AppState) -> [String] {
        view(state, size: Size(width: 120, height: 30), palette: .builtinDefault(.none)).lines()
    }

    static func command(_ text: String, _ state: inout AppState, _ runner: EffectRunner) throws {
        try keys(":", state: &state, runner: runner)
        for c in text { try keys(c == " " ? "space" : String(c), state: &state, runner: runner) }
        try keys("enter", state: &state, runner: runner)
    }

    /// The January row's words: month, started, P1… (the grid's cells as the screen shows them).
    static func january(_ lines: [String]) throws -> [String] {
        let line = try #require(lines.first { $0.hasPrefix("│ 2026-01") })
        return line.split(whereSeparator: { $0 == " " || $0 == "│" }).prefix(6).map(String.init)
    }

    @Test func theCohortGridShowsOnePlanAtATime() throws {
        let runner = try Self.runner()
        var state = AppState(asOf: Self.asOf)
        drive(.start, &state, runner)
        try keys("3", state: &state, runner: runner)
        // Both plans: yearly products are the most common first paid products (Y and M, on
        // `pro.annual`), so January shows Y and M.
        var lines = Self.screen(state)
        #expect(!lines[1].contains("plan"))
        #expect(try Self.january(lines).prefix(2) == ["2026-01", "2"])
        try Self.command("plan monthly", &state, runner)
        lines = Self.screen(state)
        #expect(lines[1].contains("plan monthly"), "\(lines[1])")
        // M alone: it reached P2…P5 by 2026-05-20 (payment 5 on 05-02); its product bills yearly,
        // the most common length among monthly-plan members.
        #expect(lines[2].contains("yearly products (most common)"))
        #expect(try Self.january(lines) == ["2026-01", "1", "100%", "100%", "100%", "100%"])
        #expect(lines.contains { $0.hasPrefix("│ average       1 100% 100% 100% 100%    –") })
        try Self.command("plan", &state, runner)
        lines = Self.screen(state)
        #expect(!lines[1].contains("plan"))
        #expect(try Self.january(lines).prefix(2) == ["2026-01", "2"])
        try Self.command("plan weekly", &state, runner)
        #expect(Self.screen(state).contains { $0.contains("usage: :plan upfront|monthly|all") })
    }

    @Test func theMoneyPaneCountsThePlansPeriods() throws {
        let runner = try Self.runner()
        var state = AppState(asOf: Self.asOf)
        drive(.start, &state, runner)
        try keys("6", state: &state, runner: runner)
        // Both plans: Y's 99.99 a year is 8.3325 a month, M's payment 10.99 a month: 19.32 EUR.
        var lines = Self.screen(state)
        #expect(lines.contains { $0.contains("19.32") }, "\(lines.joined(separator: "\n"))")
        try Self.command("plan monthly", &state, runner)
        lines = Self.screen(state)
        #expect(lines[1].contains("plan monthly"))
        #expect(
            lines.contains { $0.contains("10.99") } && !lines.contains { $0.contains("19.32") },
            "\(lines.joined(separator: "\n"))")
        try Self.command("plan upfront", &state, runner)
        lines = Self.screen(state)
        #expect(lines[1].contains("plan upfront"))
        #expect(
            lines.contains { $0.contains("8.33") } && !lines.contains { $0.contains("19.32") }, "\(lines.joined(separator: "\n"))"
        )
        // States & Events count the plan's states and events too, and say so: as of 2026-05-20 Y is
        // standard and A expired (its last period, pro.monthly, billed upfront); M is standard and
        // renewed on 05-02 into a monthly payment. Offers counts both plans.
        try keys("4", state: &state, runner: runner)
        #expect(Self.screen(state)[1].contains("plan upfront"))
        var figures = try #require(state.statesEvents.figures)
        #expect(figures.states.counts == [.standard: 1, .expired: 1])
        #expect(figures.events[.renewal, default: 0] == 0)
        try Self.command("plan monthly", &state, runner)
        #expect(Self.screen(state)[1].contains("plan monthly"))
        figures = try #require(state.statesEvents.figures)
        #expect(figures.states.counts == [.standard: 1])
        #expect(figures.events[.renewal] == 1)
        try Self.command("plan upfront", &state, runner)
        try keys("5", state: &state, runner: runner)
        #expect(Self.screen(state)[1].contains("both plans here"))
    }
}
