import SubscriptionModel

/// A half-open interval `[from, to)` in which the subscription's state and product do not change.
/// A timeline's intervals are consecutive from the first period's start; the last one is
/// `expired` with `to == nil`. "State at t" is one lookup: `from <= t AND (to IS NULL OR t < to)`.
public struct StateInterval: Hashable, Sendable, Codable {
    public var from: Instant
    public var to: Instant?
    public var state: SubscriptionState
    /// The product of the latest period started at or before any instant of the interval (in
    /// retry, the failed period).
    public var productId: String

    public init(from: Instant, to: Instant?, state: SubscriptionState, productId: String) {
        self.from = from
        self.to = to
        self.state = state
        self.productId = productId
    }

    public func contains(_ t: Instant) -> Bool { from <= t && (to.map { t < $0 } ?? true) }
}
