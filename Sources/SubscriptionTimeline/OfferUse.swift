import SubscriptionModel

/// A maximal sequence of consecutive periods in one run with the same offer kind (not
/// `standard`) and offer identifier (docs/metrics.md "Money", "Offer conversion").
public struct OfferUse: Hashable, Sendable, Codable {
    public enum Outcome: String, Hashable, Sendable, Codable, CaseIterable {
        case converted, lapsed, switched, pending
    }

    public var offerKind: OfferKind
    /// Nil when the offer has none (introductory offers).
    public var offerIdentifier: String?
    /// The product of its first period.
    public var productId: String
    /// The billing plan of its first period: what `--plan` counts the use under (docs/metrics.md,
    /// "Billing plans and commitments").
    public var billingPlan: BillingPlan = .upfront
    /// Its first period's start.
    public var start: Instant
    public var runIndex: Int
    /// Index into `periods` of its last period.
    public var lastPeriod: Int
    /// The start of the next period of the run, and whether that one is `standard`.
    public var nextStart: Instant?
    public var nextIsStandard: Bool
    /// When the run ended with the use's last period (it may lie after the data horizon).
    public var lapsedAt: Instant?

    /// The use at `asOf` (which must be at or after its start).
    public func outcome(asOf: Instant) -> Outcome {
        if let next = nextStart, next <= asOf { return nextIsStandard ? .converted : .switched }
        if let lapsed = lapsedAt, lapsed <= asOf { return .lapsed }
        return .pending
    }
}

extension SubscriptionTimeline {
    /// Every offer use, in order; none for a family-shared subscription (offers are bought by the
    /// purchaser, whose own subscription counts them).
    public var offerUses: [OfferUse] {
        guard !isFamilyShared else { return [] }
        var uses: [OfferUse] = []
        var i = 0
        while i < periods.count {
            let p = periods[i]
            guard p.offerKind != .standard else {
                i += 1
                continue
            }
            var last = i
            while last + 1 < periods.count, periods[last + 1].runIndex == p.runIndex,
                periods[last + 1].offerKind == p.offerKind, periods[last + 1].offerIdentifier == p.offerIdentifier
            {
                last += 1
            }
            let run = runs[p.runIndex]
            let next = last < run.lastPeriod ? periods[last + 1] : nil
            uses.append(
                OfferUse(
                    offerKind: p.offerKind, offerIdentifier: p.offerIdentifier, productId: p.productId,
                    billingPlan: p.billingPlan, start: p.start, runIndex: p.runIndex, lastPeriod: last, nextStart: next?.start,
                    nextIsStandard: next?.offerKind == .standard, lapsedAt: next == nil ? run.endedAt : nil))
            i = last + 1
        }
        return uses
    }
}
