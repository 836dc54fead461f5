import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

@Suite struct LTVTests {

    /// docs/metrics.md "Realized LTV per cohort": 10 January members pay 9.99; 6 pay P2 and are
    /// still in it, 4 ended after P1. A euro member, one unpriced (v1, no table) and one paying in
    /// two currencies.
    func store() throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        for i in 0..<10 {
            let s = "U\(i)"
            b.charge(s, "\(s)-1", "2025-01-10", "2025-02-10", 9990, "USD")
            if i < 6 { b.charge(s, "\(s)-2", "2025-02-10", "2025-03-10", 9990, "USD") }
        }
        b.charge("E", "E1", "2025-01-12", "2025-02-12", 8990, "EUR")
        b.v1Period("V", "V1", "2025-01-15", "2025-02-15")
        b.charge("X", "X1", "2025-01-20", "2025-02-20", 8990, "EUR")
        b.charge("X", "X2", "2025-02-20", "2025-03-20", 9990, "USD")
        return try b.build()
    }

    @Test func cumulativeNetRevenuePerMemberWeightedByWhoReachedEachPeriod() throws {
        let r = try store().ltv(
            asOf: day("2025-03-01"), periods: 3, from: Month(year: 2025, month: 1),
            to: Month(year: 2025, month: 1))
        #expect(r.unpriced == 1 && r.mixedCurrency == 1)
        #expect(r.cohorts.map(\.currency) == ["EUR", "USD"])
        let usd = r.cohorts[1]
        #expect(usd.started == 10)
        #expect(usd.rate[0] == 0.6)
        // 9.99, then 9.99 + 0.6 × 9.99 = 15.984; P3 unknown while the six are in P2.
        #expect(usd.ltv[0] == 9990 && usd.ltv[1] == 9990 + 0.6 * 9990 && usd.ltv[2] == nil)
        // The euro member ended after P1: S(1) = 0, so nothing more is added.
        #expect(r.cohorts[0].ltv == [8990, 8990, 8990])
        #expect(
            ReportJSON.ltv(r) == """
                {"asOf":"2025-03-01T00:00:00Z","periods":3,"currency":null,"mixedCurrency":1,"unpriced":1,"cohorts":[\
                {"month":"2025-01","currency":"EUR","started":1,"rate":[0,0,0],"ltv":[8.99,8.99,8.99]},\
                {"month":"2025-01","currency":"USD","started":10,"rate":[0.6,null,null],"ltv":[9.99,15.984,null]}],\
                "average":[{"currency":"EUR","started":1,"rate":[0,0,0],"ltv":[8.99,8.99,8.99]},\
                {"currency":"USD","started":10,"rate":[0.6,null,null],"ltv":[9.99,15.984,null]}]}
                """)
    }

    @Test func withRatesEveryMemberIsInOneGroup() throws {
        let rates = try CurrencyRates(target: "USD", csv: "currency,rate\nEUR,1.1\n", source: "r.csv")
        let r = try store().ltv(
            asOf: day("2025-03-01"), periods: 2, from: Month(year: 2025, month: 1),
            to: Month(year: 2025, month: 1), rates: rates)
        #expect(r.mixedCurrency == 0 && r.unpriced == 1)
        #expect(r.cohorts.map(\.currency) == ["USD"])
        #expect(r.cohorts[0].started == 12)
    }
}

extension LTVTests {
    /// On SampleData (all in USD, v1 priced by the table) the LTV groups are the cohort grid's
    /// members with the grid's rates, and each ltv[1] is the mean first paid price.
    @Test func ltvCohortsAreTheRetentionCohorts() throws {
        let p = try MoneyAgreementTests.shared.get()
        let ltv = try p.analytics.ltv(asOf: p.horizon, periods: 6)
        let grid = try p.analytics.cohorts(asOf: p.horizon, periods: 6)
        // v1 members whose only paid periods were offers have no price (the table prices standard
        // periods only): left out and counted.
        #expect(ltv.mixedCurrency == 0)
        #expect(ltv.cohorts.map(\.currency).allSatisfy { $0 == "USD" })
        #expect(ltv.cohorts.map(\.started).reduce(0, +) + ltv.unpriced == grid.cohorts.map(\.started).reduce(0, +))
        var same = 0
        for (l, g) in zip(ltv.cohorts, grid.cohorts) where l.started == g.started {
            #expect(l.rate == g.rate, "rate \(g.month)")
            same += 1
        }
        #expect(same > 15 && ltv.unpriced > 0)
        // Means of the first counted paid period's price, from the subscribers' own money.
        var firstPrices: [Month: [Int64]] = [:]
        for (t, money) in p.timelines {
            for run in t.runs {
                guard let first = run.firstPaidStart, first <= p.horizon else { continue }
                let i = (run.firstPeriod...run.lastPeriod).first {
                    t.periods[$0].isPaid && !t.periods[$0].isCutByUpgrade && t.periods[$0].start <= p.horizon
                }
                guard let i, let price = money[i].price else { continue }
                firstPrices[first.month, default: []].append(price)
            }
        }
        for row in ltv.cohorts where row.started > 0 {
            let prices = firstPrices[row.month!] ?? []
            #expect(row.ltv[0] == Double(prices.reduce(0, +)) / Double(prices.count), "ltv[1] \(row.month!)")
        }
    }
}
