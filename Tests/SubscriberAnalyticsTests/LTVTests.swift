import ReportOutputs
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
            LTVOutput(r).json == """
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
    /// On SampleData (four currencies, v1 priced by the table in USD) the LTV groups are the cohort
    /// grid's members (those whose paid periods mix currencies counted apart), and each USD
    /// group's ltv[1] is the mean first paid price in USD.
    @Test func ltvCohortsAreTheRetentionCohorts() throws {
        let p = try MoneyAgreementTests.shared.get()
        let ltv = try p.analytics.ltv(asOf: p.horizon, periods: 6)
        let grid = try p.analytics.cohorts(asOf: p.horizon, periods: 6)
        // v1 members whose only paid periods were offers have no price (the table prices standard
        // periods only): left out and counted.
        // A subscriber of another storefront with v1 periods (priced by the table in USD) mixes currencies.
        #expect(ltv.mixedCurrency > 0)
        #expect(Set(ltv.cohorts.map(\.currency)) == ["EUR", "GBP", "JPY", "USD"])
        #expect(
            ltv.cohorts.map(\.started).reduce(0, +) + ltv.unpriced + ltv.mixedCurrency
                == grid.cohorts.map(\.started).reduce(0, +))
        #expect(ltv.unpriced > 0)
        // Means of the first counted paid period's price, from the subscribers' own money.
        var firstPrices: [Month: [Int64]] = [:]
        for (t, money) in p.timelines {
            for run in t.runs {
                guard let first = run.firstPaidStart, first <= p.horizon else { continue }
                let i = (run.firstPeriod...run.lastPeriod).first {
                    t.periods[$0].isPaid && !t.periods[$0].isCutByUpgrade && t.periods[$0].start <= p.horizon
                }
                // The USD group: members whose paid periods of the run so far (numbered as LTV numbers
                // them: not cut by an upgrade) are all priced in USD. A refunded period is charged but
                // not paid: 2000000000149000 (2024-08, five paid months at 14.99 USD, then a JPY month
                // refunded nine days in, which ends the run) is a USD member (docs/metrics.md).
                let currencies = Set(
                    (run.firstPeriod...run.lastPeriod).filter {
                        t.periods[$0].start <= p.horizon && t.periods[$0].countsForRetention
                    }
                    .compactMap { money[$0].price == nil ? nil : money[$0].currency })
                guard let i, let price = money[i].price, currencies == ["USD"] else { continue }
                firstPrices[first.month, default: []].append(price)
            }
        }
        for row in ltv.cohorts where row.started > 0 && row.currency == "USD" {
            let prices = firstPrices[row.month!] ?? []
            let mean = Double(prices.reduce(0, +)) / Double(prices.count)
            #expect(row.ltv[0] == mean, "ltv[1] \(row.month!)")
        }
    }
}

extension LTVTests {
    /// docs/metrics.md "Realized LTV per cohort", late refunds: a refunded period is not a paid
    /// period, even when the run goes on. A pays 10.00 USD in January, 12.00 EUR in February from
    /// another storefront (refunded on 03-20, while A3 runs) and 10.00 USD in March: a January
    /// member of the USD group (the refunded euro charge neither mixes its currencies nor counts as
    /// its P2), with two paid periods. B pays 20.00 USD in January and ends. C's first period,
    /// 9.99 USD from 01-20, is refunded on 03-01 while C2 runs: C's first paid period is C2, so C
    /// is a February member with C2 and C3 paid.
    @Test func aLateRefundedPeriodIsNotPaidAndTheRunStaysOneMember() throws {
        var b = StoreBuilder()
        b.charge("A", "A1", "2025-01-10", "2025-02-10", 10000, "USD", storefront: "USA")
        b.charge("A", "A2", "2025-02-10", "2025-03-10", 12000, "EUR", storefront: "FRA", revokedAt: "2025-03-20")
        b.charge("A", "A3", "2025-03-10", "2025-04-10", 10000, "USD", storefront: "USA")
        b.charge("B", "B1", "2025-01-05", "2025-02-05", 20000, "USD")
        b.charge("C", "C1", "2025-01-20", "2025-02-20", 9990, "USD", revokedAt: "2025-03-01")
        b.charge("C", "C2", "2025-02-20", "2025-03-20", 9990, "USD")
        b.charge("C", "C3", "2025-03-20", "2025-04-20", 9990, "USD")
        let analytics = try b.build()
        let asOf = day("2025-04-01")
        let r = try analytics.ltv(
            asOf: asOf, periods: 3, from: Month(year: 2025, month: 1), to: Month(year: 2025, month: 2))
        #expect(r.mixedCurrency == 0 && r.unpriced == 0)
        #expect(r.cohorts.map(\.currency) == ["USD", "USD"])
        // January: A (P2 reached with A3, still in it) and B (ended after P1). S(1) = 1 / (1 + 1).
        // m[1] = (10.00 + 20.00) / 2 = 15.00, m[2] = 10.00 (A3): ltv = 15.00, 15.00 + 0.5 × 10.00.
        // P3 unknown while A is in P2.
        let january = r.cohorts[0]
        #expect(january.started == 2)
        #expect(january.rate == [0.5, nil, nil])
        #expect(january.ltv == [15000, 20000, nil])
        // February: C alone, in P2 (C3) since 03-20: 9.99, then 9.99 + 1 × 9.99.
        let february = r.cohorts[1]
        #expect(february.started == 1)
        #expect(february.rate == [1, nil, nil])
        #expect(february.ltv == [9990, 19980, nil])
        // The cohort grid has the same members in the same months.
        let grid = try analytics.cohorts(
            asOf: asOf, periods: 3, from: Month(year: 2025, month: 1), to: Month(year: 2025, month: 2))
        #expect(grid.cohorts.map(\.started) == [2, 1])
        #expect(grid.cohorts.map { $0.retained[0] } == [1, 1])
        // The refunds counted as refunds, never as a member leaving: no expiration before as-of.
        let events = try analytics.events(from: day("2025-01-01"), to: asOf, asOf: asOf)
        #expect(events.counts[.refund] == 2)
        #expect(events.counts[.expiration] == 1)
    }
}
