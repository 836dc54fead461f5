/// The chances behind one run of periods of a simulated subscriber (how a period ends, what happens
/// inside it), each drawn once per period unless it says otherwise. Renewal itself follows
/// ``LifecycleModel/retentionTargets`` and ``LifecycleModel/trialConversion``.
///
/// Changing a value changes every generated file; the same values and seed give the same bytes.
public struct RunProbabilities: Sendable, Equatable {
    /// A period of a product above the lowest level is cut short by an immediate upgrade.
    public var upgrade = 0.025
    /// An upgrade from the weekly product goes to pro monthly (else to premium monthly).
    public var weeklyUpgradeToProMonthly = 0.5

    /// A free trial that converts does so through billing retry and a recovery.
    public var trialConversionThroughRecovery = 0.10
    /// A paid period that renews does so through billing retry and a recovery.
    public var renewalThroughRecovery = 0.06
    /// A free trial that does not convert is turned off by the subscriber (else billing fails).
    public var trialLapseVoluntary = 0.85
    /// A paid period that does not renew while a price increase is due ends over the increase.
    public var priceIncreaseLapse = 0.5
    /// Weights of how another paid period that does not renew ends: the subscriber turns it off…
    public var paidEndVoluntary = 0.65
    /// …billing fails until retry gives up…
    public var paidEndBilling = 0.27
    /// …or it renews once more and that period is refunded.
    public var paidEndRefund = 0.08

    /// The subscriber turns auto-renew off and on again inside a period.
    public var autoRenewToggle = 0.04
    /// A continuing paid period downgrades at its next renewal (when a lower level exists).
    public var downgrade = 0.03
    /// A continuing monthly paid period redeems an offer for its next renewal…
    public var offerRedemption = 0.025
    /// …a promotional offer (else an offer code).
    public var promotionalRatherThanOfferCode = 0.7

    /// In billing retry, the subscriber cancels before retry gives up.
    public var cancelDuringBillingRetry = 0.15
    /// A recovery with a grace period comes within it.
    public var recoveryWithinGrace = 0.7
    /// Otherwise a recovery comes within 16 days (else from 16 to 59 days).
    public var recoveryWithin16Days = 0.75

    /// A renewal is charged up to a day before the period ends.
    public var earlyRenewal = 0.3
    /// A refund is for `revocationReason` 0 (other) rather than 1 (an issue in the app).
    public var refundForOtherReason = 0.6

    public init() {}
}
