import ReportOutputs
import SubscriberAnalytics
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

/// Five subscribers whose retention was worked out by hand (as of 2025-06-15, 3 periods):
/// - A: paid Jan 10, Feb 10, Mar 10, then lapsed Apr 10 → cohort 2025-01, 3 paid, ended.
/// - B: free trial Jan 5, then paid monthly from Jan 12 to Jun 12 → cohort 2025-01 (the trial is not
///   a paid period), 6 paid, open.
/// - C: paid Feb 1, upgraded Feb 15 to premium (the cut period does not count), premium Mar 15, a
///   billing failure Apr 15 recovered Apr 20, renewed May 20 → cohort 2025-02, 4 paid, open.
/// - D: paid Feb 10, lapsed Mar 10; reactivated May 1, renewed Jun 1 → two members: 2025-02 (1 paid,
///   ended) and 2025-05 (2 paid, open).
/// - E: paid Jun 1 → cohort 2025-06, 1 paid, open.
func fiveSubscribers() throws -> SubscriberAnalytics {
    var b = StoreBuilder()
    b.period("A", "A1", "2025-01-10", "2025-02-10")
    b.period("A", "A2", "2025-02-10", "2025-03-10")
    b.period("A", "A3", "2025-03-10", "2025-04-10")
    b.period("B", "B0", "2025-01-05", "2025-01-12", trial: true)
    let months = ["01", "02", "03", "04", "05", "06", "07"]
    for i in 0..<6 { b.period("B", "B\(i + 1)", "2025-\(months[i])-12", "2025-\(months[i + 1])-12") }
    b.period("C", "C1", "2025-02-01", "2025-03-01", upgradedAt: "2025-02-15")
    b.period("C", "C2", "2025-02-15", "2025-03-15", product: "premium.monthly")
    b.period("C", "C3", "2025-03-15", "2025-04-15", product: "premium.monthly")
    b.notification("C", "DID_FAIL_TO_RENEW", at: "2025-04-15", transaction: "C3")
    b.period("C", "C4", "2025-04-20", "2025-05-20", product: "premium.monthly")
    b.period("C", "C5", "2025-05-20", "2025-06-20", product: "premium.monthly")
    b.period("D", "D1", "2025-02-10", "2025-03-10")
    b.period("D", "D2", "2025-05-01", "2025-06-01")
    b.period("D", "D3", "2025-06-01", "2025-07-01")
    b.period("E", "E1", "2025-06-01", "2025-07-01")
    return try b.build()
}

@Suite struct CohortGridTests {
    let asOf = day("2025-06-15")

    /// January: A (3 paid, ended) and B (6 paid, open): retained [2, 2, 1], A ended with 3 → ended
    /// [0, 0, 1]; rates 2/2, 2/2, 1/(1+1). February: C (4 paid, open), D's first run (1 paid, ended):
    /// retained [1, 1, 1], ended [1, 0, 0]; rates 1/2, then ×1/1, ×1/1. May: D's second run (2 paid,
    /// open) is retained at P1 and censored from P2 on. June: E (1 paid, open) censored at P1.
    @Test func everyCellByHand() throws {
        let grid = try fiveSubscribers().cohorts(asOf: asOf, periods: 3)
        #expect(grid.cohorts.map(\.month.description) == ["2025-01", "2025-02", "2025-03", "2025-04", "2025-05", "2025-06"])
        #expect(grid.cohorts.map(\.started) == [2, 2, 0, 0, 1, 1])
        #expect(grid.cohorts.map(\.retained) == [[2, 2, 1], [1, 1, 1], [0, 0, 0], [0, 0, 0], [1, 0, 0], [0, 0, 0]])
        #expect(grid.cohorts.map(\.ended) == [[0, 0, 1], [1, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]])
        #expect(grid.cohorts[0].rate == [1.0, 1.0, 0.5])
        #expect(grid.cohorts[1].rate == [0.5, 0.5, 0.5])
        // Censored: nobody's fate at the step is known, the rate is not known yet.
        #expect(grid.cohorts[4].rate == [1.0, nil, nil])
        #expect(grid.cohorts[5].rate == [nil, nil, nil])
        // Average: retained [2+1+1, 2+1+0, 1+1+0], ended [0+1, 0, 1+0]: 4/5, then 3/3, then 2/3.
        let average = grid.average
        #expect(average.started == 6)
        #expect(average.retained == [4, 3, 2])
        #expect(average.ended == [1, 0, 1])
        #expect(average.rate[0] == 0.8)
        #expect(abs(average.rate[1]! - 0.8) < 1e-12)
        #expect(abs(average.rate[2]! - 8.0 / 15.0) < 1e-12)
    }

    @Test func monthsCanBeChosenAndEmptyOnesAreListed() throws {
        let grid = try fiveSubscribers().cohorts(
            asOf: asOf, periods: 2, from: Month(year: 2025, month: 3),
            to: Month(year: 2025, month: 5))
        #expect(grid.cohorts.map(\.month.description) == ["2025-03", "2025-04", "2025-05"])
        #expect(grid.cohorts.map(\.started) == [0, 0, 1])
    }

    @Test func anEarlierAsOfSeesLess() throws {
        // On 2025-03-20: A has 3 paid (open), B 3 paid, C 2 counted (C2, C3), D run 1 ended Mar 10.
        let grid = try fiveSubscribers().cohorts(asOf: day("2025-03-20"), periods: 2)
        #expect(grid.cohorts.map(\.month.description) == ["2025-01", "2025-02", "2025-03"])
        #expect(grid.cohorts.map(\.started) == [2, 2, 0])
        #expect(grid.cohorts[0].retained == [2, 2])
        #expect(grid.cohorts[0].ended == [0, 0])
        #expect(grid.cohorts[0].rate == [1, 1])
        // February: C open with 2 paid (retained at P1, censored at P2), D ended with 1: P2 is not
        // known yet (the old "eligible" read it as 0 %).
        #expect(grid.cohorts[1].retained == [1, 0])
        #expect(grid.cohorts[1].ended == [1, 0])
        #expect(grid.cohorts[1].rate == [0.5, nil])
    }

    @Test func productFilterUsesTheFirstPaidPeriod() throws {
        let grid = try fiveSubscribers().cohorts(asOf: asOf, periods: 1, scope: ReportScope(productId: "premium.monthly"))
        #expect(grid.cohorts.reduce(0) { $0 + $1.started } == 0)
        let pro = try fiveSubscribers().cohorts(asOf: asOf, periods: 1, scope: ReportScope(productId: "pro.monthly"))
        #expect(pro.cohorts.reduce(0) { $0 + $1.started } == 6)
    }

    @Test func statesAndEventsOfTheSameStore() throws {
        let analytics = try fiveSubscribers()
        let states = try analytics.states(asOf: asOf)
        #expect(states[.standard] == 4)
        #expect(states[.expired] == 1)
        #expect(states.active == 4)
        let june = try analytics.events(from: day("2025-06-01"), to: day("2025-06-16"), asOf: asOf)
        #expect(june[.activation] == 1)
        #expect(june[.renewal] == 2)
        #expect(june[.reactivation] == 0)
        let may = try analytics.events(from: day("2025-05-01"), to: day("2025-06-01"), asOf: asOf)
        #expect(may[.reactivation] == 1)
        #expect(may[.renewal] == 2)  // B May 12, C May 20
        let april = try analytics.events(from: day("2025-04-01"), to: day("2025-05-01"), asOf: asOf)
        #expect(april[.billingIssue] == 1)
        #expect(april[.billingRecovery] == 1)
        #expect(april[.expiration] == 1)  // A on Apr 10
    }

    @Test func emptyStoreGivesHonestZeros() throws {
        let analytics = try StoreBuilder().build()
        #expect(try analytics.dataHorizon() == nil)
        let grid = try analytics.cohorts(asOf: asOf, periods: 3)
        #expect(grid.cohorts.count == 1)
        #expect(grid.cohorts[0].started == 0)
        #expect(grid.average.rate == [nil, nil, nil])
        #expect(try analytics.states(asOf: asOf).total == 0)
        let recovery = try analytics.recovery(from: day("2025-01-01"), to: asOf, asOf: asOf)
        #expect(recovery.failures == 0)
    }
}

/// The Kaplan–Meier product on counts worked out by hand.
@Suite struct KaplanMeierTests {
    @Test func theWorkedExampleOfTheDocs() {
        // 25 members: 10 reached P2, 7 ended after P1, 8 still in P1 (censored).
        #expect(KaplanMeier.rates(retained: [10, 0, 0], ended: [7, 0, 0]) == [10.0 / 17.0, nil, nil])
    }

    @Test func eachStepKeepsOnlyTheKnownFates() {
        // 20 members; P1: 12 retained, 4 ended (4 censored); P2: 6 retained, 3 ended (3 censored);
        // P3: 2 retained, 2 ended. 12/16 = 0.75, × 6/9, × 2/4.
        let rates = KaplanMeier.rates(retained: [12, 6, 2], ended: [4, 3, 2])
        #expect(rates[0] == 0.75)
        #expect(abs(rates[1]! - 0.5) < 1e-12)
        #expect(abs(rates[2]! - 0.25) < 1e-12)
    }

    @Test func zeroStaysZeroAndUnknownStaysUnknown() {
        // Everyone ended with one paid period: 0 at P1 and at every later step (all fates known).
        #expect(KaplanMeier.rates(retained: [0, 0, 0], ended: [3, 0, 0]) == [0, 0, 0])
        // Nobody's fate known at P2: unknown from there on, even if a later step had counts.
        #expect(KaplanMeier.rates(retained: [4, 0, 1], ended: [0, 0, 0]) == [1, nil, nil])
        #expect(KaplanMeier.rates(retained: [], ended: []) == [])
    }

    @Test func everyFateKnownIsTheShareOfTheCohort() {
        // 8 members, all ended: 2 after P1, 3 after P2, 1 after P3, 2 after P4. retained = [6, 3, 2, 0].
        let rates = KaplanMeier.rates(retained: [6, 3, 2, 0], ended: [2, 3, 1, 2])
        for (k, retained) in [6, 3, 2, 0].enumerated() { #expect(abs(rates[k]! - Double(retained) / 8) < 1e-12) }
    }
}

/// Young and yearly cohorts, and one billing duration at a time.
@Suite struct CohortCensoringTests {
    /// November 2025 as the docs' example: 10 monthly members who renewed on Dec 5 (open), 7 who
    /// lapsed on Dec 5 after one paid period, 8 who joined on Nov 25 (still in P1 on Dec 20). And a
    /// yearly cohort of March 2024: 2 renewed in March 2025 (open), 1 lapsed then.
    static func store() throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        for i in 0..<10 {
            b.period("r\(i)", "r\(i)a", "2025-11-05", "2025-12-05")
            b.period("r\(i)", "r\(i)b", "2025-12-05", "2026-01-05")
        }
        for i in 0..<7 { b.period("e\(i)", "e\(i)a", "2025-11-05", "2025-12-05") }
        for i in 0..<8 { b.period("c\(i)", "c\(i)a", "2025-11-25", "2025-12-25") }
        for i in 0..<3 {
            b.period("y\(i)", "y\(i)a", "2024-03-10", "2025-03-10", product: "pro.yearly")
            if i < 2 { b.period("y\(i)", "y\(i)b", "2025-03-10", "2026-03-10", product: "pro.yearly") }
        }
        return try b.build()
    }

    @Test func aYoungCohortIsNotReadAsChurn() throws {
        let grid = try Self.store().cohorts(
            asOf: day("2025-12-20"), periods: 3,
            from: Month(year: 2025, month: 11))
        let november = try #require(grid.cohorts.first)
        #expect(november.month == Month(year: 2025, month: 11))
        #expect(november.started == 25)
        #expect(november.retained == [10, 0, 0])
        #expect(november.ended == [7, 0, 0])
        #expect(november.rate == [10.0 / 17.0, nil, nil])
        #expect(
            CohortsOutput(grid, store: "test.sqlite").json == """
                {"asOf":"2025-12-20T00:00:00Z","periods":3,"cohorts":[\
                {"month":"2025-11","started":25,"retained":[10,0,0],"ended":[7,0,0],"rate":[\(10.0 / 17.0),null,null]},\
                {"month":"2025-12","started":0,"retained":[0,0,0],"ended":[0,0,0],"rate":[null,null,null]}],\
                "average":{"retained":[10,0,0],"ended":[7,0,0],"rate":[\(10.0 / 17.0),null,null]}}
                """)
    }

    @Test func aYearlyCohortsSecondPeriodIsUnknownBeforeItsSecondYear() throws {
        let analytics = try Self.store()
        let march = Month(year: 2024, month: 3)
        // Within the first year: nobody's fate at P1 is known yet.
        let early = try analytics.cohorts(asOf: day("2025-02-01"), periods: 2, from: march, to: march)
        #expect(early.cohorts[0].started == 3)
        #expect(early.cohorts[0].retained == [0, 0])
        #expect(early.cohorts[0].ended == [0, 0])
        #expect(early.cohorts[0].rate == [nil, nil])
        // In the second year: 2 renewed, 1 lapsed with one paid period: P1 = 2/3; P2 needs a third year.
        let second = try analytics.cohorts(asOf: day("2025-12-20"), periods: 2, from: march, to: march)
        #expect(second.cohorts[0].retained == [2, 0])
        #expect(second.cohorts[0].ended == [1, 0])
        #expect(second.cohorts[0].rate == [2.0 / 3.0, nil])
    }

    @Test func oneBillingDurationAtATime() throws {
        let analytics = try Self.store()
        #expect(try analytics.productDurations() == ["pro.monthly": .month, "pro.yearly": .year])
        #expect(try analytics.billingDurations() == [.month, .year])
        // What the Cohorts pane opens on: 25 monthly members against 3 yearly ones.
        #expect(try analytics.mostCommonBillingDuration() == .month)
        #expect(try analytics.database.cohortMembersByProduct(scope: ReportScope().rows) == ["pro.monthly": 25, "pro.yearly": 3])
        let asOf = day("2025-12-20")
        let yearly = try analytics.cohorts(asOf: asOf, periods: 2, duration: .year)
        #expect(yearly.duration == .year)
        #expect(yearly.cohorts.first?.month == Month(year: 2024, month: 3))
        #expect(yearly.average.started == 3)
        #expect(yearly.average.rate == [2.0 / 3.0, nil])
        let monthly = try analytics.cohorts(asOf: asOf, periods: 2, duration: .month)
        #expect(monthly.cohorts.first?.month == Month(year: 2025, month: 11))
        #expect(monthly.average.started == 25)
        #expect(try analytics.cohorts(asOf: asOf, periods: 2, duration: .week).average.started == 0)
        // Every duration: both cohorts, the average pools them: P1 (10+2)/(10+2+7+1).
        let all = try analytics.cohorts(asOf: asOf, periods: 2)
        #expect(all.average.started == 28)
        #expect(all.average.rate == [12.0 / 20.0, nil])
        // The drill-downs keep the duration.
        #expect(
            try analytics.size(
                of: .cohortRetained(month: Month(year: 2024, month: 3), period: 1, duration: .year),
                asOf: asOf
            ).figure == 2)
        #expect(
            try analytics.size(
                of: .cohortRetained(month: Month(year: 2024, month: 3), period: 1, duration: .month),
                asOf: asOf
            ).figure == 0)
        #expect(
            try analytics.size(
                of: .cohortEnded(month: Month(year: 2025, month: 11), period: 1, duration: .month),
                asOf: asOf
            ).figure == 7)
    }

    /// A product's duration is its most frequent standard length: one odd 7-day period among
    /// monthly ones does not make it weekly; a trial's length does not count.
    @Test func aProductsDurationIsItsMostFrequentStandardLength() throws {
        var b = StoreBuilder()
        b.period("a", "a0", "2025-01-01", "2025-01-08", trial: true)
        b.period("a", "a1", "2025-01-08", "2025-02-08")
        b.period("a", "a2", "2025-02-08", "2025-03-08")
        b.period("b", "b1", "2025-01-01", "2025-01-08")
        b.period("w", "w1", "2025-01-01", "2025-01-08", product: "pro.weekly")
        b.period("w", "w2", "2025-01-08", "2025-01-15", product: "pro.weekly")
        #expect(try b.build().productDurations() == ["pro.monthly": .month, "pro.weekly": .week])
    }
}

@Suite struct CountTextTests {
    @Test func thousandsAreSeparated() {
        #expect(CountText.grouped(0) == "0")
        #expect(CountText.grouped(999) == "999")
        #expect(CountText.grouped(1_000) == "1,000")
        #expect(CountText.grouped(123_456) == "123,456")
        #expect(CountText.grouped(1_234_567) == "1,234,567")
        #expect(CountText.grouped(-45_000) == "-45,000")
    }
}
