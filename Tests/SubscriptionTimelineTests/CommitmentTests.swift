import SubscriptionModel
import Testing

@testable import SubscriptionTimeline

/// docs/metrics.md, "Billing plans and commitments" and "Committed revenue": monthly payments of
/// 10.99 EUR for a 12-month commitment to `pro.annual` (131.88 EUR), from 2026-03-02.
@Suite struct CommitmentTests {
    /// The first day of payment `k` (1-based) of a commitment starting on 2026-03-02 + `offset` months.
    static func month(_ k: Int, offset: Int = 0, day: String = "02") -> String {
        let m = 2 + (k - 1) + offset  // 0-based month index from January 2026
        let year = 2026 + m / 12
        let month = m % 12 + 1
        return "\(year)-\(month < 10 ? "0" : "")\(month)-\(day)"
    }

    /// Payment k of 12, a month long, signed at its start.
    static func payment(
        _ k: Int, offset: Int = 0, start: String? = nil, ends: String = "2027-03-02", revoked: String? = nil,
        upgraded: Bool = false, number: Int? = nil
    ) -> TransactionFact {
        let s = start ?? month(k, offset: offset)
        let e = month(k + 1, offset: offset, day: String(s.suffix(2)))
        var f = tx("p\(k + offset)", "pro.annual", s, e, revoked: revoked, upgraded: upgraded, signed: s)
        (f.price, f.currency) = (10_990, "EUR")
        if revoked != nil { f.revocationReason = 0 }
        f.billingPlanType = "MONTHLY"
        f.commitment = TransactionCommitment(
            billingPeriodNumber: number ?? k, totalBillingPeriods: 12, commitmentExpiresDate: t(ends), commitmentPrice: 131_880)
        return f
    }

    static func term(_ range: ClosedRange<Int>) -> [TransactionFact] { range.map { payment($0) } }

    /// A renewal info saying the commitment will (not) renew; Apple keeps `autoRenewStatus` on.
    static func commitmentRenewal(_ at: String, renews: Bool) -> RenewalFact {
        var r = renewal(at, autoRenew: true)
        r.renewalBillingPlanType = "MONTHLY"
        r.commitment = RenewalCommitment(
            commitmentAutoRenewStatus: renews, commitmentAutoRenewProductId: "pro.annual",
            commitmentRenewalBillingPlanType: "MONTHLY", commitmentRenewalDate: t("2027-03-02"),
            commitmentRenewalPrice: 10_990)
        return r
    }

    @Test func paidThroughTwelveAndRenewed() {
        var facts = Self.term(1...12)
        var next = Self.payment(1, offset: 12, ends: "2028-03-02")
        next.transactionId = "next1"
        facts.append(next)
        let tl = derive(facts)
        #expect(tl.periods.allSatisfy { $0.billingPlan == .monthly })
        #expect(tl.classes() == [.activation] + Array(repeating: .renewal, count: 12))
        #expect(tl.runs.count == 1)
        #expect(tl.commitments.count == 2)
        #expect(tl.commitments[0].firstPeriod == 0 && tl.commitments[0].lastPeriod == 11)
        #expect(tl.commitments[0].runningEnd == t("2027-03-02") && tl.commitments[0].ends == t("2027-03-02"))
        #expect(tl.commitments[1].start == t("2027-03-02") && tl.commitments[1].ends == t("2028-03-02"))
        let money = tl.money(priceTable: .empty)
        // MRR: one month each, though the product is annual.
        #expect(money.allSatisfy { $0.monthlyTwelfths == 12 })
        // Committed revenue: 131.88 − 12 × 10.99 = 0 in the last month; the new term starts at 120.89.
        #expect(tl.committedRevenue(at: t("2027-02-15"), money: money)?.amount == 0)
        #expect(tl.committedRevenue(at: t("2027-03-15"), money: money)?.amount == 120_890)
        #expect(tl.committedRevenue(at: t("2027-03-15"), money: money)?.commitmentIndex == 1)
    }

    /// Cancelled at payment 4 (06-02 to 07-02): auto-renew off on 06-15, the payments go on, the run
    /// ends `voluntary` after payment 12; committed revenue falls by one payment a month.
    @Test func cancelledAtPaymentFour() {
        let tl = derive(
            Self.term(1...12),
            renewals: [Self.commitmentRenewal("2026-06-15", renews: false), Self.commitmentRenewal("2026-08-02", renews: false)],
            notes: [toggle(false, "2026-06-15")])
        #expect(tl.runs.count == 1 && tl.commitments.count == 1)
        #expect(tl.autoRenew(at: t("2026-06-14")) == true)
        #expect(tl.autoRenew(at: t("2026-06-15")) == false)
        // A renewal info with commitmentInfo keeps autoRenewStatus 1: it does not turn it back on.
        #expect(tl.autoRenew(at: t("2026-08-10")) == false)
        #expect(tl.state(at: t("2026-12-15")) == .standard)
        #expect(tl.runs[0].endedAt == t("2027-03-02"))
        #expect(tl.expirationReason(asOf: t("2027-03-10")) == .voluntary)
        #expect(
            tl.eventList().filter { !$0.hasSuffix(" renewal") } == [
                "2026-03-02T00:00:00Z activation", "2026-06-15T00:00:00Z autoRenewOff",
                "2027-03-02T00:00:00Z expiration voluntary",
            ])
        let money = tl.money(priceTable: .empty)
        let committed = ["2026-06-20", "2026-07-20", "2026-08-20", "2027-02-20", "2027-03-02"].map {
            tl.committedRevenue(at: t($0), money: money)?.amount
        }
        #expect(committed == [87_920, 76_930, 65_940, 0, nil])
    }

    /// Payment 6 (08-02 to 09-02) fails to renew: no grace period although Apple names one, a toggle
    /// off on 09-10 does not end the retry; payment 7 on 09-20 recovers and Apple moves the end.
    @Test func failedAtPaymentSixAndRecovered() {
        var facts = Self.term(1...6)
        for k in 7...12 {
            var p = Self.payment(k, start: Self.month(k, day: "20"), ends: "2027-03-20")
            p.transactionId = "r\(k)"
            facts.append(p)
        }
        let tl = derive(
            facts, renewals: [renewal("2026-09-02", tx: "p6", retry: true, grace: "2026-09-18")],
            notes: [note("DID_FAIL_TO_RENEW", nil, "2026-09-02", tx: "p6"), toggle(false, "2026-09-10")])
        #expect(tl.billingFailures.count == 1)
        let f = tl.billingFailures[0]
        #expect(f.at == t("2026-09-02") && f.gracePeriodExpiresDate == nil)
        #expect(f.retryEnd == t("2026-12-01"))  // T + 90 days: the toggle did not end it
        #expect(f.recoveryStart == t("2026-09-20"))
        #expect(tl.state(at: t("2026-09-05")) == .billingRetry)
        #expect(tl.periods[6].periodClass == .billingRecovery)
        #expect(tl.runs.count == 1 && tl.commitments.count == 1)
        #expect(tl.commitments[0].ends == t("2027-03-20"))
        // In retry the commitment still runs: 131.88 − 6 payments.
        let money = tl.money(priceTable: .empty)
        #expect(tl.committedRevenue(at: t("2026-09-05"), money: money)?.amount == 65_940)
    }

    /// Payment 6 fails and nothing follows: retry for 90 days (not 60), then the commitment ends.
    @Test func failedAtPaymentSixExpiredAfterNinetyDays() {
        let tl = derive(
            Self.term(1...6), notes: [note("DID_FAIL_TO_RENEW", nil, "2026-09-02", tx: "p6"), toggle(false, "2026-09-10")])
        #expect(tl.state(at: t("2026-11-15")) == .billingRetry)
        #expect(tl.runs[0].endedAt == t("2026-12-01"))
        #expect(tl.expirationReason(asOf: t("2026-12-10")) == .billing)
        let money = tl.money(priceTable: .empty)
        #expect(tl.committedRevenue(at: t("2026-11-30"), money: money)?.amount == 65_940)
        #expect(tl.committedRevenue(at: t("2026-12-01"), money: money) == nil)
        // Apple's EXPIRED/BILLING_RETRY ends it earlier.
        let early = derive(
            Self.term(1...6),
            notes: [note("DID_FAIL_TO_RENEW", nil, "2026-09-02", tx: "p6"), note("EXPIRED", "BILLING_RETRY", "2026-10-15")])
        #expect(early.runs[0].endedAt == t("2026-10-15"))
    }

    /// Payment 2 refunded on 06-10 (during payment 4): a late refund, the commitment goes on.
    @Test func refundOfAnEarlierPayment() {
        var facts = Self.term(1...12)
        facts[1] = Self.payment(2, revoked: "2026-06-10")
        let tl = derive(facts)
        #expect(tl.runs.count == 1 && tl.commitments.count == 1)
        #expect(tl.isLateRefund(period: 1))
        #expect(tl.eventList().contains("2026-06-10T00:00:00Z refund"))
        let money = tl.money(priceTable: .empty)
        // The refunded payment was charged: committed revenue does not move.
        #expect(tl.committedRevenue(at: t("2026-06-20"), money: money)?.amount == 87_920)
    }

    /// Payment 4 refunded on 06-10, while it runs: the commitment ends with its run, by refund.
    @Test func refundOfTheCurrentPayment() {
        var facts = Self.term(1...3)
        facts.append(Self.payment(4, revoked: "2026-06-10"))
        let tl = derive(facts)
        #expect(tl.runs[0].endedAt == t("2026-06-10"))
        #expect(tl.expirationReason(asOf: t("2026-06-20")) == .refund)
        #expect(tl.commitments[0].runningEnd == t("2026-06-10"))
        let money = tl.money(priceTable: .empty)
        #expect(tl.committedRevenue(at: t("2026-06-09"), money: money)?.amount == 87_920)
        #expect(tl.committedRevenue(at: t("2026-06-10"), money: money) == nil)
    }

    /// On 06-15, during payment 4, an upgrade to an upfront yearly product ends the commitment.
    @Test func upgradedMidTerm() {
        var facts = Self.term(1...3)
        facts.append(Self.payment(4, revoked: "2026-06-15", upgraded: true))
        facts[3].revocationReason = nil
        var up = tx("u1", "premium.annual", "2026-06-15", "2027-06-15", signed: "2026-06-15")
        (up.price, up.currency) = (149_990, "EUR")
        facts.append(up)
        let tl = derive(facts)
        #expect(tl.runs.count == 1)
        #expect(tl.periods[4].periodClass == .productChange && tl.periods[4].billingPlan == .upfront)
        #expect(tl.commitments.count == 1 && tl.commitments[0].runningEnd == t("2026-06-15"))
        let money = tl.money(priceTable: .empty)
        #expect(tl.committedRevenue(at: t("2026-06-14"), money: money)?.amount == 87_920)
        #expect(tl.committedRevenue(at: t("2026-06-15"), money: money) == nil)
        #expect(money[4].monthlyTwelfths == 1)
    }

    /// A payment of n (the renewal into what follows) fails like any period: grace applies, a toggle ends retry.
    @Test func failureOfTheLastPaymentFollowsTheUsualRules() {
        let tl = derive(
            Self.term(1...12),
            renewals: [renewal("2027-03-02", tx: "p12", retry: true, grace: "2027-03-18")],
            notes: [toggle(false, "2027-03-10")])
        #expect(tl.billingFailures.count == 1)
        #expect(tl.billingFailures[0].gracePeriodExpiresDate == t("2027-03-18"))
        #expect(tl.billingFailures[0].retryEnd == t("2027-03-10"))
    }
}
