import AppStorePayloads
import Foundation
import GRDB
import StoreImport
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

/// Internal consistency of the figures on the simulated SampleData store.
@Suite struct SampleDataConsistencyTests {
    /// SampleData with its v1 documents trusted by the shared secret, imported once per process
    /// and shared read-only.
    static func store() throws -> SubscriberAnalytics {
        SubscriberAnalytics(database: try SampleDataStore.shared(.sharedSecret))
    }

    @Test func figuresAddUp() throws {
        let analytics = try Self.store()
        let horizon = try #require(try analytics.dataHorizon())
        // States sum to the purchased subscriptions that ever started (family members are counted
        // only when asked for).
        let started = try analytics.database.writer.read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM subscription WHERE environment = 'Production' AND ownership = 'purchased' AND firstStart <= ?
                    """, arguments: [horizon.milliseconds]) ?? 0
        }
        let states = try analytics.states(asOf: horizon)
        #expect(states.total == started)
        #expect(started > 600)

        // Events over consecutive months add up to the whole range.
        let first = Month(year: 2024, month: 1)
        let whole = try analytics.events(from: first.start, to: horizon.month.end, asOf: horizon)
        var sum: [EventType: Int] = [:]
        var month = first
        while month <= horizon.month {
            let part = try analytics.events(from: month.start, to: month.end, asOf: horizon)
            for t in EventType.allCases { sum[t, default: 0] += part[t] }
            month = month.next
        }
        for t in EventType.allCases { #expect(sum[t, default: 0] == whole[t], "\(t)") }
        #expect(whole[.activation] == started)

        // Cohort members are the runs with a paid period: each activation or reactivation whose run pays.
        let grid = try analytics.cohorts(asOf: horizon, periods: 4)
        let members = try analytics.database.writer.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM run WHERE environment = 'Production' AND firstPaidStart <= ?",
                arguments: [horizon.milliseconds]) ?? 0
        }
        #expect(grid.average.started == members)
        #expect(members <= whole[.activation] + whole[.reactivation])
        // Retention is monotone: nobody is retained after k+1 renewals who was not after k.
        for c in grid.cohorts {
            for k in 1..<4 { #expect(c.retained[k] <= c.retained[k - 1]) }
            // At each step a member still there is retained, ended or censored (one of the three).
            #expect(c.retained[0] + c.ended[0] <= c.started)
            for k in 1..<4 { #expect(c.retained[k] + c.ended[k] <= c.retained[k - 1]) }
        }

        // The daily series are the figures of each day: states at each of 31 instants (grace,
        // retry and expiry included), events per day summing to the month.
        let daily = try analytics.dailyStates(endingAt: horizon, days: 31)
        for day in stride(from: 0, to: 31, by: 3) {
            let at = try analytics.states(asOf: horizon.adding(days: Int64(day - 30)))
            for s in SubscriptionState.allCases {
                let value: Int = daily[s]?[day] ?? 0
                #expect(value == at[s], "\(s) on day \(day)")
            }
        }
        #expect(daily[.gracePeriod] != nil && daily[.billingRetry] != nil)
        let last = horizon.month.previous
        let days = try analytics.dailyEvents(from: last.start, days: last.dayCount, asOf: horizon)
        let counts = try analytics.events(from: last.start, to: last.end, asOf: horizon)
        for t in EventType.allCases {
            let sum: Int = days[t]?.reduce(0, +) ?? 0
            #expect(sum == counts[t], "\(t)")
        }

        // The young November 2025 cohort as of 2025-12-31 (the demo's figures): 28 members, 18
        // reached P2, 3 ended after P1, 7 still in P1: 18/21 = 86 %, then not known (the old
        // definition printed 0 % there). Monthly commitment payments keep going, so their members
        // reach P2 almost all (without them: 25 members, 10 reached P2, 7 ended).
        let november = Month(year: 2025, month: 11)
        let young = try analytics.cohorts(asOf: Instant(parsing: "2025-12-31")!, periods: 3, from: november, to: november)
        #expect(young.cohorts[0].started == 28)
        #expect(young.cohorts[0].retained == [18, 0, 0])
        #expect(young.cohorts[0].ended == [3, 0, 0])
        #expect(young.cohorts[0].rate == [18.0 / 21.0, nil, nil])
    }
}
