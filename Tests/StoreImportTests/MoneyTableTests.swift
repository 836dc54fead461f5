import ReportOutputs
import SubscriptionModel
import Testing

@testable import SubscriberAnalytics
@testable import subdash

/// The `--format table` text of every money report with counts in the thousands: grouped as
/// people read them (`12,345`), like the amounts beside them.
@Suite struct MoneyTableTests {
    static let from = Instant(parsing: "2025-01-01")!, to = Instant(parsing: "2025-02-01")!,
        asOf = Instant(parsing: "2025-03-01")!

    @Test func refundsGroupTheirCounts() {
        let r = RefundRateReport(
            from: Self.from, to: Self.to, asOf: Self.asOf, by: .month,
            rows: [RefundRateReport.Row(key: "2025-01", charged: 12_345, refunded: 1_234)])
        #expect(
            RefundsOutput(r).table == """
                Refund rate 2025-01-01T00:00:00Z – 2025-02-01T00:00:00Z, as of 2025-03-01T00:00:00Z
                month    charged  refunded   rate
                ───────  ───────  ────────  ─────
                2025-01   12,345     1,234  10.0%
                """)
    }

    @Test func revenueGroupsItsCounts() {
        var row = RevenueReport.Row(key: "2025-01", currency: "USD")
        (row.charged, row.gross, row.refunded, row.refunds, row.proceeds) = (1_000, 9_990_000, 2_500, 24_975_000, -10_489_500)
        let r = RevenueReport(
            from: Self.from, to: Self.to, asOf: Self.asOf, by: .month, currency: nil, unpriced: 1_001, rows: [row])
        #expect(
            RevenueOutput(r).table == """
                Revenue 2025-01-01T00:00:00Z – 2025-02-01T00:00:00Z, as of 2025-03-01T00:00:00Z
                month    charged         gross  refunded        refunds  upgrade credits             net   est. proceeds
                ───────  ───────  ────────────  ────────  ─────────────  ───────────────  ──────────────  ──────────────
                2025-01    1,000  9,990.00 USD     2,500  24,975.00 USD         0.00 USD  -14,985.00 USD  -10,489.50 USD
                1,001 items without a price are not counted (`subdash prices import`)
                """)
    }

    @Test func mrrGroupsItsCounts() {
        let r = MRRReport(
            asOf: Self.asOf, by: nil, currency: nil, unpriced: 2_000,
            rows: [
                MRRReport.Row(
                    key: nil, currency: "EUR", subscriptions: 1_234_567, mrr: 12_333_333_000, commitments: 12_345,
                    committed: 1_078_500_000)
            ])
        #expect(
            MRROutput(r).table == """
                MRR at 2025-03-01T00:00:00Z
                currency  subscriptions                MRR  commitments         committed
                ────────  ─────────────  ─────────────────  ───────────  ────────────────
                EUR           1,234,567  12,333,333.00 EUR       12,345  1,078,500.00 EUR
                2,000 subscriptions without a price are not counted (`subdash prices import`)
                """)
    }

    @Test func offersGroupTheirCounts() {
        var row = OfferConversionReport.Row(offerKind: .freeTrial, offerIdentifier: nil)
        (row.started, row.converted, row.lapsed, row.switched) = (10_000, 6_000, 3_000, 1_000)
        let r = OfferConversionReport(from: Self.from, to: Self.to, asOf: Self.asOf, offers: [row])
        #expect(
            OffersOutput(r).table == """
                Offers started 2025-01-01T00:00:00Z – 2025-02-01T00:00:00Z, as of 2025-03-01T00:00:00Z
                offer      identifier  started  converted  lapsed  switched  pending  conversion  P3  P6
                ─────────  ──────────  ───────  ─────────  ──────  ────────  ───────  ──────────  ──  ──
                freeTrial  –            10,000      6,000   3,000     1,000        0       66.7%   –   –
                """)
    }

    @Test func ltvGroupsItsCounts() {
        let cohort = LTVReport.Row(month: Month(year: 2025, month: 1), currency: "USD", started: 4_321, rate: [0.5], ltv: [9_990])
        var average = cohort
        average.month = nil
        let r = LTVReport(
            asOf: Self.asOf, periods: 1, currency: nil, mixedCurrency: 1_500, unpriced: 2_500,
            cohorts: [cohort], average: [average])
        #expect(
            LTVOutput(r).table == """
                Realized LTV per member as of 2025-03-01T00:00:00Z
                cohort   currency  started        P1
                ───────  ────────  ───────  ────────
                2025-01  USD         4,321  9.99 USD
                average  USD         4,321  9.99 USD
                2,500 members without a priced paid period and 1,500 paying in two currencies are left out
                """)
    }
}
