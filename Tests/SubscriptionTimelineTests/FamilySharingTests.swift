import SubscriptionModel
import Testing

@testable import SubscriptionTimeline

/// A family member's subscription: derived like any other, but never paid, and a revocation is
/// a sharing revocation, not a refund.
@Suite struct FamilySharingTests {
    func shared(_ fact: TransactionFact) -> TransactionFact {
        var f = fact
        f.inAppOwnershipType = "FAMILY_SHARED"
        return f
    }

    /// Joined on 01-01, renewed twice with the purchaser: an activation and two renewals, the
    /// same classes and states as a purchase, but no paid period, no cohort.
    @Test func familySharedOverTwoRenewalsIsNeverPaid() {
        let tl = derive([
            shared(tx("a", "2024-01-01", "2024-02-01")), shared(tx("b", "2024-02-01", "2024-03-01")),
            shared(tx("c", "2024-03-01", "2024-04-01")),
        ])
        #expect(tl.ownership == .familyShared)
        #expect(tl.classes() == [.activation, .renewal, .renewal])
        #expect(tl.periods.map(\.isPaid) == [false, false, false])
        #expect(tl.runs[0].firstPaidStart == nil && tl.runs[0].paidPeriodStarts.isEmpty)
        #expect(tl.paidPeriods(asOf: t("2024-03-15")) == 0)
        #expect(tl.state(at: t("2024-02-15")) == .standard)
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-02-01T00:00:00Z renewal",
                "2024-03-01T00:00:00Z renewal", "2024-04-01T00:00:00Z expiration other",
            ])
        // The same periods purchased: three paid periods.
        let bought = derive([
            tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-02-01", "2024-03-01"),
            tx("c", "2024-03-01", "2024-04-01"),
        ])
        #expect(bought.ownership == .purchased && bought.paidPeriods(asOf: t("2024-03-15")) == 3)
    }

    /// Revoked on 02-10 (the purchaser stopped sharing): the period ends then, no refund event,
    /// the run ends `sharingRevoked` ahead of the auto-renew-off that came with it; a period
    /// after it starts a new run.
    @Test func revocationIsASharingRevocationNotARefund() {
        let tl = derive(
            [
                shared(tx("a", "2024-01-01", "2024-02-01")),
                shared(tx("b", "2024-02-01", "2024-03-01", revoked: "2024-02-10")),
                shared(tx("c", "2024-02-10T06:00:00Z", "2024-03-10T06:00:00Z")),
            ],
            notes: [toggle(false, "2024-02-10")])
        #expect(tl.periods[1].isSharingRevoked && !tl.periods[1].isRefunded)
        #expect(tl.periods[1].end == t("2024-02-10"))
        #expect(tl.classes() == [.activation, .renewal, .reactivation])
        #expect(tl.runs[0].expirationReason == .sharingRevoked)
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-02-01T00:00:00Z renewal",
                "2024-02-10T00:00:00Z autoRenewOff", "2024-02-10T00:00:00Z expiration sharingRevoked",
                "2024-02-10T06:00:00Z reactivation", "2024-03-10T06:00:00Z expiration other",
            ])
        #expect(!tl.eventList().contains { $0.hasSuffix(" refund") })
    }

    /// The latest transaction decides: a subscription whose last transaction is a purchase is
    /// purchased (and its periods paid), even if it began as family access.
    @Test func ownershipIsTheLatestTransactions() {
        let bought = derive([shared(tx("a", "2024-01-01", "2024-02-01")), tx("b", "2024-02-01", "2024-03-01")])
        #expect(bought.ownership == .purchased)
        #expect(bought.periods.map(\.isPaid) == [true, true])
        let sharedLast = derive([tx("a", "2024-01-01", "2024-02-01"), shared(tx("b", "2024-02-01", "2024-03-01"))])
        #expect(sharedLast.ownership == .familyShared && sharedLast.periods.map(\.isPaid) == [false, false])
    }

    /// A transaction that does not say whose it is, revoked with v2 `revocationType`
    /// `FAMILY_REVOKE`: family access, so a sharing revocation.
    @Test func familyRevokeTypeMarksFamilyAccess() {
        var revoked = tx("a", "2024-01-01", "2024-02-01", revoked: "2024-01-20")
        revoked.revocationType = "FAMILY_REVOKE"
        let tl = derive([revoked])
        #expect(tl.ownership == .familyShared)
        #expect(tl.eventList() == ["2024-01-01T00:00:00Z activation", "2024-01-20T00:00:00Z expiration sharingRevoked"])
        revoked.revocationType = "REFUND_FULL"
        #expect(derive([revoked]).runs[0].expirationReason == .refund)
    }
}
