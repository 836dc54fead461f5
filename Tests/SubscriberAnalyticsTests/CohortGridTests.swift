import Testing
import SubscriberAnalytics
import SubscriptionModel
import SubscriptionTimeline

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
    let asOf = StoreBuilder.day("2025-06-15")

    @Test func everyCellByHand() throws {
        let grid = try fiveSubscribers().cohorts(asOf: asOf, periods: 3)
        #expect(grid.cohorts.map(\.month.description) == ["2025-01", "2025-02", "2025-03", "2025-04", "2025-05", "2025-06"])
        #expect(grid.cohorts.map(\.started) == [2, 2, 0, 0, 1, 1])
        #expect(grid.cohorts.map(\.retained) == [[2, 2, 1], [1, 1, 1], [0, 0, 0], [0, 0, 0], [1, 0, 0], [0, 0, 0]])
        #expect(grid.cohorts.map(\.eligible) == [[2, 2, 2], [2, 2, 2], [0, 0, 0], [0, 0, 0], [1, 0, 0], [0, 0, 0]])
        #expect(grid.cohorts[0].rate == [1.0, 1.0, 0.5])
        #expect(grid.cohorts[1].rate == [0.5, 0.5, 0.5])
        // Censored: eligible smaller than started, the rate is not known yet.
        #expect(grid.cohorts[4].rate == [1.0, nil, nil])
        #expect(grid.cohorts[5].rate == [nil, nil, nil])
        let average = grid.average
        #expect(average.started == 6)
        #expect(average.retained == [4, 3, 2])
        #expect(average.eligible == [5, 4, 4])
        #expect(average.rate == [0.8, 0.75, 0.5])
    }

    @Test func monthsCanBeChosenAndEmptyOnesAreListed() throws {
        let grid = try fiveSubscribers().cohorts(asOf: asOf, periods: 2, from: Month(year: 2025, month: 3),
                                                 to: Month(year: 2025, month: 5))
        #expect(grid.cohorts.map(\.month.description) == ["2025-03", "2025-04", "2025-05"])
        #expect(grid.cohorts.map(\.started) == [0, 0, 1])
    }

    @Test func anEarlierAsOfSeesLess() throws {
        // On 2025-03-20: A has 3 paid (open), B 3 paid, C 2 counted (C2, C3), D run 1 ended Mar 10.
        let grid = try fiveSubscribers().cohorts(asOf: StoreBuilder.day("2025-03-20"), periods: 2)
        #expect(grid.cohorts.map(\.month.description) == ["2025-01", "2025-02", "2025-03"])
        #expect(grid.cohorts.map(\.started) == [2, 2, 0])
        #expect(grid.cohorts[0].retained == [2, 2])
        #expect(grid.cohorts[0].eligible == [2, 2])
        #expect(grid.cohorts[1].retained == [1, 0])
        #expect(grid.cohorts[1].eligible == [2, 1])
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
        let june = try analytics.events(from: StoreBuilder.day("2025-06-01"), to: StoreBuilder.day("2025-06-16"), asOf: asOf)
        #expect(june[.activation] == 1)
        #expect(june[.renewal] == 2)
        #expect(june[.reactivation] == 0)
        let may = try analytics.events(from: StoreBuilder.day("2025-05-01"), to: StoreBuilder.day("2025-06-01"), asOf: asOf)
        #expect(may[.reactivation] == 1)
        #expect(may[.renewal] == 2) // B May 12, C May 20
        let april = try analytics.events(from: StoreBuilder.day("2025-04-01"), to: StoreBuilder.day("2025-05-01"), asOf: asOf)
        #expect(april[.billingIssue] == 1)
        #expect(april[.billingRecovery] == 1)
        #expect(april[.expiration] == 1) // A on Apr 10
    }

    @Test func emptyStoreGivesHonestZeros() throws {
        let analytics = try StoreBuilder().build()
        #expect(try analytics.dataHorizon() == nil)
        let grid = try analytics.cohorts(asOf: asOf, periods: 3)
        #expect(grid.cohorts.count == 1)
        #expect(grid.cohorts[0].started == 0)
        #expect(grid.average.rate == [nil, nil, nil])
        #expect(try analytics.states(asOf: asOf).total == 0)
        let recovery = try analytics.recovery(from: StoreBuilder.day("2025-01-01"), to: asOf, asOf: asOf)
        #expect(recovery.failures == 0)
    }
}
