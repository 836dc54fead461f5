import SubscriptionModel
import Testing

@testable import SubscriptionTimeline

@Suite struct BillingFailureTests {
    /// Jan 1 – Feb 1 2024, renewal fails at Feb 1 with a grace period until Feb 17, nothing else.
    /// T + 60 d = 2024-04-01 (29 days of February + 31 of March).
    func failedWithGrace(_ more: [NotificationFact] = []) -> SubscriptionTimeline {
        derive(
            [tx("a", "2024-01-01", "2024-02-01")],
            renewals: [renewal("2024-02-01T00:00:05Z", tx: "a", autoRenew: true, retry: true, grace: "2024-02-17")],
            notes: [note("DID_FAIL_TO_RENEW", "GRACE_PERIOD", "2024-02-01T00:00:05Z", tx: "a", status: 4)] + more)
    }

    @Test func graceThenRetryThenExpiryAfterSixtyDays() {
        let tl = failedWithGrace()
        #expect(tl.billingFailures.count == 1)
        let f = tl.billingFailures[0]
        #expect(f.at == t("2024-02-01"))
        #expect(f.gracePeriodExpiresDate == t("2024-02-17"))
        #expect(f.retryEnd == t("2024-04-01"))
        #expect(f.windowEnd == t("2024-04-01"))
        #expect(tl.state(at: t("2024-01-31T23:59:59Z")) == .standard)
        #expect(tl.state(at: t("2024-02-01")) == .gracePeriod)
        #expect(tl.state(at: t("2024-02-16T23:59:59Z")) == .gracePeriod)
        #expect(tl.state(at: t("2024-02-17")) == .billingRetry)
        #expect(tl.state(at: t("2024-03-31T23:59:59Z")) == .billingRetry)
        #expect(tl.state(at: t("2024-04-01")) == .expired)
        #expect(tl.isActive(at: t("2024-02-10")))
        #expect(!tl.isActive(at: t("2024-03-01")))
        #expect(tl.inBillingRetry(at: t("2024-02-10")))
        #expect(tl.inBillingRetry(at: t("2024-03-01")))
        #expect(!tl.inBillingRetry(at: t("2024-04-01")))
        #expect(tl.gracePeriodExpires(at: t("2024-02-10")) == t("2024-02-17"))
        #expect(tl.gracePeriodExpires(at: t("2024-03-01")) == nil)
        #expect(tl.runs[0].endedAt == t("2024-04-01"))
        #expect(tl.isOpen(run: 0, at: t("2024-03-31T23:59:59Z")))
        #expect(tl.expirationReason(asOf: t("2024-03-01")) == nil)
        #expect(tl.expirationReason(asOf: t("2024-04-01")) == .billing)
        #expect(tl.billingFailureOutcome(f, asOf: t("2024-01-31")) == nil)
        #expect(tl.billingFailureOutcome(f, asOf: t("2024-03-01")) == .pending)
        #expect(tl.billingFailureOutcome(f, asOf: t("2024-04-01")) == .expired)
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-02-01T00:00:00Z billingIssue",
                "2024-04-01T00:00:00Z expiration billing",
            ])
        #expect(
            tl.stateIntervals == [
                StateInterval(from: t("2024-01-01"), to: t("2024-02-01"), state: .standard, productId: "monthly"),
                StateInterval(from: t("2024-02-01"), to: t("2024-02-17"), state: .gracePeriod, productId: "monthly"),
                StateInterval(from: t("2024-02-17"), to: t("2024-04-01"), state: .billingRetry, productId: "monthly"),
                StateInterval(from: t("2024-04-01"), to: nil, state: .expired, productId: "monthly"),
            ])
    }

    @Test func retryEndedByExpiredBillingRetry() {
        let tl = failedWithGrace([note("EXPIRED", "BILLING_RETRY", "2024-03-15", tx: "a", status: 2)])
        #expect(tl.billingFailures[0].retryEnd == t("2024-03-15"))
        #expect(tl.state(at: t("2024-03-14T23:59:59Z")) == .billingRetry)
        #expect(tl.state(at: t("2024-03-15")) == .expired)
        #expect(tl.eventList().last == "2024-03-15T00:00:00Z expiration billing")
    }

    @Test func retryEndedEarlyByAutoRenewOffIsStillABillingExpiration() {
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01")],
            notes: [
                note("DID_FAIL_TO_RENEW", nil, "2024-02-01T00:00:05Z", tx: "a", status: 3),
                toggle(false, "2024-02-10"),
            ])
        #expect(tl.billingFailures[0].retryEnd == t("2024-02-10"))
        #expect(tl.state(at: t("2024-02-01")) == .billingRetry)
        #expect(tl.state(at: t("2024-02-09T23:59:59Z")) == .billingRetry)
        #expect(tl.state(at: t("2024-02-10")) == .expired)
        #expect(tl.runs[0].expirationReason == .billing)
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-02-01T00:00:00Z billingIssue",
                "2024-02-10T00:00:00Z autoRenewOff", "2024-02-10T00:00:00Z expiration billing",
            ])
    }

    @Test func recoveryInsideGraceKeepingTheBillingDateTakesZeroDays() {
        // Recovered on Feb 5 inside grace; Apple keeps the renewal date, so the new period starts Feb 1.
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-02-01", "2024-03-01")],
            renewals: [renewal("2024-02-01T00:00:05Z", tx: "a", retry: true, grace: "2024-02-17")],
            notes: [
                note("DID_FAIL_TO_RENEW", "GRACE_PERIOD", "2024-02-01T00:00:05Z", tx: "a", status: 4),
                note("DID_RENEW", "BILLING_RECOVERY", "2024-02-05", tx: "b", status: 1),
            ])
        #expect(tl.classes() == [.activation, .billingRecovery])
        let f = tl.billingFailures[0]
        #expect(f.recoveryStart == t("2024-02-01"))
        #expect(f.windowEnd == t("2024-02-01"))
        #expect(tl.billingFailureOutcome(f, asOf: t("2024-02-05")) == .recovered(days: 0))
        #expect(tl.state(at: t("2024-02-01")) == .standard)
        #expect(tl.runs.count == 1)
        #expect(tl.runs[0].paidPeriodStarts == [t("2024-01-01"), t("2024-02-01")])
    }

    @Test func recoveryAfterNineDaysStartsANewAnniversary() {
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-02-10", "2024-03-10")],
            notes: [
                note("DID_FAIL_TO_RENEW", nil, "2024-02-01T00:00:05Z", tx: "a", status: 3),
                note("DID_RENEW", "BILLING_RECOVERY", "2024-02-10", tx: "b", status: 1),
            ])
        #expect(tl.classes() == [.activation, .billingRecovery])
        let f = tl.billingFailures[0]
        #expect(f.windowEnd == t("2024-02-10"))
        #expect(tl.billingFailureOutcome(f, asOf: t("2024-02-09")) == .pending)
        #expect(tl.billingFailureOutcome(f, asOf: t("2024-02-10")) == .recovered(days: 9))
        #expect(tl.state(at: t("2024-02-05")) == .billingRetry)
        #expect(tl.state(at: t("2024-02-10")) == .standard)
        #expect(tl.runs.count == 1)
        #expect(tl.runs[0].endedAt == t("2024-03-10"))
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-02-01T00:00:00Z billingIssue",
                "2024-02-10T00:00:00Z billingRecovery", "2024-03-10T00:00:00Z expiration other",
            ])
    }

    @Test func resubscribingAfterRetryEndIsAReactivation() {
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-04-02", "2024-05-02")],
            notes: [note("DID_FAIL_TO_RENEW", nil, "2024-02-01T00:00:05Z", tx: "a", status: 3)])
        #expect(tl.classes() == [.activation, .reactivation])
        #expect(tl.billingFailures[0].recoveryStart == nil)
        #expect(tl.runs[0].endedAt == t("2024-04-01"))
        #expect(tl.runs[0].expirationReason == .billing)
    }

    @Test func oneFailurePerPeriodWhateverTheNumberOfReports() {
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01")],
            renewals: [
                renewal("2024-02-01T00:00:05Z", tx: "a", retry: true),
                renewal("2024-02-03", tx: "a", retry: true, v1: true),
            ],
            notes: [
                note("DID_FAIL_TO_RENEW", nil, "2024-02-01T00:00:05Z", tx: "a", status: 3),
                note("DID_CHANGE_RENEWAL_PREF", nil, "2024-02-05", tx: "a", status: 3),
            ])
        #expect(tl.billingFailures.count == 1)
        #expect(tl.billingFailureCount(asOf: t("2024-02-01")) == 1)
    }

    @Test func staleV1RetryFlagIsBoundedBySixtyDays() {
        // A v1 document's instant is its latest purchase date; the flag says the renewal failed.
        let tl = derive(
            [tx("a", "2022-01-01", "2022-02-01")],
            renewals: [renewal("2022-01-01", tx: "a", autoRenew: true, retry: true, v1: true)])
        #expect(tl.billingFailures.map(\.at) == [t("2022-02-01")])
        #expect(tl.billingFailures[0].retryEnd == t("2022-04-02"))
        #expect(tl.state(at: t("2024-06-01")) == .expired)
        #expect(tl.runs[0].expirationReason == .billing)
    }

    @Test func failureOfAPeriodRefundedBeforeItsRenewalIsDropped() {
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01", revoked: "2024-01-20")],
            notes: [note("DID_FAIL_TO_RENEW", nil, "2024-02-01", tx: "a", status: 3)])
        #expect(tl.billingFailures.isEmpty)
        #expect(tl.runs[0].expirationReason == .refund)
        #expect(tl.state(at: t("2024-01-20")) == .expired)
    }

    @Test func failureOfAPeriodRefundedDuringRetryIsKept() {
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01", revoked: "2024-02-05")],
            notes: [note("DID_FAIL_TO_RENEW", nil, "2024-02-01T00:00:05Z", tx: "a", status: 3)])
        #expect(tl.billingFailures.map(\.at) == [t("2024-02-01")])
        #expect(tl.periods[0].isRefunded)
        #expect(tl.runs[0].expirationReason == .refund)
    }

    @Test func autoRenewOffExactlyAtTLeavesAnEmptyRetryWindow() {
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01")],
            renewals: [renewal("2024-02-01", tx: "a", retry: true)],
            notes: [toggle(false, "2024-02-01")])
        #expect(tl.billingFailures[0].retryEnd == t("2024-02-01"))
        #expect(tl.state(at: t("2024-02-01")) == .expired)
        #expect(tl.runs[0].expirationReason == .billing)
    }
}
