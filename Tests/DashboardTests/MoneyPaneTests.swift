import Foundation
import SubscriberStore
import SubscriptionModel
import Synchronization
import TerminalUI
import Testing

@testable import Dashboard
@testable import SubscriberAnalytics

/// Pane 6 on a store small enough to work out by hand (as of 2025-06-15):
/// - 9001 pays 9.99 USD a calendar month from 2025-03-01; its June period is refunded on 06-10, so
///   it has expired at as-of;
/// - 9101 pays 120.00 EUR a year from 2025-06-01;
/// - 9201 has a free week from 2025-05-20, then pays 9.99 USD from 05-27 to 06-27.
///
/// MRR now: USD 9.99 (9201), EUR 120.00 / 12 = 10.00. Thirty days before (05-16): USD 9.99 (9001),
/// no EUR: Δ 0.00 and +10.00. At the end of May both USD subscribers pay: 19.98.
/// Revenue in USD: March 9.99, April 9.99, May 19.98 (the trial is free), June 9.99 gross, 9.99
/// refunded, net 0.00; in EUR: June 120.00. The trial converted: 1 of 1, 100 %.
@Suite struct MoneyPaneTests {
    static let asOf = Instant(parsing: "2025-06-15")!

    /// `unpriced`: also 9301, two months from 2025-04-20 without a price (v1 data before a price
    /// table), and 9401, an April period at 9.99 USD and a May one without a price.
    /// `upgrade`: also 9501, 9.99 USD a month from 2025-03-15, then from 05-15 pro.yearly at
    /// 180.00 USD (15.00 a month). `exportDirectory`: where `ctrl-s` writes.
    static func runner(unpriced: Bool = false, upgrade: Bool = false, exportDirectory: String? = nil) throws -> EffectRunner {
        var documents: [IncomingDocument] = []
        func add(
            _ id: String, _ original: String, _ product: String, _ from: String, _ to: String, price: Int64?,
            currency: String?, trial: Bool = false, refundedAt: String? = nil
        ) {
            var t = TransactionFact(
                transactionId: id, originalTransactionId: original, productId: product,
                purchaseDate: Instant(parsing: from)!, expiresDate: Instant(parsing: to)!, environment: .production)
            t.price = price
            t.currency = currency
            if trial {
                t.offerType = 1
                t.offerDiscountType = "FREE_TRIAL"
            }
            if let refundedAt {
                t.revocationDate = Instant(parsing: refundedAt)!
                t.revocationReason = 0
            }
            let name = "money-\(id)"
            documents.append(
                IncomingDocument(
                    sha256: String(repeating: "0", count: 64 - name.count) + name, source: name,
                    byteCount: 1, body: nil,
                    content: .facts(DocumentFacts(format: .v2Notification, transactions: [t]))))
        }
        let months = ["2025-03-01", "2025-04-01", "2025-05-01", "2025-06-01", "2025-07-01"]
        for n in 0..<4 {
            add(
                "\(9002 + n)", "9001", "pro.monthly", months[n], months[n + 1], price: 9_990, currency: "USD",
                refundedAt: n == 3 ? "2025-06-10" : nil)
        }
        add("9102", "9101", "pro.yearly", "2025-06-01", "2026-06-01", price: 120_000, currency: "EUR")
        add("9202", "9201", "pro.monthly", "2025-05-20", "2025-05-27", price: 0, currency: "USD", trial: true)
        add("9203", "9201", "pro.monthly", "2025-05-27", "2025-06-27", price: 9_990, currency: "USD")
        if unpriced {
            add("9302", "9301", "pro.monthly", "2025-04-20", "2025-05-20", price: nil, currency: nil)
            add("9303", "9301", "pro.monthly", "2025-05-20", "2025-06-20", price: nil, currency: nil)
            add("9402", "9401", "pro.monthly", "2025-04-01", "2025-05-01", price: 9_990, currency: "USD")
            add("9403", "9401", "pro.monthly", "2025-05-01", "2025-06-01", price: nil, currency: nil)
        }
        if upgrade {
            add("9502", "9501", "pro.monthly", "2025-03-15", "2025-04-15", price: 9_990, currency: "USD")
            add("9503", "9501", "pro.monthly", "2025-04-15", "2025-05-15", price: 9_990, currency: "USD")
            add("9504", "9501", "pro.yearly", "2025-05-15", "2026-05-15", price: 180_000, currency: "USD")
        }
        let database = try AppDatabase.inMemory()
        try database.apply(documents)
        let analytics = SubscriberAnalytics(database: database)
        if let exportDirectory { return EffectRunner(analytics: analytics, exportDirectory: exportDirectory) }
        return EffectRunner(analytics: analytics)
    }

    static func screen(_ state: AppState, width: Int = 80, height: Int = 24) -> [String] {
        view(state, size: Size(width: width, height: height), palette: .builtinDefault(.truecolor)).lines()
    }

    /// Amounts never hide what they leave out: the MRR box counts its unpriced subscriptions, the
    /// revenue months their unpriced items; pane 2 counts a subscriber's unpriced periods beside
    /// what they paid and shows what was returned of each period.
    @Test func unpricedCountsStandBesideTheAmounts() throws {
        let runner = try Self.runner(unpriced: true)
        var state = AppState(asOf: Self.asOf)
        try keys("6", state: &state, runner: runner)
        var lines = Self.screen(state, width: 140, height: 40)
        #expect(lines.contains { $0.contains("+ 1 unpriced subscriptions, not in MRR") })
        #expect(lines.contains { $0.contains("Net Unpriced █ net ▒ returned") })
        // April: 9001 and 9402 priced, 9302 not; May: 9001 and 9203 priced, 9303 and 9403 not.
        #expect(lines.contains { $0.contains("│2025-04") && $0.contains("19.98        1 ") })
        #expect(lines.contains { $0.contains("│2025-05") && $0.contains("19.98        2 ") })
        #expect(lines.contains { $0.contains("│2025-03") && $0.contains("9.99          ") })
        // Pane 2: 9401 paid 9.99 USD for April; May is unpriced.
        try keys(":", state: &state, runner: runner)
        for c in "user 9401" { drive(.key(.char(c)), &state, runner) }
        try keys("enter", state: &state, runner: runner)
        lines = Self.screen(state, width: 120, height: 40)
        #expect(lines.contains { $0.contains("Paid         9.99 USD · 1 period unpriced") })
        // 9001's June period, refunded on 06-10: what was returned, as report subscriber says it.
        try keys(":", state: &state, runner: runner)
        for c in "user 9001" { drive(.key(.char(c)), &state, runner) }
        try keys("enter", state: &state, runner: runner)
        lines = Self.screen(state, width: 120, height: 40)
        #expect(lines.contains { $0.contains("Price    Returned") })
        #expect(lines.contains { $0.contains("9005") && $0.contains("9.99 USD") && $0.hasSuffix("USD │") })
        lines = Self.screen(state, width: 100, height: 40)
        #expect(lines.contains { $0.contains("Price, returned") })
        #expect(lines.contains { $0.contains("9005") && $0.contains("9.99 USD −") })
    }

    @Test func figuresByHand() throws {
        let runner = try Self.runner()
        var state = AppState(asOf: Self.asOf)
        try keys("6", state: &state, runner: runner)
        let figures = try #require(state.money.figures)
        #expect(figures.currencies == ["EUR", "USD"])
        #expect(MoneyFigures.amount(figures.mrr, "USD") == 9_990 && MoneyFigures.amount(figures.mrr, "EUR") == 10_000)
        #expect(MoneyFigures.amount(figures.mrrBefore, "USD") == 9_990 && MoneyFigures.amount(figures.mrrBefore, "EUR") == 0)
        #expect(
            figures.mrrLine(in: "USD") == [0, 0, 0, 0, 0, 0, 0, 9_990, 9_990, 9_990, 19_980, 9_990],
            "at each month's end, the next one's first instant: 9001 from 03-01 counts at February's")
        #expect(
            figures.mrrLine(in: "EUR") == Array(repeating: 0, count: 10) + [10_000, 10_000])
        let usd = figures.revenue(in: "USD").suffix(4).map { [$0.row.gross, $0.row.refunds, $0.row.net] }
        #expect(usd == [[9_990, 0, 9_990], [9_990, 0, 9_990], [19_980, 0, 19_980], [9_990, 9_990, 0]])
        #expect(figures.revenue(in: "EUR").last.map { [$0.row.gross, $0.row.net] } == [120_000, 120_000])
        #expect(figures.leadingCurrency == "USD")
        let trial = try #require(figures.offers?.offers.first)
        #expect(figures.offers?.offers.count == 1 && trial.offerKind == .freeTrial && trial.converted == 1 && trial.rate == 1)
    }

    @Test func screenAt80Columns() throws {
        let runner = try Self.runner()
        var state = AppState(asOf: Self.asOf)
        try keys("6", state: &state, runner: runner)
        let lines = Self.screen(state)
        #expect(lines[0].contains(" 6 Money "))
        #expect(lines[3].hasPrefix("│               Now          Δ30d         │"))
        #expect(lines[4].hasPrefix("│EUR          10.00        +10.00         │"), "no EUR before June")
        #expect(lines[5].hasPrefix("│USD           9.99          0.00         │"))
        #expect(lines[2].contains("┌ Revenue by month · USD ─"))
        #expect(lines.contains { $0.contains("│2025-05         19.98 ████████████│") })
        #expect(lines.contains { $0.contains("│2025-06          0.00 ▒▒▒▒▒▒      │") }, "June: all of it refunded")
        #expect(lines.contains { $0.contains("Offers started 2024-07 – 2025-06 · by offer") })
        #expect(lines.contains { $0.hasPrefix("│freeTrial    –") && $0.contains("100%") })
        // Amounts of two currencies are never added: no line holds 29.98 or 19.99 or 130.
        #expect(!lines.contains { $0.contains("19.99") || $0.contains("130.") || $0.contains("29.98") })
    }

    /// Net is gross less refunds less upgrade credits, and a wide screen shows every term, so each
    /// row adds up where the reader sees it.
    @Test func wideScreenShowsGrossRefundsAndCredits() throws {
        let runner = try Self.runner()
        var state = AppState(asOf: Self.asOf)
        try keys("6", state: &state, runner: runner)
        let lines = Self.screen(state, width: 140, height: 40)
        #expect(lines.contains { $0.contains("Month           Gross     Refunds    Credits           Net █ net ▒ returned") })
        #expect(lines.contains { $0.contains("│2025-06          9.99        9.99       0.00          0.00 ▒") })
        #expect(lines.contains { $0.contains("│2025-05         19.98        0.00       0.00         19.98 ████") })
    }

    @Test func currencyKeyChartsTheOtherCurrency() throws {
        let runner = try Self.runner()
        var state = AppState(asOf: Self.asOf)
        try keys("6", "c", state: &state, runner: runner)
        let lines = Self.screen(state)
        #expect(lines[2].contains("Revenue by month · EUR"))
        #expect(lines.contains { $0.contains("│2025-06        120.00 ████████████│") })
        #expect(lines.contains { $0.contains("│2025-05          0.00             │") })
        try keys("c", state: &state, runner: runner)
        #expect(Self.screen(state)[2].contains("Revenue by month · USD"))
    }

    @Test func enterListsTheOffersSubscribers() throws {
        let runner = try Self.runner()
        var state = AppState(asOf: Self.asOf)
        // j/k put the cursor on the offer rows (h/l on the movement bars).
        try keys("6", "j", "enter", state: &state, runner: runner)
        #expect(state.pane == .subscribers)
        #expect(state.subscribers.rows.map(\.id) == ["9201"])
        #expect(state.subscribers.populationSize == PopulationSize(figure: 1, subscriptions: 1))
        let lines = Self.screen(state, width: 120, height: 30)
        #expect(lines[1].contains("Money  ›  Subscribers"))
        #expect(lines[2].contains("freeTrial uses started in [2024-07-01, 2025-07-01) (1)"))
        try keys("esc", state: &state, runner: runner)
        #expect(state.pane == .money)
    }

    @Test func sortKeyOrdersByConversionThenP6() throws {
        var pane = MoneyPane()
        func row(_ kind: OfferKind, _ id: String?, converted: Int, lapsed: Int, p6: Double?) -> OfferConversionReport.Row {
            var r = OfferConversionReport.Row(offerKind: kind, offerIdentifier: id)
            (r.started, r.converted, r.lapsed, r.retention6) = (converted + lapsed, converted, lapsed, p6)
            return r
        }
        let rows = [
            row(.freeTrial, nil, converted: 1, lapsed: 3, p6: 0.9), row(.offerCode, "A", converted: 3, lapsed: 1, p6: nil),
            row(.offerCode, "B", converted: 0, lapsed: 0, p6: 0.5), row(.winBack, "W", converted: 1, lapsed: 1, p6: 0.2),
        ]
        let empty = MRRReport(asOf: Self.asOf, by: nil, currency: nil, unpriced: 0, rows: [])
        pane.figures = MoneyFigures(
            asOf: Self.asOf, mrr: empty, mrrBefore: empty,
            revenue: RevenueReport(
                from: Self.asOf, to: Self.asOf, asOf: Self.asOf, by: .month, currency: nil,
                unpriced: 0, rows: []),
            offers: OfferConversionReport(from: Self.asOf, to: Self.asOf, asOf: Self.asOf, offers: rows))
        var state = AppState(asOf: Self.asOf)
        state.pane = .money
        state.money = pane
        state.money.row = 3
        #expect(state.money.offers.map(\.offerIdentifier) == [nil, "A", "B", "W"])
        _ = update(&state, .key(KeyEvent(.char("s"))))
        #expect(state.money.order == .conversion)
        #expect(state.money.offers.map(\.offerIdentifier) == ["A", "W", nil, "B"], "75 %, 50 %, 25 %, unknown last")
        #expect(state.money.row == 1, "the cursor stays on its offer")
        _ = update(&state, .key(KeyEvent(.char("s"))))
        #expect(state.money.offers.map(\.offerIdentifier) == [nil, "B", "W", "A"], "90 %, 50 %, 20 %, unknown last")
        #expect(Self.screen(state).contains { $0.contains("by P6 retention") })
        _ = update(&state, .key(KeyEvent(.char("s"))))
        #expect(state.money.order == .offer)
    }

    /// MRR now and the three sections are asked for at once and read side by side. The first frame
    /// needs one cheap answer, MRR now; the movement (with the MRR line drawn from it), revenue and
    /// offers fill in as their answers arrive, each drawn on its own, a section that comes before
    /// MRR now waits for it, and the last one stops the spinner.
    @Test func sectionsFillInAsTheyArrive() throws {
        let runner = try Self.runner()
        var state = AppState(asOf: Self.asOf)
        let effects = update(&state, .key(KeyEvent(.char("6"))))
        #expect(
            effects
                == [.loadMoney(asOf: Self.asOf, scope: ReportScope())]
                + [.revenue, .offers, .movement].map { .loadMoneySection($0, asOf: Self.asOf, scope: ReportScope()) })
        let (now, sections) = (effects[0], Array(effects.dropFirst()))
        #expect(Self.screen(state)[4].contains("│ Loading…"))

        // The movement before MRR now: kept aside, nothing drawn yet.
        #expect(update(&state, runner.perform(sections[2])).isEmpty)
        #expect(state.money.figures == nil && state.money.loading)
        #expect(Self.screen(state)[4].contains("│ Loading…"))

        _ = update(&state, runner.perform(now))
        var lines = Self.screen(state)
        #expect(lines[4].hasPrefix("│EUR          10.00        +10.00         │"), "MRR now and its change first")
        #expect(lines[5].hasPrefix("│USD           9.99          0.00         │"))
        #expect(lines[4].hasSuffix("│ │ Loading…                         │"), "revenue on its way")
        #expect(state.money.figures?.movement != nil, "the movement that came first is drawn with MRR now")
        #expect(lines[8].contains("⠤⠒⠤ MRR│"), "the MRR line has come (MRR at each month's end is the movement's mrrEnd)")
        #expect(lines.contains { $0.hasPrefix("│ Loading…") }, "offers on its way")
        #expect(state.money.loading, "two sections are still on their way")
        #expect(lines[22].contains("loading…"))

        _ = update(&state, runner.perform(sections[0]))
        lines = Self.screen(state)
        #expect(lines.contains { $0.contains("│2025-05         19.98 ████████████│") })
        #expect(!lines.contains { $0.hasPrefix("│freeTrial") })
        #expect(state.money.loading)
        _ = update(&state, runner.perform(sections[1]))
        #expect(Self.screen(state).contains { $0.hasPrefix("│freeTrial") })
        #expect(!state.money.loading, "the last to arrive stops the spinner")
        var driven = AppState(asOf: Self.asOf)
        try keys("6", state: &driven, runner: runner)
        #expect(Self.screen(state) == Self.screen(driven), "the same pane as loaded in one go")
        #expect(!Self.screen(state)[22].contains("loading…"))
    }

    /// The runner reads MRR now and the three sections side by side: each answer arrives once,
    /// equal to the section read on its own.
    @Test func theRunnerReadsTheSectionsSideBySide() throws {
        let runner = try Self.runner()
        var state = AppState(asOf: Self.asOf)
        let sections = update(&state, .key(KeyEvent(.char("6"))))
        let answers = Mutex<[Action]>([])
        let done = DispatchGroup()
        for section in sections {
            done.enter()
            runner.run(section) { action in
                answers.withLock { $0.append(action) }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        let arrived = answers.withLock { $0 }
        #expect(arrived.count == 4)
        for section in sections { #expect(arrived.contains(runner.perform(section))) }
    }

    /// Keys act while sections load, and an answer for an as-of the pane has left is dropped.
    @Test func keysStayLiveAndStaleSectionsAreDropped() throws {
        let runner = try Self.runner()
        var state = AppState(asOf: Self.asOf)
        let first = update(&state, .key(KeyEvent(.char("6"))))
        #expect(update(&state, runner.perform(first[0])).isEmpty, "the sections were asked for with MRR now")
        _ = update(&state, .key(KeyEvent(.char("c"))))
        #expect(state.money.shownCurrency == "USD", "c charts the next currency before revenue has arrived")
        let revenue = runner.perform(first[1])
        var moved = state
        moved.asOf = Instant(parsing: "2025-05-01")!
        _ = update(&moved, revenue)
        #expect(moved.money.figures?.revenue == nil, "an answer for 2025-06-15 is not the pane's at 2025-05-01")
        #expect(update(&moved, runner.perform(first[0])).isEmpty)
        _ = update(&state, revenue)
        #expect(state.money.figures?.revenue != nil)
    }

    @Test func aStoreWithoutPricesSaysSo() throws {
        var state = AppState(asOf: SampleStore.asOf)
        try keys("6", state: &state, runner: try SampleStore.runner())
        #expect(Self.screen(state).contains { $0.contains("No priced charge yet") })
    }
}
