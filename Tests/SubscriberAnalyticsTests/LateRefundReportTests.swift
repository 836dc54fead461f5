import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

/// docs/metrics.md "Late refunds", through the store and every report. Monthly 9.99 USD
/// subscriptions, as of 2025-04-15:
/// - L pays January, February and March; Apple refunds January on 02-15 (the run goes on);
///   auto-renew off on 03-20, so the run ends `voluntary` on 04-01.
/// - E pays January and February; January is refunded at 02-01 00:00, the instant February
///   starts: late, so February is a `renewal`; the run ends `other` on 03-01.
/// - C pays January with auto-renew off (01-15): the run ends `voluntary` on 02-01; C comes back on
///   03-01 (a `reactivation`, ending `other` on 04-01) and January is refunded on 03-10: late, so
///   the first run keeps its reason.
/// - R fails to renew on 02-01 and recovers on 02-05 (to 03-05); the failed January is refunded on
///   02-10, after the recovery began: still recovered.
@Suite struct LateRefundReportTests {
    static func store() throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        b.charge("L", "L1", "2025-01-01", "2025-02-01", 9990, "USD", revokedAt: "2025-02-15")
        b.charge("L", "L2", "2025-02-01", "2025-03-01", 9990, "USD")
        b.charge("L", "L3", "2025-03-01", "2025-04-01", 9990, "USD")
        b.notification("L", "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: "2025-03-20", autoRenew: false)
        b.charge("E", "E1", "2025-01-01", "2025-02-01", 9990, "USD", revokedAt: "2025-02-01")
        b.charge("E", "E2", "2025-02-01", "2025-03-01", 9990, "USD")
        b.charge("C", "C1", "2025-01-01", "2025-02-01", 9990, "USD", revokedAt: "2025-03-10")
        b.notification("C", "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: "2025-01-15", autoRenew: false)
        b.charge("C", "C2", "2025-03-01", "2025-04-01", 9990, "USD")
        b.charge("R", "R1", "2025-01-01", "2025-02-01", 9990, "USD", revokedAt: "2025-02-10")
        b.notification("R", "DID_FAIL_TO_RENEW", at: "2025-02-01", transaction: "R1")
        b.charge("R", "R2", "2025-02-05", "2025-03-05", 9990, "USD")
        return try b.build()
    }

    static let asOf = day("2025-04-15")
    static let (from, to) = (day("2025-01-01"), day("2025-05-01"))

    @Test func eventsCountEachRefundAndOnlyTheRunsEnds() throws {
        let events = try Self.store().events(from: Self.from, to: Self.to, asOf: Self.asOf)
        // activation L E C R; reactivation C; renewal L L E; refunds L E C R; expirations L
        // (voluntary), E (other), C twice (voluntary, other), R (other); none by refund.
        #expect(
            events.counts.filter { $0.value > 0 } == [
                .activation: 4, .reactivation: 1, .renewal: 3, .billingRecovery: 1, .billingIssue: 1, .autoRenewOff: 2,
                .refund: 4, .expiration: 5,
            ])
        #expect(events.expirationReasons.filter { $0.value > 0 } == [.voluntary: 2, .other: 3])
    }

    @Test func statesCohortsAndRecoveryGoOn() throws {
        let analytics = try Self.store()
        // On 02-20 L, E and R are in a paid period, C has lapsed.
        let states = try analytics.states(asOf: day("2025-02-20"))
        #expect(states[.standard] == 3 && states[.expired] == 1)
        // February's cohort: L (2 paid periods: January skipped), E and R (1 each), all ended;
        // March's: C's second run. rate[1] = 1/3, then 0.
        let grid = try analytics.cohorts(asOf: Self.asOf, periods: 2)
        #expect(
            grid.cohorts.map { "\($0.month) \($0.started) \($0.retained) \($0.ended)" } == [
                "2025-02 3 [1, 0] [2, 1]", "2025-03 1 [0, 0] [1, 0]", "2025-04 0 [0, 0] [0, 0]",
            ])
        let recovery = try analytics.recovery(from: Self.from, to: Self.to, asOf: Self.asOf)
        #expect(recovery.failures == 1 && recovery.recovered == 1 && recovery.expired == 0)
        #expect(recovery.recoveredWithinDays[3] == 0 && recovery.recoveredWithinDays[7] == 1)
    }

    @Test func moneyLandsInTheMonthOfTheRefund() throws {
        let analytics = try Self.store()
        let revenue = try analytics.revenue(from: Self.from, to: Self.to, asOf: Self.asOf, by: .month)
        #expect(
            revenue.rows.map { "\($0.key!) \($0.charged) \($0.gross) \($0.refunded) \($0.refunds) \($0.net)" } == [
                "2025-01 4 39960 0 0 39960", "2025-02 3 29970 3 29970 0", "2025-03 2 19980 1 9990 9990",
            ])
        let refunds = try analytics.refundRate(from: Self.from, to: Self.to, asOf: Self.asOf)
        #expect(
            refunds.rows.map { "\($0.key) \($0.charged) \($0.refunded)" } == [
                "2025-01 4 4", "2025-02 3 0", "2025-03 2 0", "2025-04 0 0",
            ])

        let l = try report(analytics, "L", asOf: "2025-04-15")
        #expect(l.timeline.periods.map(\.periodClass) == [.activation, .renewal, .renewal])
        #expect(l.expirationReason == .voluntary)
        #expect(l.paidPeriods == 2)
        #expect(l.paid == ["USD": 19_980])
        let c = try report(analytics, "C", asOf: "2025-04-15")
        #expect(c.timeline.runs.map(\.expirationReason) == [.voluntary, .other])
    }
}
