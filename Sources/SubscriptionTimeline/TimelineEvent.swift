import SubscriptionModel

/// One event (docs/metrics.md, "Events") at its instant. Instants may lie after the data horizon
/// (an expiration not yet reached); readers count an event only when it is at or before as-of.
public struct TimelineEvent: Hashable, Sendable, Codable {
    public var at: Instant
    public var type: EventType
    /// The product the event belongs to (`--product`, docs/metrics.md, "Which data, read when"): a
    /// period-start event by that period's product, every other event by the latest period started
    /// at or before `at`.
    public var productId: String
    /// The billing plan of the period whose product the event belongs to (`--plan`, docs/metrics.md,
    /// "Billing plans and commitments").
    public var billingPlan: BillingPlan
    /// Set for `expiration`.
    public var expirationReason: ExpirationReason?
    /// The period a period-start or refund event is about, the failed period of a billing issue.
    public var transactionId: String?

    public init(
        at: Instant, type: EventType, productId: String, billingPlan: BillingPlan = .upfront,
        expirationReason: ExpirationReason? = nil, transactionId: String? = nil
    ) {
        self.at = at
        self.type = type
        self.productId = productId
        self.billingPlan = billingPlan
        self.expirationReason = expirationReason
        self.transactionId = transactionId
    }
}
