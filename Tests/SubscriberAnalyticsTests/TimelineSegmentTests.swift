import SubscriberAnalytics
import SubscriptionModel
import TestSupport
import Testing

/// The Subscriber pane's timeline bar and the header fields that say when access ends.
@Suite struct TimelineSegmentTests {
    /// R: a billing failure at 02-01 recovered on 02-06 (retry would have gone on to 04-02), a
    /// renewal, then a period refunded on 04-20.
    static func recoveredThenRefunded() throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        b.period("R", "R1", "2025-01-01", "2025-02-01")
        b.notification("R", "DID_FAIL_TO_RENEW", at: "2025-02-01", transaction: "R1")
        b.period("R", "R2", "2025-02-06", "2025-03-06")
        b.period("R", "R3", "2025-03-06", "2025-04-06")
        b.period("R", "R4", "2025-04-06", "2025-05-06", revokedAt: "2025-04-20")
        return try b.build()
    }

    static func report(at date: String) throws -> SubscriberReport {
        try recoveredThenRefunded().subscriber(originalTransactionId: "R", asOf: day(date))
    }

    @Test func retryEndsWhereTheNextPeriodStarts() throws {
        let d = day
        #expect(
            try Self.report(at: "2025-05-01").segments == [
                TimelineSegment(from: d("2025-01-01"), to: d("2025-02-01"), kind: .period(.standard)),
                // The failure's retry end is 60 days on (04-02); the window stops at R2's start.
                TimelineSegment(from: d("2025-02-01"), to: d("2025-02-06"), kind: .billingRetry),
                TimelineSegment(from: d("2025-02-06"), to: d("2025-04-06"), kind: .period(.standard)),
                TimelineSegment(from: d("2025-04-06"), to: d("2025-04-20"), kind: .refund),
                TimelineSegment(from: d("2025-04-20"), to: d("2025-05-01"), kind: .gap),
            ])
    }

    @Test func segmentsStopAtAsOf() throws {
        let d = day
        #expect(
            try Self.report(at: "2025-02-03").segments == [
                TimelineSegment(from: d("2025-01-01"), to: d("2025-02-01"), kind: .period(.standard)),
                TimelineSegment(from: d("2025-02-01"), to: d("2025-02-03"), kind: .billingRetry),
            ])
        #expect(try Self.report(at: "2024-12-01").segments.isEmpty)
    }

    @Test func whenAccessEnds() throws {
        let inRetry = try Self.report(at: "2025-02-03")
        #expect(inRetry.accessEnd == nil)
        #expect(inRetry.billingRetrySince == day("2025-02-01"))
        #expect(inRetry.billingRetryEnds == day("2025-04-02"))
        #expect(inRetry.fromAsOf(day("2025-02-01")) == "2 days ago")

        let renewing = try Self.report(at: "2025-03-10")
        #expect(renewing.accessEnd == .renewsOn(day("2025-04-06")))
        #expect(renewing.billingRetrySince == nil)
        #expect(renewing.fromAsOf(day("2025-04-06")) == "in 27 days")

        let refunded = try Self.report(at: "2025-05-01")
        #expect(refunded.accessEnd == .expiredOn(day("2025-04-20")))
        #expect(refunded.expirationReason == .refund)
        #expect(refunded.fromAsOf(day("2025-04-20")) == "11 days ago")
        #expect(refunded.fromAsOf(day("2025-05-01").adding(hours: 5)) == "in 5 h")
    }

    @Test func autoRenewOffExpiresOn() throws {
        var b = StoreBuilder()
        b.period("S", "S1", "2025-01-01", "2025-02-01")
        b.notification("S", "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: "2025-01-10", autoRenew: false)
        let report = try b.build().subscriber(originalTransactionId: "S", asOf: day("2025-01-20"))
        #expect(report.accessEnd == .expiresOn(day("2025-02-01")))
        #expect(report.accessEnd?.label == "expires on")
    }
}
