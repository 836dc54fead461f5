import SubscriptionModel

/// The derived timeline of one subscription: DESIGN §3 applied to all its stored facts.
public struct SubscriptionTimeline: Hashable, Sendable, Codable {
    public var originalTransactionId: String
    public var environment: StoreEnvironment
    /// Sorted by start, non-overlapping.
    public var periods: [Period]
    public var runs: [Run]
    /// Sorted by `at`.
    public var billingFailures: [BillingFailure]
    /// Sorted by `at`, then type order.
    public var events: [TimelineEvent]
    /// Sorted by `at`.
    public var autoRenewChanges: [AutoRenewChange]
    /// From the latest renewal fact (by instant).
    public var autoRenewProductId: String?
    /// Latest price-increase status: nil none known, 0 pending consent, 1 accepted.
    public var priceIncreaseStatus: Int?
    public var appAccountToken: String?

    public init(originalTransactionId: String, environment: StoreEnvironment = .production, periods: [Period] = [],
                runs: [Run] = [], billingFailures: [BillingFailure] = [], events: [TimelineEvent] = [],
                autoRenewChanges: [AutoRenewChange] = [], autoRenewProductId: String? = nil,
                priceIncreaseStatus: Int? = nil, appAccountToken: String? = nil) {
        self.originalTransactionId = originalTransactionId
        self.environment = environment
        self.periods = periods
        self.runs = runs
        self.billingFailures = billingFailures
        self.events = events
        self.autoRenewChanges = autoRenewChanges
        self.autoRenewProductId = autoRenewProductId
        self.priceIncreaseStatus = priceIncreaseStatus
        self.appAccountToken = appAccountToken
    }
}
