import SubscriptionModel

/// A half-open interval `[from, to)` in which the subscription's state, product and billing plan do
/// not change.
/// A timeline's intervals are consecutive from the first period's start; the last one is
/// `expired` with `to == nil`. "State at t" is one lookup: `from <= t AND (to IS NULL OR t < to)`.
public struct StateInterval: Hashable, Sendable, Codable {
    public var from: Instant
    public var to: Instant?
    public var state: SubscriptionState
    /// The product of the latest period started at or before any instant of the interval (in
    /// retry, the failed period).
    public var productId: String
    /// The billing plan of that same period: what `--plan` counts the state under (docs/metrics.md,
    /// "Billing plans and commitments").
    public var billingPlan: BillingPlan

    public init(from: Instant, to: Instant?, state: SubscriptionState, productId: String, billingPlan: BillingPlan = .upfront) {
        self.from = from
        self.to = to
        self.state = state
        self.productId = productId
        self.billingPlan = billingPlan
    }

    public func contains(_ t: Instant) -> Bool { from <= t && (to.map { t < $0 } ?? true) }
}
