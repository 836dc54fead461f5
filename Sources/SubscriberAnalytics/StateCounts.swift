import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// How many subscriptions are in each state (docs/metrics.md, "States") at an instant.
public struct StateCounts: Sendable, Equatable {
    public var asOf: Instant
    public var counts: [SubscriptionState: Int]

    public init(asOf: Instant, counts: [SubscriptionState: Int] = [:]) {
        self.asOf = asOf
        self.counts = counts
    }

    public subscript(state: SubscriptionState) -> Int { counts[state] ?? 0 }
    /// Every state but billingRetry and expired.
    public var active: Int { SubscriptionState.allCases.filter(\.isActive).reduce(0) { $0 + self[$1] } }
    /// Subscriptions that ever started, at `asOf`.
    public var total: Int { counts.values.reduce(0, +) }
}

extension SubscriberAnalytics {
    /// States at `asOf`; with a product, by the product of the latest period started at
    /// or before `asOf` (in retry, the failed period).
    public func states(asOf: Instant, scope: ReportScope = ReportScope()) throws -> StateCounts {
        StateCounts(asOf: asOf, counts: try database.segmentCounts(at: [asOf], scope: scope.rows)[0])
    }
}
