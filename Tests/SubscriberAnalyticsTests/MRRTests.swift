import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

@Suite struct MRRTests {

    /// docs/metrics.md "MRR": weekly 2.99, monthly 9.99, yearly 59.99 → 27.946 USD; a free trial,
    /// a subscriber in grace (counted) and one in billing retry after grace (not counted).
    func store() throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        b.charge("W", "W1", "2025-06-10", "2025-06-17", 2990, "USD", product: "pro.weekly")
        b.charge("M", "M1", "2025-06-01", "2025-07-01", 9990, "USD", product: "pro.monthly")
        b.charge("Y", "Y1", "2025-01-01", "2026-01-01", 59990, "USD", product: "pro.yearly")
        b.charge("T", "T0", "2025-06-10", "2025-06-17", 0, "USD", product: "pro.monthly", trial: true)
        // In grace on 15 June: the May charge counts once more.
        b.charge("G", "G1", "2025-05-12", "2025-06-12", 9990, "USD", product: "pro.monthly")
        b.add(
            DocumentFacts(
                format: .v2Notification,
                renewals: [
                    RenewalFact(
                        originalTransactionId: "G", instant: day("2025-06-12"), isInBillingRetryPeriod: true,
                        gracePeriodExpiresDate: day("2025-06-28"), transactionId: "G1")
                ]))
        // In billing retry without grace on 15 June: nothing.
        b.charge("R", "R1", "2025-05-12", "2025-06-12", 9990, "USD", product: "pro.monthly")
        b.notification("R", "DID_FAIL_TO_RENEW", at: "2025-06-12", transaction: "R1")
        // Paid in euros: its own row.
        b.charge("E", "E1", "2025-06-05", "2025-07-05", 8990, "EUR", product: "pro.monthly")
        return try b.build()
    }

    @Test func everyBillingLengthMadeMonthly() throws {
        let analytics = try store()
        let r = try analytics.mrr(asOf: day("2025-06-15"))
        #expect(r.rows.map { "\($0.currency) \($0.subscriptions) \($0.mrr)" } == ["EUR 1 8990", "USD 4 37936"])
        // (2.99 × 52 + 9.99 × 12 + 59.99 + 9.99 × 12 (grace)) / 12 = 455.230 / 12 = 37.93583… → 37.936.
        #expect(
            MRROutput(r).json == """
                {"asOf":"2025-06-15T00:00:00Z","by":null,"currency":null,"unpriced":0,"rows":[\
                {"key":null,"currency":"EUR","subscriptions":1,"mrr":8.99,"commitments":0,"committed":0},\
                {"key":null,"currency":"USD","subscriptions":4,"mrr":37.936,"commitments":0,"committed":0}]}
                """)
        let byProduct = try analytics.mrr(asOf: day("2025-06-15"), by: .product)
        #expect(
            byProduct.rows.map { "\($0.key!) \($0.currency) \($0.subscriptions) \($0.mrr)" } == [
                "pro.monthly EUR 1 8990", "pro.monthly USD 2 19980", "pro.weekly USD 1 12957", "pro.yearly USD 1 4999",
            ])
        // After grace ends nobody counts G.
        #expect(
            try analytics.mrr(asOf: day("2025-06-29"), scope: ReportScope(productId: "pro.monthly")).rows.map(\.subscriptions)
                == [1, 1])
        let usd = try analytics.mrr(
            asOf: day("2025-06-15"),
            rates: CurrencyRates(target: "USD", csv: "currency,rate\nEUR,1.1\n", source: "r.csv"))
        #expect(usd.rows.map { "\($0.currency) \($0.subscriptions) \($0.mrr)" } == ["USD 5 47825"])
    }

    /// docs/metrics.md "MRR": converted, each subscription's price is converted and rounded to
    /// milliunits before it is made monthly and summed. Three weekly subscribers at 1.99 EUR with
    /// EUR at 1.0833 USD, and one monthly at 9.99 USD: 1.99 EUR is 2.155767 → 2.156 USD, and
    /// 3 × 2.156 × 52 / 12 = 28.028; with 9.99, 38.018 USD. (Converting the euros' monthly sum
    /// instead, 3 × 1.99 × 52 / 12 × 1.0833 = 28.02497… → 28.025, gives 38.015.)
    @Test func eachPriceIsConvertedAndRoundedBeforeItIsMadeMonthly() throws {
        var b = StoreBuilder()
        for s in ["A", "B", "C"] { b.charge(s, s + "1", "2025-06-10", "2025-06-17", 1990, "EUR", product: "pro.weekly") }
        b.charge("M", "M1", "2025-06-01", "2025-07-01", 9990, "USD", product: "pro.monthly")
        let analytics = try b.build()
        let rates = try CurrencyRates(target: "USD", csv: "currency,rate\nEUR,1.0833\n", source: "r.csv")
        let total = try analytics.mrr(asOf: day("2025-06-15"), rates: rates)
        #expect(total.rows.map { "\($0.currency) \($0.subscriptions) \($0.mrr)" } == ["USD 4 38018"])
        let byCurrency = try analytics.mrr(asOf: day("2025-06-15"), by: .currency, rates: rates)
        #expect(
            byCurrency.rows.map { "\($0.key!) \($0.currency) \($0.subscriptions) \($0.mrr)" } == [
                "EUR USD 3 28028", "USD USD 1 9990",
            ])
        // Unconverted, the euros stay exact: 3 × 1.99 × 52 / 12 = 25.870.
        #expect(
            try analytics.mrr(asOf: day("2025-06-15")).rows.map { "\($0.currency) \($0.mrr)" } == ["EUR 25870", "USD 9990"])
    }

    /// `--by currency` with conversion: each currency's share of the total (8.99 EUR × 1.1 = 9.889
    /// USD); MRR at several instants at once is MRR at each.
    @Test func byCurrencyAndSeveralInstantsAtOnce() throws {
        let analytics = try store()
        let rates = try CurrencyRates(target: "USD", csv: "currency,rate\nEUR,1.1\n", source: "r.csv")
        let byCurrency = try analytics.mrr(asOf: day("2025-06-15"), by: .currency, rates: rates)
        #expect(
            byCurrency.rows.map { "\($0.key!) \($0.currency) \($0.subscriptions) \($0.mrr)" } == [
                "EUR USD 1 9889", "USD USD 4 37936",
            ])
        #expect(
            MRROutput(byCurrency).json.hasPrefix(
                #"{"asOf":"2025-06-15T00:00:00Z","by":"currency","currency":"USD","unpriced":0,"#))
        let instants = ["2025-05-20", "2025-06-01", "2025-06-15", "2025-06-29"].map(day)
        for product in [nil, "pro.monthly"] {
            let scope = ReportScope(productId: product)
            let together = try analytics.mrr(at: instants, scope: scope)
            let apart = try instants.map { try analytics.mrr(asOf: $0, scope: scope) }
            #expect(together == apart)
            #expect(Set(together.map { $0.rows.map(\.mrr) }).count > 1, "not one MRR repeated")
        }
    }

    /// Population agreement on SampleData: MRR at the first of every month equals the sum over
    /// the subscribers' timelines.
    @Test func mrrIsTheSumOfTheSubscribers() throws {
        let p = try MoneyAgreementTests.shared.get()
        let durations = try p.analytics.productDurations()
        var month = Month(year: 2024, month: 2)
        var counted = 0
        while month.start <= p.horizon {
            let t0 = month.start
            var sums: [String: (Int, Int64)] = [:]
            var unpriced = 0
            for (t, money) in p.timelines {
                var index: Int?
                switch t.state(at: t0) {
                case .gracePeriod?: index = t.billingFailure(at: t0)?.periodIndex
                case .billingRetry?, .expired?, nil: index = nil
                default: index = t.periods.firstIndex { $0.covers(t0) }
                }
                guard let i = index, money[i].isCharged else { continue }
                guard let price = money[i].price, let c = money[i].currency else {
                    unpriced += 1
                    continue
                }
                let period = t.periods[i]
                // A monthly payment of a commitment bills one month (docs/metrics.md, "MRR").
                let twelfths =
                    period.billingPlan == .monthly
                    ? 12
                    : period.offerKind == .standard
                        ? durations[period.productId]!.monthlyTwelfths : money[i].monthlyTwelfths
                sums[c, default: (0, 0)].0 += 1
                sums[c]!.1 += price * Int64(twelfths)
                counted += 1
            }
            let sql = try p.analytics.mrr(asOf: t0)
            let got: [String] = sql.rows.map { "\($0.currency) \($0.subscriptions) \($0.mrr)" }
            let expected: [String] = sums.keys.sorted().map { c in
                let (n, twelfths) = sums[c]!
                return "\(c) \(n) \(MoneyMath.scaled(twelfths, by: 1, over: 12))"
            }
            #expect(got == expected, "mrr at \(month)")
            #expect(sql.unpriced == unpriced, "unpriced at \(month)")
            month = month.next
        }
        #expect(counted > 2500)
    }
}
