import SubscriptionModel

/// A value a fact reported at its instant (a renewal preference, a price-increase status), kept
/// so that the value can be read at any as-of.
public struct TimedValue<Value: Hashable & Sendable & Codable & Comparable>: Hashable, Sendable, Codable {
    public var at: Instant
    public var value: Value

    public init(at: Instant, value: Value) {
        self.at = at
        self.value = value
    }
}

/// The value of the latest element at or before `t` in an array sorted by instant (ties by value,
/// so the greater value is the one read); nil when none is.
func latestValue<V>(in values: [TimedValue<V>], atOrBefore t: Instant) -> V? {
    let i = lastIndex(in: values, atOrBefore: t) { $0.at }
    return i >= 0 ? values[i].value : nil
}
