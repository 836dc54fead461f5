import SubscriptionModel

/// A half-open interval `[from, to)` of constant auto-renew status. A timeline's intervals are
/// consecutive from the first period's start; the last one has `to == nil`.
public struct AutoRenewInterval: Hashable, Sendable, Codable {
    public var from: Instant
    public var to: Instant?
    public var isOn: Bool

    public init(from: Instant, to: Instant?, isOn: Bool) {
        self.from = from
        self.to = to
        self.isOn = isOn
    }

    public func contains(_ t: Instant) -> Bool { from <= t && (to.map { t < $0 } ?? true) }
}
