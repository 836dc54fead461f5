import SubscriptionModel
import Testing

@testable import SubscriptionTimeline

/// The cases the definitions of docs/metrics.md leave open, decided as documented on
/// `SubscriptionTimeline.derive`.
@Suite struct EdgeCaseTests {
    @Test func transactionsWithoutExpiresDateAreNoPeriods() {
        let tl = derive([tx("n", "2024-01-01", nil, token: "tok"), tx("a", "2024-02-01", "2024-03-01")])
        #expect(tl.periods.map(\.transactionId) == ["a"])
        #expect(tl.appAccountToken == "tok")
        #expect(tl.state(at: t("2024-01-15")) == nil)
    }

    @Test func revocationBeforeTheStartLeavesAnEmptyRefundedPeriod() {
        let tl = derive([tx("a", "2024-01-10", "2024-02-10", revoked: "2024-01-05")])
        #expect(tl.periods[0].end == t("2024-01-10"))
        #expect(tl.periods[0].isRefunded)
        #expect(tl.state(at: t("2024-01-10")) == .expired)
        #expect(
            tl.eventList() == [
                "2024-01-10T00:00:00Z activation", "2024-01-10T00:00:00Z refund",
                "2024-01-10T00:00:00Z expiration refund",
            ])
    }

    @Test func twoPeriodsStartingTogetherKeepTheLongerOne() {
        let tl = derive([tx("y", "yearly", "2024-01-01", "2025-01-01"), tx("m", "monthly", "2024-01-01", "2024-02-01")])
        #expect(tl.periods.map(\.transactionId) == ["m", "y"])
        #expect(tl.periods[0].end == t("2024-01-01"))
        #expect(tl.periods[0].isCutByUpgrade)
        #expect(tl.classes() == [.activation, .productChange])
        #expect(tl.state(at: t("2024-01-01")) == .standard)
        #expect(tl.productId(at: t("2024-01-01")) == "yearly")
        #expect(tl.runs[0].paidPeriodStarts == [t("2024-01-01")])
    }

    @Test func factAboutAnUnknownTransactionGoesToTheLatestPeriodStartedBefore() {
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-02-01", "2024-03-01")],
            notes: [note("DID_FAIL_TO_RENEW", nil, "2024-03-01T00:00:05Z", tx: "zzz", status: 3)])
        #expect(tl.billingFailures.map(\.transactionId) == ["b"])
    }

    /// At one instant, events come in the order they happen: what is about the earlier period
    /// (its billing issue, its refund, the expiration of its run) before what starts there.
    @Test func eventsAtOneInstantComeInTheOrderTheyHappen() {
        // A renewal failing at 02-01 and recovered inside grace keeping the billing date.
        let recovered = derive(
            [tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-02-01", "2024-03-01")],
            notes: [note("DID_FAIL_TO_RENEW", "GRACE_PERIOD", "2024-02-01", tx: "a", status: 4)])
        #expect(
            recovered.eventList().dropFirst().prefix(2) == [
                "2024-02-01T00:00:00Z billingIssue",
                "2024-02-01T00:00:00Z billingRecovery",
            ])
        // A refund at 01-20, the instant the subscriber buys again: `b` had started at its date,
        // so the refund is late (docs/metrics.md, "Late refunds") and comes before the renewal.
        let resubscribed = derive([
            tx("a", "2024-01-01", "2024-02-01", revoked: "2024-01-20"),
            tx("b", "2024-01-20", "2024-02-20"),
        ])
        #expect(
            resubscribed.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-01-20T00:00:00Z refund", "2024-01-20T00:00:00Z renewal",
                "2024-02-20T00:00:00Z expiration other",
            ])
    }

    @Test func noPeriodsNoTimeline() {
        let tl = derive([], notes: [toggle(false, "2024-01-01")])
        #expect(tl.periods.isEmpty && tl.runs.isEmpty && tl.events.isEmpty)
        #expect(tl.stateIntervals.isEmpty && tl.autoRenewIntervals.isEmpty)
        #expect(tl.state(at: t("2024-01-02")) == nil)
        #expect(tl.paidPeriods(asOf: t("2024-01-02")) == 0)
    }
}
