import SubscriptionModel
import Testing

@testable import SubscriptionTimeline

@Suite struct PeriodTests {
    @Test(
        arguments: [
            (nil, nil, OfferKind.standard, false),
            (1, "FREE_TRIAL", .freeTrial, true),
            (1, "PAY_AS_YOU_GO", .introductory, false),
            (1, "PAY_UP_FRONT", .introductory, false),
            (2, nil, .promotional, false),
            (2, "FREE_TRIAL", .promotional, true),
            (3, "PAY_UP_FRONT", .offerCode, false),
            (4, nil, .winBack, false),
        ] as [(Int?, String?, OfferKind, Bool)])
    func offerKinds(offerType: Int?, discount: String?, kind: OfferKind, free: Bool) {
        let tl = derive([tx("a", "2024-01-01", "2024-02-01", offerType: offerType, discount: discount)])
        #expect(tl.periods[0].offerKind == kind)
        #expect(tl.periods[0].isFree == free)
        #expect(tl.periods[0].isPaid == !free)
        #expect(tl.state(at: t("2024-01-15")) == SubscriptionState(kind))
        #expect(tl.classes() == [.activation])
    }

    @Test func earlyRenewalIsCutToTheNextStartButIsNoUpgrade() {
        let tl = derive([
            tx("a", "2024-01-01", "2024-02-01"),
            tx("b", "2024-01-31T12:00:00Z", "2024-03-01"),
        ])
        #expect(tl.periods[0].end == t("2024-01-31T12:00:00Z"))
        #expect(tl.periods[0].expiresDate == t("2024-02-01"))
        #expect(!tl.periods[0].isCutByUpgrade)
        #expect(tl.classes() == [.activation, .renewal])
        #expect(tl.runs[0].paidPeriodStarts == [t("2024-01-01"), t("2024-01-31T12:00:00Z")])
    }

    @Test func upgradeMarkedIsUpgradedIsCutAndNotARefund() {
        // v1: the upgraded row carries is_upgraded and a cancellation date at the upgrade.
        let tl = derive([
            tx("a", "basic", "2024-01-01", "2024-02-01", revoked: "2024-01-10", upgraded: true),
            tx("b", "premium", "2024-01-10", "2024-02-10"),
        ])
        #expect(tl.periods[0].end == t("2024-01-10"))
        #expect(tl.periods[0].isCutByUpgrade)
        // Retention counts paid periods not cut by an upgrade: the run's paid starts are exactly those.
        #expect(!tl.periods[0].countsForRetention && tl.periods[1].countsForRetention)
        #expect(tl.runs[0].paidPeriodStarts == tl.periods.filter(\.countsForRetention).map(\.start))
        #expect(!tl.periods[0].isRefunded)
        #expect(tl.periods[0].isPaid)
        #expect(tl.classes() == [.activation, .productChange])
        #expect(!tl.events.contains { $0.type == .refund })
        #expect(tl.runs.count == 1)
        // The cut period makes the run a member of January's cohort but is not a paid period.
        #expect(tl.runs[0].cohortMonth == Month(year: 2024, month: 1))
        #expect(tl.runs[0].firstPaidProductId == "basic")
        #expect(tl.runs[0].paidPeriodStarts == [t("2024-01-10")])
    }

    /// docs/metrics.md "Periods": Apple's word that a revoked period was refunded (a revocation
    /// reason, v1 `cancellation_reason`, or `revocationType` REFUND_FULL/REFUND_PRORATED) wins over
    /// an upgrade cut: a refund of the refund amount and no credit, and a period still cut by the
    /// upgrade for the classes (the upgrade's period began at the refund: the run goes on).
    @Test(
        arguments: [
            (1, "REFUND_PRORATED", 50_000, 5_495), (nil, "REFUND_FULL", nil, 10_990), (0, nil, nil, 10_990),
        ] as [(Int?, String?, Int?, Int64)])
    func aRefundAppleReportsWinsOverTheUpgradeThatCutThePeriod(
        reason: Int?, type: String?, percentage: Int?, refund: Int64
    ) {
        var upgraded = tx("a", "basic", "2024-01-01", "2024-02-01", revoked: "2024-01-10", upgraded: true)
        (upgraded.revocationReason, upgraded.revocationType, upgraded.revocationPercentage) = (reason, type, percentage)
        (upgraded.price, upgraded.currency) = (10_990, "USD")
        var next = tx("b", "premium", "2024-01-10", "2024-02-10")
        (next.price, next.currency) = (19_990, "USD")
        let tl = derive([upgraded, next])
        #expect(tl.periods[0].isRefunded)
        #expect(tl.periods[0].isCutByUpgrade)
        #expect(!tl.periods[0].isPaid)
        #expect(tl.classes() == [.activation, .productChange])
        #expect(tl.runs.count == 1)
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-01-10T00:00:00Z refund", "2024-01-10T00:00:00Z productChange",
                "2024-02-10T00:00:00Z expiration other",
            ])
        let money = tl.money(priceTable: .empty)
        #expect(money[0].isCharged)
        #expect(money[0].refundAmount == refund)
        #expect(money[0].refundAt == t("2024-01-10"))
        #expect(money[0].upgradeCredit == nil && money[0].creditAt == nil)
        #expect(tl.paid(asOf: t("2024-01-20"), money: money) == ["USD": 10_990 - refund + 19_990])
    }

    /// Alone (Apple's `signedTransactionWithRevocation` has no period after it), the refund ends
    /// the run: expiration reason `refund`.
    @Test func aRefundedUpgradedPeriodWithNothingAfterItEndsItsRunByRefund() {
        var upgraded = tx("a", "basic", "2024-01-01", "2024-02-01", revoked: "2024-01-10", upgraded: true)
        upgraded.revocationReason = 1
        let tl = derive([upgraded])
        #expect(tl.periods[0].isRefunded && tl.periods[0].isCutByUpgrade)
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-01-10T00:00:00Z refund", "2024-01-10T00:00:00Z expiration refund",
            ])
    }

    @Test func overlapOfMoreThanADayIsAnUpgradeEvenWhenRevoked() {
        // v2 never resends the upgraded transaction; here a revocation arrived anyway.
        let tl = derive([
            tx("a", "basic", "2024-01-01", "2024-02-01", revoked: "2024-01-20"),
            tx("b", "premium", "2024-01-15", "2024-02-15"),
        ])
        #expect(tl.periods[0].end == t("2024-01-15"))
        #expect(tl.periods[0].isCutByUpgrade)
        #expect(!tl.periods[0].isRefunded)
        #expect(tl.classes() == [.activation, .productChange])
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-01-15T00:00:00Z productChange",
                "2024-02-15T00:00:00Z expiration other",
            ])
    }

    @Test func overlapOfExactly24HoursIsNotAnUpgrade() {
        let tl = derive([tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-01-31", "2024-03-01")])
        #expect(!tl.periods[0].isCutByUpgrade)
        #expect(tl.classes() == [.activation, .renewal])
    }

    @Test func downgradeAtRenewalIsAProductChange() {
        let tl = derive([tx("a", "premium", "2024-01-01", "2024-02-01"), tx("b", "basic", "2024-02-01", "2024-03-01")])
        #expect(tl.classes() == [.activation, .productChange])
        #expect(!tl.periods[0].isCutByUpgrade)
        #expect(tl.runs[0].paidPeriodStarts == [t("2024-01-01"), t("2024-02-01")])
        #expect(tl.state(at: t("2024-02-01")) == .standard)
        #expect(tl.productId(at: t("2024-02-01")) == "basic")
        #expect(tl.productId(at: t("2024-01-31T23:59:59Z")) == "premium")
    }

    @Test func trialToPaidIsAConversionAndTheCohortStartsAtTheFirstPaidPeriod() {
        let tl = derive([
            tx("a", "2024-01-25", "2024-02-01", offerType: 1, discount: "FREE_TRIAL"),
            tx("b", "2024-02-01", "2024-03-01"),
            tx("c", "2024-03-01", "2024-04-01"),
        ])
        #expect(tl.classes() == [.activation, .conversion, .renewal])
        #expect(tl.runs[0].firstPaidStart == t("2024-02-01"))
        #expect(tl.runs[0].cohortMonth == Month(year: 2024, month: 2))
        #expect(tl.runs[0].paidPeriods(asOf: t("2024-02-29")) == 1)
        #expect(tl.runs[0].paidPeriods(asOf: t("2024-03-01")) == 2)
        #expect(tl.paidPeriods(asOf: t("2024-03-01")) == 2)
    }

    @Test func introductoryToStandardIsAConversion() {
        let tl = derive([
            tx("a", "2024-01-01", "2024-02-01", offerType: 1, discount: "PAY_AS_YOU_GO"),
            tx("b", "2024-02-01", "2024-03-01"),
        ])
        #expect(tl.classes() == [.activation, .conversion])
    }

    @Test func statesOnPeriodBoundariesAndInsideAShortGap() {
        // A renewal charged 12 h after the previous end: the gap is expired but the run goes on.
        let tl = derive([tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-02-01T12:00:00Z", "2024-03-01T12:00:00Z")])
        #expect(tl.state(at: t("2023-12-31T23:59:59Z")) == nil)
        #expect(tl.state(at: t("2024-01-01")) == .standard)
        #expect(tl.state(at: t("2024-02-01")) == .expired)
        #expect(tl.state(at: t("2024-02-01T11:59:59Z")) == .expired)
        #expect(tl.state(at: t("2024-02-01T12:00:00Z")) == .standard)
        #expect(tl.state(at: t("2024-03-01T12:00:00Z")) == .expired)
        #expect(tl.classes() == [.activation, .renewal])
        #expect(tl.runs.count == 1)
        #expect(tl.isOpen(run: 0, at: t("2024-02-01T06:00:00Z")))
        #expect(!tl.isOpen(run: 0, at: t("2024-03-01T12:00:00Z")))
        #expect(tl.expirationReason(asOf: t("2024-02-01T06:00:00Z")) == nil)
        #expect(tl.expirationReason(asOf: t("2024-03-01T12:00:00Z")) == .other)
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-02-01T12:00:00Z renewal",
                "2024-03-01T12:00:00Z expiration other",
            ])
        #expect(
            tl.stateIntervals == [
                StateInterval(from: t("2024-01-01"), to: t("2024-02-01"), state: .standard, productId: "monthly"),
                StateInterval(from: t("2024-02-01"), to: t("2024-02-01T12:00:00Z"), state: .expired, productId: "monthly"),
                StateInterval(
                    from: t("2024-02-01T12:00:00Z"), to: t("2024-03-01T12:00:00Z"), state: .standard, productId: "monthly"),
                StateInterval(from: t("2024-03-01T12:00:00Z"), to: nil, state: .expired, productId: "monthly"),
            ])
    }

    @Test func gapOfMoreThan24HoursStartsANewRun() {
        let tl = derive([tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-02-02T00:00:01Z", "2024-03-02")])
        #expect(tl.classes() == [.activation, .reactivation])
        #expect(tl.runs.map(\.endedAt) == [t("2024-02-01"), t("2024-03-02")])
        #expect(tl.periods.map(\.runIndex) == [0, 1])
    }

    @Test func consecutiveStandardPeriodsMergeIntoOneStateInterval() {
        let tl = derive([tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-02-01", "2024-03-01")])
        #expect(
            tl.stateIntervals == [
                StateInterval(from: t("2024-01-01"), to: t("2024-03-01"), state: .standard, productId: "monthly"),
                StateInterval(from: t("2024-03-01"), to: nil, state: .expired, productId: "monthly"),
            ])
    }
}
