import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

/// docs/metrics.md, "Billing plans and commitments": `--plan` on cohorts and realized LTV counts
/// a member under its first paid period's plan. Three January 2026 members, all in EUR:
/// A pays `pro.monthly` upfront (9.99) on 01-05, 02-05 and 03-05 and ends on 04-05 with 3 paid
/// periods; Y pays `pro.annual` upfront (99.99) on 01-10, open; M pays payments 1–5 of a
/// commitment to `pro.annual` (10.99 each) on 01-02 … 05-02, open.
@Suite struct PlanCohortTests {
    static func store() throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        b.charge("A", "A1", "2026-01-05", "2026-02-05", 9_990, "EUR")
        b.charge("A", "A2", "2026-02-05", "2026-03-05", 9_990, "EUR")
        b.charge("A", "A3", "2026-03-05", "2026-04-05", 9_990, "EUR")
        b.charge("Y", "Y1", "2026-01-10", "2027-01-10", 99_990, "EUR", product: "pro.annual")
        let starts = ["2026-01-02", "2026-02-02", "2026-03-02", "2026-04-02", "2026-05-02", "2026-06-02"]
        for k in 1...5 { b.monthlyPayment("M", k, starts[k - 1], starts[k], ends: "2027-01-02") }
        return try b.build()
    }

    static func scope(_ plan: BillingPlan?) -> ReportScope {
        var scope = ReportScope()
        scope.plan = plan
        return scope
    }

    /// The January row: started, retained P1…P4, ended P1…P4.
    static func january(_ analytics: SubscriberAnalytics, _ plan: BillingPlan?, asOf: Instant) throws -> String {
        let grid = try analytics.cohorts(
            asOf: asOf, periods: 4, from: Month(year: 2026, month: 1), to: Month(year: 2026, month: 1), scope: scope(plan))
        let row = try #require(grid.cohorts.first)
        return "\(row.started) \(row.retained) \(row.ended)"
    }

    @Test func theCohortGridCountsEachPlanApart() throws {
        let analytics = try Self.store()
        let asOf = day("2026-05-20")
        // All: A reached P2 and P3 and ended with 3; M reached P2…P5; Y only started.
        #expect(try Self.january(analytics, nil, asOf: asOf) == "3 [2, 2, 1, 1] [0, 0, 1, 0]")
        #expect(try Self.january(analytics, .upfront, asOf: asOf) == "2 [1, 1, 0, 0] [0, 0, 1, 0]")
        #expect(try Self.january(analytics, .monthly, asOf: asOf) == "1 [1, 1, 1, 1] [0, 0, 0, 0]")
    }

    /// As-of early on 2026-05-02, the day M's payment 5 starts: the day's own steps are read from
    /// the runs, by the same plan.
    @Test func asOfsOwnDayCountsByPlanToo() throws {
        let analytics = try Self.store()
        let asOf = Instant(milliseconds: day("2026-05-02").milliseconds + 6 * 3_600_000)
        #expect(try Self.january(analytics, .monthly, asOf: asOf) == "1 [1, 1, 1, 1] [0, 0, 0, 0]")
        #expect(try Self.january(analytics, .upfront, asOf: asOf) == "2 [1, 1, 0, 0] [0, 0, 1, 0]")
        let late = Instant(milliseconds: day("2026-05-02").milliseconds + 20 * 3_600_000)
        #expect(try Self.january(analytics, .monthly, asOf: late) == "1 [1, 1, 1, 1] [0, 0, 0, 0]")
        let before = Instant(milliseconds: day("2026-05-02").milliseconds - 1)
        #expect(try Self.january(analytics, .monthly, asOf: before) == "1 [1, 1, 1, 0] [0, 0, 0, 0]")
    }

    /// The drill-down behind a cell lists the members its plan counts.
    @Test func theCohortDrillDownSelectsByPlan() throws {
        let analytics = try Self.store()
        let asOf = day("2026-05-20")
        let january = Month(year: 2026, month: 1).index
        for (plan, retainedAtP3) in [(nil, 1), (BillingPlan.upfront, 0), (.monthly, 1)] as [(BillingPlan?, Int)] {
            let started = try analytics.database.count(
                of: .cohort(month: january, billingDays: nil, .started), asOf: asOf.milliseconds, scope: Self.scope(plan).rows)
            #expect(started.members == (plan == nil ? 3 : plan == .upfront ? 2 : 1))
            let retained = try analytics.database.count(
                of: .cohort(month: january, billingDays: nil, .retained(period: 3)), asOf: asOf.milliseconds,
                scope: Self.scope(plan).rows)
            #expect(retained.members == retainedAtP3)
        }
    }

    /// Realized LTV after P1: the mean first payment of the plan's members. All: (9.99 + 99.99 +
    /// 10.99) / 3 = 40.323; upfront: (9.99 + 99.99) / 2 = 54.99; monthly: 10.99, then 21.98 after P2
    /// (M reached P2: S(1) = 1).
    @Test func realizedLTVCountsEachPlanApart() throws {
        let analytics = try Self.store()
        func row(_ plan: BillingPlan?) throws -> LTVReport.Row {
            try #require(try analytics.ltv(asOf: day("2026-05-20"), periods: 2, scope: Self.scope(plan)).cohorts.first)
        }
        #expect(try row(nil).started == 3)
        #expect(try row(nil).ltv[0].map { ($0 * 1000).rounded() / 1000 } == 40_323.333)
        #expect(try row(.upfront).started == 2)
        #expect(try row(.upfront).ltv[0] == 54_990)
        #expect(try row(.monthly).started == 1)
        #expect(try row(.monthly).ltv == [10_990, 21_980])
    }

    @Test func keptCountsRebuildFromTheFacts() throws {
        let counts = try KeptCounts.of(try Self.store().database)
        #expect(counts.differing == [])
        #expect(counts.kept["cohortStepDay"]?.contains { $0.contains("monthly") } == true)
        #expect(counts.kept["ltvMemberMonth"]?.contains { $0.contains("monthly") } == true)
    }
}
