/// The chances behind the monthly payments of a 12-month commitment (docs/metrics.md, "Billing
/// plans and commitments"), each drawn once per commitment term.
///
/// Changing a value changes every generated file that has commitments; the same values and seed
/// give the same bytes.
public struct CommitmentProbabilities: Sendable, Equatable {
    /// Weights of how a term ends: all 12 payments, then the next term…
    public var termRenews = 0.5
    /// …commitment auto-renew turned off mid-term: the payments go on to the 12th, then the
    /// subscription expires (`EXPIRED`/`VOLUNTARY`)…
    public var termCanceled = 0.25
    /// …a payment fails and billing retry gives up after 90 days (no grace period)…
    public var termBillingExpires = 0.09
    /// …the current payment is refunded, which ends the commitment…
    public var termCurrentRefunded = 0.08
    /// …or an immediate upgrade to a higher level ends it.
    public var termUpgraded = 0.08

    /// In a term, one payment fails and is recovered later (the schedule and the end date move).
    public var recoveredFailure = 0.12
    /// In a term, an earlier payment is refunded while the commitment goes on.
    public var earlierPaymentRefunded = 0.12

    public init() {}
}
