import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

/// docs/metrics.md, "Billing plans and commitments": `--plan` on states and events counts a state
/// under the billing plan of the period it is about, an event under that of the period it belongs
/// to (as `--product` looks at them). Two subscribers of `pro.annual`, in EUR:
/// U pays a year upfront (99.99) from 2026-01-10 and turns auto-renew off on 2026-04-20;
/// M paid a year upfront from 2025-03-02, then renewed into monthly payments of a 12-month
/// commitment (10.99 each) on 2026-03-02, 04-02, 05-02 and 06-02 (to 07-02), and was refunded
/// payment 1 on 2026-04-25, during payment 2 (a late refund: the run goes on).
@Suite struct PlanStatesEventsTests {
    static func store() throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        b.charge("U", "U1", "2026-01-10", "2027-01-10", 99_990, "EUR", product: "pro.annual")
        b.notification("U", "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: "2026-04-20", autoRenew: false)
        b.charge("M", "M0", "2025-03-02", "2026-03-02", 99_990, "EUR", product: "pro.annual")
        let starts = ["2026-03-02", "2026-04-02", "2026-05-02", "2026-06-02", "2026-07-02"]
        for k in 1...4 {
            var t = TransactionFact(
                transactionId: "M\(k)", originalTransactionId: "M", productId: "pro.annual", purchaseDate: day(starts[k - 1]),
                expiresDate: day(starts[k]), price: 10_990, currency: "EUR", signedDate: day(starts[k - 1]))
            t.billingPlanType = "MONTHLY"
            t.commitment = TransactionCommitment(
                billingPeriodNumber: k, totalBillingPeriods: 12, commitmentExpiresDate: day("2027-03-02"),
                commitmentPrice: 131_880)
            if k == 1 {
                t.revocationDate = day("2026-04-25")
                t.revocationType = "REFUND_FULL"
            }
            b.add(DocumentFacts(format: .v2Notification, transactions: [t]))
        }
        return try b.build()
    }

    static func scope(_ plan: BillingPlan?) -> ReportScope {
        var scope = ReportScope()
        scope.plan = plan
        return scope
    }

    /// The numbers of a report's JSON object `counts`, the zeros left out.
    static func counts(_ json: String) throws -> [String: Int] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let counts = try #require(object["counts"] as? [String: Any])
        return counts.compactMapValues { ($0 as? NSNumber)?.intValue }.filter { $0.value != 0 }
    }

    static func states(_ analytics: SubscriberAnalytics, _ at: Instant, _ plan: BillingPlan?) throws -> [String: Int] {
        try counts(StatesOutput(try analytics.states(asOf: at, scope: scope(plan))).json)
    }

    static func hours(_ date: String, _ h: Int64) -> Instant { Instant(milliseconds: day(date).milliseconds + h * 3_600_000) }

    /// On 2026-06-20 U is in its upfront year, M in a monthly payment; on 2026-02-15 both pay
    /// upfront. As-of inside a day reads that day's segments from the rows (06:00, past the
    /// midnight M's payment 1 began) or subtracts them from the next day's sums (18:00 the day
    /// before, when M's upfront year still runs).
    @Test func reportStatesCountsEachPlanApart() throws {
        let analytics = try Self.store()
        let june = day("2026-06-20")
        #expect(try Self.states(analytics, june, nil) == ["standard": 2])
        #expect(try Self.states(analytics, june, .upfront) == ["standard": 1])
        #expect(try Self.states(analytics, june, .monthly) == ["standard": 1])
        let json = StatesOutput(try analytics.states(asOf: june, scope: Self.scope(.monthly))).json
        #expect(json.contains(#""active":1"#), "\(json)")
        let february = day("2026-02-15")
        #expect(try Self.states(analytics, february, .upfront) == ["standard": 2])
        #expect(try Self.states(analytics, february, .monthly) == [:])
        let morning = Self.hours("2026-03-02", 6)
        #expect(try Self.states(analytics, morning, .upfront) == ["standard": 1])
        #expect(try Self.states(analytics, morning, .monthly) == ["standard": 1])
        let evening = Self.hours("2026-03-01", 18)
        #expect(try Self.states(analytics, evening, .upfront) == ["standard": 2])
        #expect(try Self.states(analytics, evening, .monthly) == [:])
        // After U's year and M's last payment (07-02) both have expired, each under its last period's plan.
        let later = day("2027-02-01")
        #expect(try Self.states(analytics, later, .upfront) == ["expired": 1])
        #expect(try Self.states(analytics, later, .monthly) == ["expired": 1])
        #expect(try Self.states(analytics, later, nil) == ["expired": 2])
    }

    /// Events in [2025-01-01, 2026-07-01) as of 2026-06-20: activations of M (2025-03-02, its
    /// upfront year) and U (2026-01-10) are upfront; M's renewal into payment 1 (2026-03-02) is
    /// about the period it starts, monthly, as are the renewals into payments 2–4; U's
    /// auto-renew-off (04-20) belongs to its upfront year; M's refund (04-25) to payment 2, the
    /// latest period started by then, monthly.
    @Test func reportEventsCountsEachPlanApart() throws {
        let analytics = try Self.store()
        func events(_ plan: BillingPlan?, from: String = "2025-01-01", to: String = "2026-07-01") throws -> [String: Int] {
            try Self.counts(
                EventsOutput(
                    try analytics.events(from: day(from), to: day(to), asOf: day("2026-06-20"), scope: Self.scope(plan))
                ).json)
        }
        #expect(try events(nil) == ["activation": 2, "renewal": 4, "autoRenewOff": 1, "refund": 1])
        #expect(try events(.upfront) == ["activation": 2, "autoRenewOff": 1])
        #expect(try events(.monthly) == ["renewal": 4, "refund": 1])
        // A range that starts and ends inside days: 2026-03-02 12:00 to 2026-04-25 12:00 reads the
        // partial days from the rows (the renewal into payment 1 at midnight is outside it).
        let partial = try Self.counts(
            EventsOutput(
                try analytics.events(
                    from: Self.hours("2026-03-02", 12), to: Self.hours("2026-04-25", 12), asOf: day("2026-06-20"),
                    scope: Self.scope(.monthly))
            ).json)
        #expect(partial == ["renewal": 1, "refund": 1])
        // Daily sparklines read the same counts.
        let daily = try analytics.dailyEvents(
            from: day("2026-04-01"), days: 30, asOf: day("2026-06-20"), scope: Self.scope(.upfront))
        #expect(daily[.autoRenewOff]?[19] == 1 && daily[.renewal] == nil && daily[.refund] == nil)
    }

    /// The list behind a count (enter on it) holds the subscriptions the count counts, plan by plan.
    @Test func theDrillDownListsMatchTheCounts() throws {
        let analytics = try Self.store()
        let asOf = day("2026-06-20")
        func ids(_ population: SubscriberPopulation, _ plan: BillingPlan?) throws -> [String] {
            let size = try analytics.size(of: population, asOf: asOf, scope: Self.scope(plan))
            let rows = try analytics.subscriberList(
                offset: 0, limit: 10, asOf: asOf, scope: Self.scope(plan), population: population)
            #expect(size.subscriptions == rows.count)
            return rows.map(\.id).sorted() + ["\(size.figure)"]
        }
        let standard = SubscriberPopulation.states([.standard])
        #expect(try ids(standard, nil) == ["M", "U", "2"])
        #expect(try ids(standard, .upfront) == ["U", "1"])
        #expect(try ids(standard, .monthly) == ["M", "1"])
        #expect(try ids(.statesAt([.standard], at: day("2026-02-15")), .monthly) == ["0"])
        let (from, to) = (day("2025-01-01"), day("2026-07-01"))
        #expect(try ids(.events(.renewal, from: from, to: to), .monthly) == ["M", "4"])
        #expect(try ids(.events(.renewal, from: from, to: to), .upfront) == ["0"])
        #expect(try ids(.events(.activation, from: from, to: to), .upfront) == ["M", "U", "2"])
        #expect(try ids(.events(.refund, from: from, to: to), .monthly) == ["M", "1"])
        #expect(try ids(.events(.autoRenewOff, from: from, to: to), .monthly) == ["0"])
    }

    /// Series of a state or an event type count one plan with it, as the reports do.
    @Test func seriesOfAStateOrAnEventCountOnePlan() throws {
        let analytics = try Self.store()
        let series = { (metric: SeriesMetric, plan: BillingPlan?) in
            try analytics.series(
                metric, from: day("2026-01-01"), to: day("2026-07-01"), asOf: day("2026-06-20"), by: .month,
                scope: Self.scope(plan)
            ).lines.map(\.values)
        }
        // Each month's end (June's cut short at as-of): M pays monthly from March.
        #expect(try series(.state(.standard), .monthly) == [[0, 0, 1, 1, 1, 1]])
        #expect(try series(.state(.standard), .upfront) == [[2, 2, 1, 1, 1, 1]])
        #expect(try series(.event(.renewal), .monthly) == [[0, 0, 1, 1, 1, 1]])
        #expect(try series(.event(.renewal), .upfront) == [[0, 0, 0, 0, 0, 0]])
    }

    @Test func keptCountsRebuildFromTheFactsWithThePlanInTheirKeys() throws {
        let counts = try KeptCounts.of(try Self.store().database)
        #expect(counts.differing == [])
        #expect(counts.kept["segmentDay"]?.contains { $0.contains("monthly") } == true)
        #expect(counts.kept["eventDay"]?.contains { $0.contains("monthly") } == true)
    }

    /// `report offers --plan`: an offer use counts under its first period's plan. T's free week of
    /// `pro.annual` belongs to monthly payments (billed `MONTHLY`) and converts into payment 1;
    /// V's free week converts into an upfront year. Both from 2026-02-01, converted 02-08.
    @Test func reportOffersCountsEachPlanApart() throws {
        var b = StoreBuilder()
        func add(_ original: String, _ id: String, _ start: String, _ end: String, trial: Bool, monthly: Bool) {
            var t = TransactionFact(
                transactionId: id, originalTransactionId: original, productId: "pro.annual", purchaseDate: day(start),
                expiresDate: day(end), price: trial ? 0 : monthly ? 10_990 : 99_990, currency: "EUR", signedDate: day(start))
            if trial {
                t.offerType = 1
                t.offerDiscountType = "FREE_TRIAL"
            }
            if monthly {
                t.billingPlanType = "MONTHLY"
                t.commitment = TransactionCommitment(
                    billingPeriodNumber: trial ? nil : 1, totalBillingPeriods: 12, commitmentExpiresDate: day("2027-02-08"),
                    commitmentPrice: 131_880)
            }
            b.add(DocumentFacts(format: .v2Notification, transactions: [t]))
        }
        add("T", "T0", "2026-02-01", "2026-02-08", trial: true, monthly: true)
        add("T", "T1", "2026-02-08", "2026-03-08", trial: false, monthly: true)
        add("V", "V0", "2026-02-01", "2026-02-08", trial: true, monthly: false)
        add("V", "V1", "2026-02-08", "2027-02-08", trial: false, monthly: false)
        let analytics = try b.build()
        let (from, to, asOf) = (day("2026-01-01"), day("2026-07-01"), day("2026-03-01"))
        func trials(_ plan: BillingPlan?) throws -> String {
            let r = try analytics.offerConversion(from: from, to: to, asOf: asOf, scope: Self.scope(plan))
            return r.offers.map { "\($0.offerKind.rawValue) \($0.started) \($0.converted)" }.joined(separator: ", ")
        }
        #expect(try trials(nil) == "freeTrial 2 2")
        #expect(try trials(.upfront) == "freeTrial 1 1")
        #expect(try trials(.monthly) == "freeTrial 1 1")
        let uses = SubscriberPopulation.offerUses(.freeTrial, identifier: nil, from: from, to: to)
        for (plan, ids) in [(nil, ["T", "V"]), (BillingPlan.upfront, ["V"]), (.monthly, ["T"])] as [(BillingPlan?, [String])] {
            let rows = try analytics.subscriberList(offset: 0, limit: 10, asOf: asOf, scope: Self.scope(plan), population: uses)
            #expect(rows.map(\.id).sorted() == ids)
            #expect(try analytics.size(of: uses, asOf: asOf, scope: Self.scope(plan)).figure == ids.count)
        }
    }
}
