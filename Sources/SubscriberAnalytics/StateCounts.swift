import GRDB
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// How many subscriptions are in each DESIGN §3 state at an instant.
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
    /// DESIGN §3 states at `asOf`; with a product, by the product of the latest period started at
    /// or before `asOf` (in retry, the failed period).
    public func states(asOf: Instant, scope: ReportScope = ReportScope()) throws -> StateCounts {
        try database.writer.read { db in
            var sql = """
                SELECT state, COUNT(*) FROM segment
                WHERE \(scope.environment.sql) AND "end" > ?1 AND start <= ?1
                """
            var arguments: StatementArguments = [asOf.milliseconds]
            if let product = scope.productId { sql += " AND productId = ?2"; arguments += [product] }
            sql += " GROUP BY state"
            var result = StateCounts(asOf: asOf)
            for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
                if let state = SubscriptionState(rawValue: row[0]) { result.counts[state] = row[1] }
            }
            return result
        }
    }
}
