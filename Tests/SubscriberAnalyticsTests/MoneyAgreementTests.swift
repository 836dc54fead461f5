import GRDB
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import Testing

/// Money reports are SQL over the `periodMoney` rows import materialised; `report subscriber`
/// derives one subscriber's money in Swift. On SampleData (v2 priced by the transactions, v1 by
/// a price table) summing the subscribers' money gives exactly the SQL figures.
@Suite struct MoneyAgreementTests {
    struct Population: Sendable {
        let analytics: SubscriberAnalytics
        let timelines: [(SubscriptionTimeline, [PeriodMoney])]
        let horizon: Instant
    }

    static let priceTable = """
        productId,storefront,currency,price,validFrom
        com.example.premium.monthly,,USD,14.99,2024-01-01
        com.example.pro.yearly,,USD,59.99,2024-01-01
        com.example.pro.monthly,,USD,7.99,2024-01-01
        com.example.pro.weekly,,USD,2.99,2024-01-01
        com.example.pro.monthly,,USD,9.99,2024-09-01
        """

    static let shared = Result<Population, any Error> {
        // The store the other agreement tests use: a price table changes no figure but money.
        let analytics = try PopulationAgreementTests.shared.get().analytics
        try PriceTableStore.replace(in: analytics.database, with: PriceTableStore.parse(priceTable, source: "prices.csv"))
        let table = try analytics.database.priceTable()
        let ids = try analytics.database.writer.read { db in
            try String.fetchAll(
                db, sql: "SELECT originalTransactionId FROM subscription WHERE environment = 'Production' ORDER BY 1")
        }
        let timelines = try ids.map { id in
            let t = SubscriptionTimeline.derive(try analytics.database.facts(of: id))
            return (t, t.money(priceTable: table))
        }
        return Population(analytics: analytics, timelines: timelines, horizon: try #require(try analytics.dataHorizon()))
    }

    /// Month by month: gross, refunds, credits, counts and proceeds per currency, and the refund rate.
    @Test func revenueAndRefundsAreTheSumOfTheSubscribers() throws {
        let p = try Self.shared.get()
        var checkedCharges = 0
        var checkedRefunds = 0
        var checkedCredits = 0
        var tablePriced = 0
        var month = Month(year: 2024, month: 1)
        while month <= p.horizon.month {
            let (from, to) = (month.start, month.end)
            var expected: [String: RevenueReport.Row] = [:]
            var unpriced = 0
            var charged = 0
            var refunded = 0
            func inRange(_ t: Instant?) -> Bool { t.map { from <= $0 && $0 < to && $0 <= p.horizon } ?? false }
            for (t, money) in p.timelines {
                for (period, m) in zip(t.periods, money) where m.isCharged {
                    if inRange(period.start) {
                        charged += 1
                        if let r = m.refundAt, r <= p.horizon { refunded += 1 }
                        if let price = m.price, let c = m.currency {
                            expected[c, default: .init(key: nil, currency: c)].charged += 1
                            expected[c]!.gross += price
                            expected[c]!.proceeds += MoneyMath.proceeds(price, ratePercent: m.proceedsRate)
                            checkedCharges += 1
                            if m.priceSource == .table { tablePriced += 1 }
                        } else {
                            unpriced += 1
                        }
                    }
                    if inRange(m.refundAt) {
                        if let a = m.refundAmount, let c = m.currency {
                            expected[c, default: .init(key: nil, currency: c)].refunded += 1
                            expected[c]!.refunds += a
                            expected[c]!.proceeds -= MoneyMath.proceeds(a, ratePercent: m.proceedsRate)
                            checkedRefunds += 1
                        } else {
                            unpriced += 1
                        }
                    }
                    if inRange(m.creditAt) {
                        if let a = m.upgradeCredit, let c = m.currency {
                            expected[c, default: .init(key: nil, currency: c)].upgradeCredits += a
                            expected[c]!.proceeds -= MoneyMath.proceeds(a, ratePercent: m.proceedsRate)
                            checkedCredits += 1
                        } else {
                            unpriced += 1
                        }
                    }
                }
            }
            let sql = try p.analytics.revenue(from: from, to: to, asOf: p.horizon)
            #expect(sql.rows == expected.keys.sorted().map { expected[$0]! }, "revenue \(month)")
            #expect(sql.unpriced == unpriced, "unpriced \(month)")
            let rate = try p.analytics.refundRate(from: from, to: to, asOf: p.horizon)
            #expect(
                rate.rows == [RefundRateReport.Row(key: month.description, charged: charged, refunded: refunded)],
                "refunds \(month)")
            month = month.next
        }
        // The comparison saw every kind of amount, including v1 periods priced by the table.
        #expect(
            checkedCharges > 2000 && checkedRefunds > 30 && checkedCredits > 30 && tablePriced > 500,
            "\(checkedCharges) \(checkedRefunds) \(checkedCredits) \(tablePriced)")
    }
}
