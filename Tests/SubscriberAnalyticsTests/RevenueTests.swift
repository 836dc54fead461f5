import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

@Suite struct RevenueTests {

    /// docs/metrics.md "Revenue": 9.99 EUR in January, 10.99 USD in February, the January charge
    /// refunded on 20 February.
    func twoCurrencies() throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        b.charge("S", "S1", "2025-01-10", "2025-02-10", 9990, "EUR", storefront: "FRA", revokedAt: "2025-02-20")
        b.charge("S", "S2", "2025-02-10", "2025-03-10", 10990, "USD", storefront: "USA")
        b.v1Period("V", "V1", "2025-01-15", "2025-02-15")
        return try b.build()
    }

    @Test func aRefundCountsInTheMonthTheMoneyWentBack() throws {
        let r = try twoCurrencies().revenue(from: day("2025-01-01"), to: day("2025-03-01"), asOf: day("2025-03-05"), by: .month)
        #expect(
            r.rows.map { "\($0.key!) \($0.currency) \($0.charged) \($0.gross) \($0.refunded) \($0.refunds) \($0.net)" } == [
                "2025-01 EUR 1 9990 0 0 9990",
                "2025-02 EUR 0 0 1 9990 -9990",
                "2025-02 USD 1 10990 0 0 10990",
            ])
        // The v1 period has no price and no table row: counted apart, never as 0.
        #expect(r.unpriced == 1)
        #expect(
            RevenueOutput(r).json == """
                {"from":"2025-01-01T00:00:00Z","to":"2025-03-01T00:00:00Z","asOf":"2025-03-05T00:00:00Z","by":"month",\
                "currency":null,"unpriced":1,"rows":[\
                {"key":"2025-01","currency":"EUR","charged":1,"gross":9.99,"refunded":0,"refunds":0,"upgradeCredits":0,"net":9.99,"proceeds":6.993},\
                {"key":"2025-02","currency":"EUR","charged":0,"gross":0,"refunded":1,"refunds":9.99,"upgradeCredits":0,"net":-9.99,"proceeds":-6.993},\
                {"key":"2025-02","currency":"USD","charged":1,"gross":10.99,"refunded":0,"refunds":0,"upgradeCredits":0,"net":10.99,"proceeds":7.693}]}
                """)
    }

    @Test func withoutGroupingOneRowPerCurrencyAndAsOfCutsTheRange() throws {
        let analytics = try twoCurrencies()
        let r = try analytics.revenue(from: day("2025-01-01"), to: day("2025-03-01"), asOf: day("2025-02-15"))
        // The refund of 20 February is after as-of.
        #expect(
            r.rows.map { "\($0.key ?? "-") \($0.currency) \($0.gross) \($0.refunds) \($0.net)" } == [
                "- EUR 9990 0 9990", "- USD 10990 0 10990",
            ])
        let byStorefront = try analytics.revenue(
            from: day("2025-01-01"), to: day("2025-03-01"), asOf: day("2025-03-05"),
            by: .storefront)
        #expect(byStorefront.rows.map { "\($0.key!) \($0.currency) \($0.net)" } == ["FRA EUR 0", "USA USD 10990"])
    }

    /// EUR at 1.10 in January and 1.05 otherwise: each amount at its own month's rate.
    @Test func conversionUsesTheRateOfEachAmountsMonth() throws {
        let rates = try CurrencyRates(
            target: "usd", csv: "currency,month,rate\nEUR,2025-01,1.10\nEUR,1.05\n", source: "rates.csv")
        let r = try twoCurrencies().revenue(from: day("2025-01-01"), to: day("2025-03-01"), asOf: day("2025-03-05"), rates: rates)
        #expect(r.currency == "USD")
        // 9.99 × 1.10 = 10.989; the refund 9.99 × 1.05 = 10.4895 → 10.490; USD at 1.
        #expect(r.rows.map { "\($0.currency) \($0.gross) \($0.refunds) \($0.net)" } == ["USD 21979 10490 11489"])
        // `--by currency`: the same total, split by the currency each amount was paid in.
        let byCurrency = try twoCurrencies().revenue(
            from: day("2025-01-01"), to: day("2025-03-01"), asOf: day("2025-03-05"),
            by: .currency, rates: rates)
        #expect(
            byCurrency.rows.map { "\($0.key!) \($0.currency) \($0.gross) \($0.refunds) \($0.net)" } == [
                "EUR USD 10989 10490 499", "USD USD 10990 0 10990",
            ])
        #expect(
            RevenueOutput(byCurrency).json.contains(
                #""by":"currency","currency":"USD","unpriced":1,"rows":[{"key":"EUR","currency":"USD","charged":1,"gross":10.989,"#
            ))
        let missing = #expect(throws: AnalyticsError.self) {
            try twoCurrencies().revenue(
                from: day("2025-01-01"), to: day("2025-03-01"), asOf: day("2025-03-05"),
                rates: try CurrencyRates(target: "GBP", csv: "currency,rate\nEUR,0.85\n", source: "r.csv"))
        }
        #expect(missing?.message.hasPrefix("no rate for USD in 2025-02") == true)
    }

    /// Proceeds: 70 % until a year of paid service, 85 % after; `--small-business` 85 % throughout.
    @Test func proceedsFollowThePaidServiceOfEachPeriod() throws {
        var b = StoreBuilder()
        b.charge("Y", "Y1", "2024-01-01", "2025-01-01", 59990, "USD", product: "pro.yearly")
        b.charge("Y", "Y2", "2025-01-01", "2026-01-01", 59990, "USD", product: "pro.yearly")
        let analytics = try b.build()
        let r = try analytics.revenue(from: day("2024-01-01"), to: day("2026-01-01"), asOf: day("2025-06-01"), by: .month)
        #expect(r.rows.map(\.proceeds) == [41993, 50992])
        let small = try analytics.revenue(
            from: day("2024-01-01"), to: day("2026-01-01"), asOf: day("2025-06-01"),
            smallBusiness: true)
        #expect(small.rows.map(\.proceeds) == [50992 * 2])
    }

    @Test func upgradeCreditsCountAtTheCut() throws {
        var b = StoreBuilder()
        b.charge("U", "U1", "2025-01-01", "2026-01-01", 99990, "USD", product: "pro.yearly", upgraded: true)
        b.charge("U", "U2", "2025-10-02", "2025-11-02", 19990, "USD", product: "premium.monthly")
        let r = try b.build().revenue(from: day("2025-01-01"), to: day("2026-01-01"), asOf: day("2025-12-01"), by: .product)
        #expect(
            r.rows.map { "\($0.key!) \($0.gross) \($0.upgradeCredits) \($0.net)" } == [
                "premium.monthly 19990 0 19990", "pro.yearly 99990 24929 75061",
            ])
    }

    @Test func refundRateByMonthOfTheCharge() throws {
        let r = try twoCurrencies().refundRate(from: day("2024-12-01"), to: day("2025-03-01"), asOf: day("2025-03-05"))
        #expect(r.rows.map { "\($0.key) \($0.charged) \($0.refunded)" } == ["2024-12 0 0", "2025-01 2 1", "2025-02 1 0"])
        #expect(r.rows.map(\.rate) == [nil, 0.5, 0])
        // Before the refund happened, January had none.
        let early = try twoCurrencies().refundRate(from: day("2025-01-01"), to: day("2025-02-01"), asOf: day("2025-02-15"))
        #expect(early.rows.map(\.refunded) == [0])
        #expect(
            RefundsOutput(early).json == """
                {"from":"2025-01-01T00:00:00Z","to":"2025-02-01T00:00:00Z","asOf":"2025-02-15T00:00:00Z","by":"month",\
                "rows":[{"key":"2025-01","charged":2,"refunded":0,"rate":0}]}
                """)
    }

    @Test func amountsAreFormattedForReading() {
        #expect(MoneyFormat.text(1_234_567_890, "USD") == "1,234,567.89 USD")
        #expect(MoneyFormat.text(-9990, "EUR") == "-9.99 EUR")
        #expect(MoneyFormat.text(5, "USD") == "0.01 USD")
        #expect(MoneyFormat.plain(9995) == "9.995")
        #expect(MoneyFormat.plain(10000) == "10.00")
    }
}
