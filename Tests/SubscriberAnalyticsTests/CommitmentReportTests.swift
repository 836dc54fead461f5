import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

extension StoreBuilder {
    /// Payment `k` of 12 of a commitment to `pro.annual` at 10.99 EUR a month (131.88 in all).
    mutating func monthlyPayment(_ original: String, _ k: Int, _ start: String, _ end: String, ends: String) {
        var t = TransactionFact(
            transactionId: "\(original)\(k)", originalTransactionId: original, productId: "pro.annual",
            purchaseDate: day(start), expiresDate: day(end), price: 10_990, currency: "EUR", signedDate: day(start))
        t.billingPlanType = "MONTHLY"
        t.commitment = TransactionCommitment(
            billingPeriodNumber: k, totalBillingPeriods: 12, commitmentExpiresDate: day(ends), commitmentPrice: 131_880)
        add(DocumentFacts(format: .v2Notification, transactions: [t]))
    }
}

/// docs/metrics.md, "MRR" and "Committed revenue", through the store. `pro.annual` is sold upfront
/// (U: 99.99 EUR for 2026-01-10 to 2027-01-10) and monthly with a commitment (M: 10.99 EUR a month
/// from 2026-03-02, commitment renewal turned off on 2026-06-15 during payment 4, payments to 12).
@Suite struct CommitmentReportTests {
    static func store() throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        b.charge("U", "U1", "2026-01-10", "2027-01-10", 99_990, "EUR", product: "pro.annual")
        let starts = [
            "2026-03-02", "2026-04-02", "2026-05-02", "2026-06-02", "2026-07-02", "2026-08-02", "2026-09-02", "2026-10-02",
            "2026-11-02", "2026-12-02", "2027-01-02", "2027-02-02", "2027-03-02",
        ]
        for k in 1...12 { b.monthlyPayment("M", k, starts[k - 1], starts[k], ends: "2027-03-02") }
        b.notification("M", "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: "2026-06-15", autoRenew: false)
        return try b.build()
    }

    static func line(_ r: MRRReport) -> [String] {
        r.rows.map { "\($0.key ?? "-") \($0.currency) \($0.subscriptions) \($0.mrr) \($0.commitments) \($0.committed)" }
    }

    @Test func monthlyPaymentsAreAMonthAndCommittedRevenueFalls() throws {
        let analytics = try Self.store()
        // U: 99.99 / 12 (the product bills yearly: its upfront periods say so, not M's monthly
        // payments); M: 10.99. (99 990 + 12 × 10 990) / 12 = 19 322.5 → 19 323.
        #expect(Self.line(try analytics.mrr(asOf: day("2026-06-20"))) == ["- EUR 2 19323 1 87920"])
        // MRR is unchanged while payments remain; committed revenue falls by a payment a month.
        #expect(Self.line(try analytics.mrr(asOf: day("2026-07-20"))) == ["- EUR 2 19323 1 76930"])
        #expect(Self.line(try analytics.mrr(asOf: day("2027-02-20"))) == ["- EUR 1 10990 1 0"])
        // After payment 12 the run has ended (voluntary): nothing is left.
        #expect(try analytics.mrr(asOf: day("2027-03-10")).rows.isEmpty)
        let m = try report(analytics, "M", asOf: "2027-03-10")
        #expect(m.expirationReason == .voluntary)
    }

    @Test func planSelectsEitherKind() throws {
        let analytics = try Self.store()
        var scope = ReportScope()
        scope.plan = .monthly
        #expect(Self.line(try analytics.mrr(asOf: day("2026-06-20"), scope: scope)) == ["- EUR 1 10990 1 87920"])
        scope.plan = .upfront
        #expect(Self.line(try analytics.mrr(asOf: day("2026-06-20"), scope: scope)) == ["- EUR 1 8333 0 0"])
        #expect(
            Self.line(try analytics.mrr(asOf: day("2026-06-20"), by: .product)) == ["pro.annual EUR 2 19323 1 87920"])
    }

    /// On the day of a charge or of the end, before and after noon: committed revenue at as-of
    /// counts the charges started at or before it (payment 5 at 2026-07-02 00:00, the end at
    /// 2027-03-02 00:00), whichever way the store counts as-of's day. Without `committed` only
    /// MRR is read.
    @Test func committedRevenueOnTheDayOfAChargeAndOfTheEnd() throws {
        let analytics = try Self.store()
        let instants = [
            "2026-07-01T11:59:59Z", "2026-07-01T23:59:59.999Z", "2026-07-02T00:00:00Z", "2026-07-02T11:00:00Z",
            "2026-07-02T13:00:00Z", "2027-03-01T23:00:00Z", "2027-03-02T00:00:00Z", "2027-03-02T13:00:00Z",
        ].map { Instant(parsing: $0)! }
        let reports = try analytics.mrr(at: instants)
        #expect(
            reports.map { $0.rows.map { "\($0.commitments) \($0.committed)" } } == [
                ["1 87920"], ["1 87920"], ["1 76930"], ["1 76930"], ["1 76930"], ["1 0"], [], [],
            ])
        let mrrOnly = try analytics.mrr(at: instants, committed: false)
        #expect(mrrOnly.map { $0.rows.map(\.commitments) } == [[0], [0], [0], [0], [0], [0], [], []])
        #expect(mrrOnly.map { $0.rows.map(\.mrr) } == reports.map { $0.rows.map(\.mrr) })
    }

    @Test func jsonCarriesCommitmentsAndCommitted() throws {
        let json = MRROutput(try Self.store().mrr(asOf: day("2026-06-20"))).json
        #expect(json.contains(#""commitments":1"#) && json.contains(#""committed":87.92"#))
    }

    /// Committed revenue over time: at each month's end, the payments left of M's commitment
    /// (8, 7, 6 of 10.99 EUR after payments 4, 5, 6); U, paid upfront, commits nothing.
    @Test func theCommittedSeriesFallsByOnePaymentAMonth() throws {
        let s = try Self.store().series(
            .committed, from: day("2026-06-01"), to: day("2026-09-01"), asOf: day("2027-06-01"), by: .month)
        #expect(s.lines == [MetricSeries.Line(currency: "EUR", values: [87_920, 76_930, 65_940])])
        let json = SeriesOutput(s, store: "test.sqlite").json
        #expect(json.contains(#""end":"2026-07-01T00:00:00Z","value":87.92"#), "\(json)")
    }

    @Test func theSubscriberReportGivesTheRunningCommitment() throws {
        let analytics = try Self.store()
        let m = try report(analytics, "M", asOf: "2026-06-20")
        #expect(
            m.commitment?.summary
                == "monthly payments, 12-month commitment — payment 4 of 12, commitment ends 2027-03-02; "
                + "renews: no (turned off 2026-06-15); 8 payments of 10.99 EUR remain (87.92)")
        let json = SubscriberOutput(m).json
        #expect(
            json.contains(
                #""commitment":{"period":4,"of":12,"ends":"2027-03-02T00:00:00Z","price":131.88,"currency":"EUR","autoRenew":false,"remaining":87.92}"#
            ), "\(json)")
        #expect(json.contains(#""billingPlan":"monthly","commitmentPeriod":4,"commitmentPeriods":12"#))
        let u = try report(analytics, "U", asOf: "2026-06-20")
        #expect(u.commitment == nil)
        #expect(
            SubscriberOutput(u).json.contains(#""billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null"#))
        #expect(SubscriberOutput(u).json.contains(#""commitment":null"#))
    }

    @Test func revenueAndRefundsByPlan() throws {
        let analytics = try Self.store()
        var scope = ReportScope()
        let (from, to, asOf) = (day("2026-01-01"), day("2026-07-01"), day("2026-06-20"))
        scope.plan = .monthly
        let monthly = try analytics.revenue(from: from, to: to, asOf: asOf, scope: scope)
        #expect(monthly.rows.map { "\($0.currency) \($0.charged) \($0.gross)" } == ["EUR 4 43960"])
        #expect(try analytics.refundRate(from: from, to: to, asOf: asOf, scope: scope).rows.map(\.charged).reduce(0, +) == 4)
        scope.plan = .upfront
        let upfront = try analytics.revenue(from: from, to: to, asOf: asOf, scope: scope)
        #expect(upfront.rows.map { "\($0.currency) \($0.charged) \($0.gross)" } == ["EUR 1 99990"])
    }

    /// Billing failures by the plan of the period that failed to renew. U's upfront month fails on
    /// 2026-02-10 and is never paid (its 60-day retry ends 2026-04-11: expired), as does T's free
    /// trial on 2026-01-12 (upfront: no `MONTHLY`); M's payment 2 fails on 2026-05-02 and payment 3 is
    /// charged on 2026-05-10 (recovered).
    @Test func recoveryByPlan() throws {
        var b = StoreBuilder()
        b.period("U", "U1", "2026-01-10", "2026-02-10")
        b.notification("U", "DID_FAIL_TO_RENEW", at: "2026-02-10", transaction: "U1")
        b.period("T", "T1", "2026-01-05", "2026-01-12", trial: true)
        b.notification("T", "DID_FAIL_TO_RENEW", at: "2026-01-12", transaction: "T1")
        b.monthlyPayment("M", 1, "2026-03-02", "2026-04-02", ends: "2027-03-02")
        b.monthlyPayment("M", 2, "2026-04-02", "2026-05-02", ends: "2027-03-02")
        b.notification("M", "DID_FAIL_TO_RENEW", at: "2026-05-02", transaction: "M2")
        b.monthlyPayment("M", 3, "2026-05-10", "2026-06-10", ends: "2027-03-10")
        let analytics = try b.build()
        func line(_ plan: BillingPlan?) throws -> String {
            var scope = ReportScope()
            scope.plan = plan
            let r = try analytics.recovery(from: day("2026-01-01"), to: day("2026-06-01"), asOf: day("2026-06-01"), scope: scope)
            return "\(r.failures) \(r.recovered) \(r.expired) \(r.pending)"
        }
        #expect(try line(nil) == "3 1 2 0")
        #expect(try line(.monthly) == "1 1 0 0")
        #expect(try line(.upfront) == "2 0 2 0")
    }

    /// The kept counts of a store with commitments equal the same counts rebuilt from its facts.
    @Test func keptCountsRebuildFromTheFacts() throws {
        let counts = try KeptCounts.of(try Self.store().database)
        #expect(counts.differing == [])
        #expect(counts.kept["mrrDay"]?.contains { $0.contains("monthly") } == true)
    }
}
