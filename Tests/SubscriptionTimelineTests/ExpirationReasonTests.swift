import SubscriptionModel
import Testing

@testable import SubscriptionTimeline

@Suite struct ExpirationReasonTests {
    let month = [tx("a", "2024-01-01", "2024-02-01")]

    @Test func refundEndsTheRunAtTheRevocationAndTheNextPeriodReactivates() {
        // Resubscribed 12 h after the refund: a refunded previous period never continues a run.
        let tl = derive([
            tx("a", "2024-01-01", "2024-02-01", revoked: "2024-01-15"),
            tx("b", "2024-01-15T12:00:00Z", "2024-02-15T12:00:00Z"),
        ])
        #expect(tl.periods[0].isRefunded && !tl.periods[0].isPaid)
        #expect(tl.periods[0].end == t("2024-01-15"))
        #expect(tl.classes() == [.activation, .reactivation])
        #expect(tl.runs[0].expirationReason == .refund)
        #expect(tl.runs[0].firstPaidStart == nil)
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-01-15T00:00:00Z refund",
                "2024-01-15T00:00:00Z expiration refund", "2024-01-15T12:00:00Z reactivation",
                "2024-02-15T12:00:00Z expiration other",
            ])
    }

    /// `a` refunded on 02-15, after `b` had renewed it on 02-01: a refund, not the end of the run.
    /// Refunded at 02-01 exactly (as `b` starts) it is late too: `b` had started at its date.
    @Test func refundAfterThePeriodEndedDoesNotEndTheRun() {
        let late = derive([tx("a", "2024-01-01", "2024-02-01", revoked: "2024-02-15"), tx("b", "2024-02-01", "2024-03-01")])
        #expect(late.periods[0].isRefunded && !late.periods[0].isPaid)
        #expect(late.classes() == [.activation, .renewal])
        #expect(
            late.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-02-01T00:00:00Z renewal",
                "2024-02-15T00:00:00Z refund", "2024-03-01T00:00:00Z expiration other",
            ])
        let atTheBoundary = derive([
            tx("a", "2024-01-01", "2024-02-01", revoked: "2024-02-01"),
            tx("b", "2024-02-01", "2024-03-01"),
        ])
        #expect(atTheBoundary.classes() == [.activation, .renewal])
        #expect(atTheBoundary.runs.count == 1)
        // The last period refunded after it expired: the run ended at the expiry, reason refund.
        let lastLate = derive([tx("a", "2024-01-01", "2024-02-01", revoked: "2024-02-15")])
        #expect(
            lastLate.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-02-01T00:00:00Z expiration refund",
                "2024-02-15T00:00:00Z refund",
            ])
    }

    /// Intent 2 reported while `a` was in billing retry is about `a`; `b` recovered it, then the
    /// subscriber turned auto-renew off and `c` lapsed with no intent of its own: voluntary.
    @Test func intentOfARecoveredFailureDoesNotDecideTheEnd() {
        let tl = derive(
            [
                tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-02-05", "2024-03-05"),
                tx("c", "2024-03-05", "2024-04-05"),
            ],
            renewals: [renewal("2024-01-01", tx: "a", retry: true, intent: 2, v1: true)],
            notes: [toggle(false, "2024-03-20", v1: true)])
        #expect(tl.classes() == [.activation, .billingRecovery, .renewal])
        #expect(tl.runs[0].expirationReason == .voluntary)
        // An intent about the last period still decides.
        let priced = derive(
            [tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-02-01", "2024-03-01")],
            renewals: [
                renewal("2024-01-01", tx: "a", intent: 1, v1: true),
                renewal("2024-02-01", tx: "b", intent: 3, v1: true),
            ])
        #expect(priced.runs[0].expirationReason == .priceIncrease)
    }

    @Test func voluntaryFromV1Intent() {
        let tl = derive(month, renewals: [renewal("2024-01-01", tx: "a", autoRenew: false, intent: 1, v1: true)])
        #expect(tl.runs[0].expirationReason == .voluntary)
    }

    @Test func voluntaryFromV2Expired() {
        let tl = derive(month, notes: [note("EXPIRED", "VOLUNTARY", "2024-02-01T00:00:03Z", tx: "a", status: 2)])
        #expect(tl.runs[0].expirationReason == .voluntary)
        #expect(tl.eventList().last == "2024-02-01T00:00:00Z expiration voluntary")
    }

    @Test func voluntaryFromAutoRenewOffWithoutIntent() {
        let tl = derive(month, notes: [toggle(false, "2024-01-20")])
        #expect(tl.runs[0].expirationReason == .voluntary)
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-01-20T00:00:00Z autoRenewOff",
                "2024-02-01T00:00:00Z expiration voluntary",
            ])
    }

    @Test(arguments: [
        ("PRICE_INCREASE", ExpirationReason.priceIncrease),
        ("PRODUCT_NOT_FOR_SALE", .productUnavailable),
        ("BILLING_RETRY", .billing),
        ("SOMETHING_NEW", .other),
    ])
    func fromV2ExpiredSubtype(subtype: String, reason: ExpirationReason) {
        let tl = derive(month, notes: [note("EXPIRED", subtype, "2024-02-01T00:00:03Z", tx: "a", status: 2)])
        #expect(tl.runs[0].expirationReason == reason)
    }

    @Test(arguments: [(2, ExpirationReason.billing), (3, .priceIncrease), (4, .productUnavailable), (5, .other)])
    func fromRenewalFactIntent(code: Int, reason: ExpirationReason) {
        let tl = derive(month, renewals: [renewal("2024-02-01T00:00:03Z", tx: "a", autoRenew: false, intent: code)])
        #expect(tl.runs[0].expirationReason == reason)
    }

    @Test func latestIntentWinsOverAutoRenewOff() {
        let tl = derive(
            month,
            renewals: [
                renewal("2024-01-10", tx: "a", intent: 1),
                renewal("2024-02-01T00:00:03Z", tx: "a", intent: 4),
            ],
            notes: [toggle(false, "2024-01-20")])
        #expect(tl.runs[0].expirationReason == .productUnavailable)
    }

    @Test func otherWhenNothingIsKnown() {
        #expect(derive(month).runs[0].expirationReason == .other)
    }

    @Test func intentsOfAnotherRunDoNotCount() {
        // The first run ended voluntarily; the second has no facts of its own.
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-03-01", "2024-04-01")],
            notes: [note("EXPIRED", "VOLUNTARY", "2024-02-01T00:00:03Z", tx: "a", status: 2)])
        #expect(tl.runs.map(\.expirationReason) == [.voluntary, .other])
    }
}
