import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// The subscriptions behind one bar of MRR movement (one bucket, one currency), grouped by what
/// they did: the rows `report movement` sums for that bucket (docs/metrics.md "MRR movement").
public struct MovementMembers: Sendable, Equatable {
    public struct Member: Sendable, Equatable {
        public var originalTransactionId: String
        public var component: MovementComponent
        /// MRR the subscription added at the bucket's start and at its end, milliunits.
        public var before: Int64
        public var after: Int64
    }

    public var bucket: ReportBucket
    public var currency: String
    /// By component (new, reactivation, expansion, contraction, churn), then id; at most
    /// ``limit`` of each component.
    public var members: [Member]
    /// How many subscriptions each component has in all (also those past the limit).
    public var counts: [MovementComponent: Int]
    /// What each component moved in all (also those past the limit), milliunits rounded once from
    /// the exact sum as the bridge rounds it: the bar's own figure, not a sum of rounded members.
    public var amounts: [MovementComponent: Int64]

    /// The rows kept per component: memory stays bounded on a month of a large store.
    public static let limit = 1_000
}

extension SubscriberAnalytics {
    /// The subscriptions that moved MRR in `currency` over `bucket`, by the rules of
    /// ``movement(from:to:asOf:by:scope:rates:keptMonths:)`` without conversion: a subscription
    /// moves only if its MRR keys change inside the bucket, so these are read from its kept
    /// changes (``MRRChanges``), whatever the bucket.
    public func movementMembers(bucket: ReportBucket, currency: String, scope: ReportScope = ReportScope()) throws
        -> MovementMembers
    {
        let durations = try productDurations()
        let rowScope = scope.rows
        let inScope = rowScope.keeps
        var byComponent: [MovementComponent: [MovementMembers.Member]] = [:]
        var counts: [MovementComponent: Int] = [:]
        var twelfths: [MovementComponent: Int64] = [:]
        try database.mrrChanges(after: bucket.start, through: bucket.end, environments: rowScope.environments) {
            subscription in
            let atStart = subscription.changes[0].before.filter(inScope)
            let atEnd = subscription.changes[subscription.changes.count - 1].after.filter(inScope)
            if atStart.isEmpty && atEnd.isEmpty { return }
            let a = try Self.twelfths(keys: atStart, durations: durations, rates: nil, month: bucket.start.month)[currency] ?? 0
            let b = try Self.twelfths(keys: atEnd, durations: durations, rates: nil, month: bucket.end.month)[currency] ?? 0
            let isNew = a == 0 && b != 0 ? subscription.firstCharge >= bucket.start.milliseconds : false
            guard let component = MovementComponent(start: a, end: b, isNew: isNew) else { return }
            counts[component, default: 0] += 1
            twelfths[component, default: 0] += b - a
            guard byComponent[component, default: []].count < MovementMembers.limit else { return }
            byComponent[component, default: []].append(
                MovementMembers.Member(
                    originalTransactionId: subscription.originalTransactionId, component: component,
                    before: MoneyMath.scaled(a, by: 1, over: 12), after: MoneyMath.scaled(b, by: 1, over: 12)))
        }
        // mrrChanges reads in id order: each group is sorted already.
        let members = MovementComponent.allCases.flatMap { byComponent[$0] ?? [] }
        return MovementMembers(
            bucket: bucket, currency: currency, members: members, counts: counts,
            amounts: twelfths.mapValues { MoneyMath.scaled($0, by: 1, over: 12) })
    }
}
