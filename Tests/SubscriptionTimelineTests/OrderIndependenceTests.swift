import SubscriptionModel
import Testing

@testable import SubscriptionTimeline

@Suite struct OrderIndependenceTests {
    /// Trial, conversion, failure with grace, recovery after 9 days, toggles, a refund and a
    /// win-back reactivation.
    var rich: SubscriptionFacts {
        SubscriptionFacts(
            originalTransactionId: otid,
            transactions: [
                tx("t1", "2024-01-01", "2024-01-08", offerType: 1, discount: "FREE_TRIAL", signed: "2024-01-01"),
                tx("t2", "2024-01-08", "2024-02-08", signed: "2024-01-08"),
                tx("t3", "2024-02-17", "2024-03-17", signed: "2024-02-17"),
                tx("t4", "2024-03-17", "2024-04-17", revoked: "2024-03-20", signed: "2024-03-20"),
                tx("t4", "2024-03-17", "2024-04-17", signed: "2024-03-17"),
                tx("t5", "2024-06-01", "2024-07-01", offerType: 4, signed: "2024-06-01"),
            ],
            renewals: [
                renewal("2024-02-08T00:00:05Z", tx: "t2", autoRenew: true, retry: true, grace: "2024-02-11"),
                renewal("2024-03-25", tx: "t4", autoRenew: false),
            ],
            notifications: [
                note("DID_FAIL_TO_RENEW", "GRACE_PERIOD", "2024-02-08T00:00:05Z", tx: "t2", status: 4),
                toggle(false, "2024-01-04"), toggle(true, "2024-01-06"),
                note("REFUND", nil, "2024-03-20", tx: "t4", status: 5),
            ])
    }

    @Test func theRichTimelineIsWhatWeComputedByHand() {
        let tl = SubscriptionTimeline.derive(rich)
        #expect(tl.classes() == [.activation, .conversion, .billingRecovery, .renewal, .reactivation])
        #expect(tl.periods[3].isRefunded)
        #expect(tl.runs.map(\.endedAt) == [t("2024-03-20"), t("2024-07-01")])
        #expect(tl.runs.map(\.expirationReason) == [.refund, .other])
        #expect(tl.runs[0].paidPeriodStarts == [t("2024-01-08"), t("2024-02-17")])
        #expect(tl.runs[1].cohortMonth == Month(year: 2024, month: 6))
        #expect(tl.billingFailures[0].outcome(asOf: t("2024-03-01")) == .recovered(days: 9))
        #expect(tl.state(at: t("2024-02-10")) == .gracePeriod)
        #expect(tl.state(at: t("2024-02-11")) == .billingRetry)
        #expect(tl.state(at: t("2024-06-15")) == .inWinBackOffer)
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-01-04T00:00:00Z autoRenewOff", "2024-01-06T00:00:00Z autoRenewOn",
                "2024-01-08T00:00:00Z conversion", "2024-02-08T00:00:00Z billingIssue", "2024-02-17T00:00:00Z billingRecovery",
                "2024-03-17T00:00:00Z renewal", "2024-03-20T00:00:00Z refund", "2024-03-20T00:00:00Z expiration refund",
                "2024-06-01T00:00:00Z reactivation", "2024-07-01T00:00:00Z expiration other",
            ])
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func shuffledAndDuplicatedFactsGiveTheSameTimeline(seed: UInt64) {
        let expected = SubscriptionTimeline.derive(rich)
        var rng = SeededGenerator(state: seed)
        var facts = rich
        facts.transactions = (facts.transactions + facts.transactions.prefix(Int(seed % 4))).shuffled(using: &rng)
        facts.renewals = (facts.renewals + facts.renewals).shuffled(using: &rng)
        facts.notifications = (facts.notifications + facts.notifications.suffix(Int(seed % 3))).shuffled(using: &rng)
        #expect(SubscriptionTimeline.derive(facts) == expected)
    }

    @Test func laterV2VersionOfATransactionWins() {
        // REFUND_REVERSED: the later signed copy has no revocation any more.
        let tl = derive([
            tx("a", "2024-01-01", "2024-02-01", revoked: "2024-01-10", signed: "2024-01-10"),
            tx("a", "2024-01-01", "2024-02-01", signed: "2024-01-15"),
        ])
        #expect(tl.periods.count == 1)
        #expect(!tl.periods[0].isRefunded)
    }

    @Test func v1VersionWithCancellationWins() {
        let tl = derive([
            tx("a", "2024-01-01", "2024-02-01"),
            tx("a", "2024-01-01", "2024-02-01", revoked: "2024-01-10"),
        ])
        #expect(tl.periods.count == 1)
        #expect(tl.periods[0].isRefunded)
    }

    @Test func eventsAreReadInHalfOpenRangesAtOrBeforeAsOf() {
        let tl = derive([tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-02-01", "2024-03-01")])
        let january = tl.events(in: t("2024-01-01")..<t("2024-02-01"), asOf: t("2024-06-01"))
        #expect(january.map(\.type) == [.activation])
        let february = tl.events(in: t("2024-02-01")..<t("2024-03-01"), asOf: t("2024-06-01"))
        #expect(february.map(\.type) == [.renewal])
        #expect(tl.events(in: t("2024-02-01")..<t("2024-03-01"), asOf: t("2024-02-01")).map(\.type) == [.renewal])
        #expect(tl.events(in: t("2024-02-01")..<t("2024-03-01"), asOf: t("2024-01-31T23:59:59Z")).isEmpty)
        #expect(tl.events(in: t("2024-03-01")..<t("2024-03-02"), asOf: t("2024-03-01")).map(\.type) == [.expiration])
    }

    /// A copy's own date decides: v2 `signedDate`, a v1 row's revocation date.
    @Test func aV1RevocationAfterTheV2CopiesWins() {
        let renewed = tx("a", "2024-01-01", "2024-02-01", signed: "2024-01-01")
        let v1Refunded = tx("a", "2024-01-01", "2024-02-01", revoked: "2024-01-15")
        let reversed = tx("a", "2024-01-01", "2024-02-01", signed: "2024-01-20")
        for facts in [[renewed, v1Refunded], [v1Refunded, renewed]] {
            #expect(derive(facts).periods[0].isRefunded)
            #expect(derive(facts).periods[0].end == t("2024-01-15"))
        }
        // REFUND_REVERSED signed after the revocation: not refunded any more.
        for facts in [[renewed, v1Refunded, reversed], [reversed, v1Refunded, renewed]] {
            #expect(!derive(facts).periods[0].isRefunded)
        }
    }
}
