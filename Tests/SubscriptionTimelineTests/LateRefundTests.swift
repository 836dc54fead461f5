import SubscriptionModel
import Testing

@testable import SubscriptionTimeline

/// docs/metrics.md, "Late refunds": a refund ends its run unless the next period of the
/// subscription had started at or before its `revocationDate`; then it is a late refund, which
/// returns the money, makes its period not paid and counts a `refund` event, while the run goes on.
@Suite struct LateRefundTests {
    /// A monthly 9.99 USD period, refunded (Apple's `revocationReason` 0) when `revoked` says.
    func paid(_ id: String, _ start: String, _ expires: String, revoked: String? = nil) -> TransactionFact {
        var f = tx(id, start, expires, revoked: revoked)
        (f.price, f.currency) = (9_990, "USD")
        if revoked != nil { f.revocationReason = 0 }
        return f
    }

    /// docs/metrics.md's worked example: January, February and March paid; Apple refunds January
    /// on 02-15, while February runs; auto-renew turned off on 03-20.
    @Test func aLateRefundInsideAContinuingRun() {
        let tl = derive(
            [
                paid("a", "2024-01-01", "2024-02-01", revoked: "2024-02-15"), paid("b", "2024-02-01", "2024-03-01"),
                paid("c", "2024-03-01", "2024-04-01"),
            ], notes: [toggle(false, "2024-03-20")])
        // The run goes on: one run, February and March are renewals.
        #expect(tl.periods[0].isRefunded && !tl.periods[0].isPaid)
        #expect(tl.isLateRefund(period: 0) && !tl.isLateRefund(period: 1))
        #expect(tl.classes() == [.activation, .renewal, .renewal])
        #expect(tl.runs.count == 1)
        // Events: the refund at its revocationDate, one expiration, by the run's own reason.
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-02-01T00:00:00Z renewal", "2024-02-15T00:00:00Z refund",
                "2024-03-01T00:00:00Z renewal", "2024-03-20T00:00:00Z autoRenewOff",
                "2024-04-01T00:00:00Z expiration voluntary",
            ])
        // States: January was had (access), and nothing breaks on 02-15.
        #expect(tl.state(at: t("2024-01-20")) == .standard)
        #expect(tl.state(at: t("2024-02-15")) == .standard)
        // Cohorts: the paid periods skip January, so the member is February's, with 2 paid
        // periods by 03-15.
        #expect(tl.runs[0].firstPaidStart == t("2024-02-01"))
        #expect(tl.runs[0].paidPeriodStarts == [t("2024-02-01"), t("2024-03-01")])
        #expect(tl.runs[0].paidPeriods(asOf: t("2024-03-15")) == 2)
        // Money: the refund lands on 02-15 (February's revenue), in full.
        let money = tl.money(priceTable: .empty)
        #expect(money[0].isCharged && money[0].refundAmount == 9_990 && money[0].refundAt == t("2024-02-15"))
        #expect(tl.paid(asOf: t("2024-02-14"), money: money) == ["USD": 19_980])  // January and February charged
        #expect(tl.paid(asOf: t("2024-02-15"), money: money) == ["USD": 9_990])  // January returned
        #expect(tl.paid(asOf: t("2024-03-15"), money: money) == ["USD": 19_980])  // March charged
        // Paid service: February (29 days) and March up to 03-15 (14 days); January adds nothing.
        #expect(tl.paidService(asOf: t("2024-03-15")) == 43 * Instant.millisecondsPerDay)
    }

    /// Refunded at the very instant the next period starts: the next period had started at (or
    /// before) the revocationDate, so the refund is late and `b` renews.
    @Test func aRefundAtTheNextPeriodsStartIsLate() {
        let tl = derive([paid("a", "2024-01-01", "2024-02-01", revoked: "2024-02-01"), paid("b", "2024-02-01", "2024-03-01")])
        #expect(tl.isLateRefund(period: 0))
        #expect(tl.classes() == [.activation, .renewal])
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-02-01T00:00:00Z refund", "2024-02-01T00:00:00Z renewal",
                "2024-03-01T00:00:00Z expiration other",
            ])
    }

    /// Refunded after its expiry but before the next period began (here 6 h into a 24 h gap): no
    /// period had started at the refund, so it ends its run; `b` reactivates.
    @Test func aRefundBeforeTheNextPeriodStartedEndsTheRunEvenAfterTheExpiry() {
        let tl = derive([
            paid("a", "2024-01-01", "2024-02-01", revoked: "2024-02-01T06:00:00Z"),
            paid("b", "2024-02-01T12:00:00Z", "2024-03-01T12:00:00Z"),
        ])
        #expect(!tl.isLateRefund(period: 0))
        #expect(tl.classes() == [.activation, .reactivation])
        #expect(tl.runs.map(\.expirationReason) == [.refund, .other])
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-02-01T00:00:00Z expiration refund", "2024-02-01T06:00:00Z refund",
                "2024-02-01T12:00:00Z reactivation", "2024-03-01T12:00:00Z expiration other",
            ])
    }

    /// The last period of a run refunded once the subscriber had come back: a late refund, so the
    /// first run ended as it did (auto-renew off: voluntary), not by a refund; the refund still
    /// counts, at its date.
    @Test func aLateRefundOfARunsLastPeriodLeavesItsExpirationReason() {
        let tl = derive(
            [paid("a", "2024-01-01", "2024-02-01", revoked: "2024-03-10"), paid("b", "2024-03-01", "2024-04-01")],
            notes: [toggle(false, "2024-01-15")])
        #expect(tl.isLateRefund(period: 0))
        #expect(tl.classes() == [.activation, .reactivation])
        #expect(tl.runs.map(\.expirationReason) == [.voluntary, .other])
        #expect(tl.runs[0].firstPaidStart == nil)
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-01-15T00:00:00Z autoRenewOff",
                "2024-02-01T00:00:00Z expiration voluntary", "2024-03-01T00:00:00Z reactivation",
                "2024-03-10T00:00:00Z refund", "2024-04-01T00:00:00Z expiration other",
            ])
        // Alone, the same refund ends the run (nothing had started at it): reason refund.
        let alone = derive([paid("a", "2024-01-01", "2024-02-01", revoked: "2024-03-10")], notes: [toggle(false, "2024-01-15")])
        #expect(alone.runs.map(\.expirationReason) == [.refund])
    }
}
