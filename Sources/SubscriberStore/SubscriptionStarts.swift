import GRDB
import SubscriptionModel

extension AppDatabase {
    /// How many subscriptions began (first period started) at or before `asOf`: pane 1's count
    /// of every subscriber.
    ///
    /// Whole days before as-of's day are a sum over `subscriptionStartDay` (a few thousand rows
    /// whatever the store's size); the subscriptions begun on as-of's day up to as-of are read from
    /// the segments starting then, since a subscription's first segment starts with its first period.
    ///
    /// - Parameter productId: only subscriptions whose latest product is this one.
    public func subscriptionsBegun(
        by asOf: Instant, environments: [StoreEnvironment], ownerships: [Ownership],
        productId: String? = nil
    ) throws -> Int {
        let day = Self.day(of: asOf)
        let environment = "environment " + RowScope.inList(environments)
        let ownership = "ownership " + RowScope.inList(ownerships)
        var arguments: StatementArguments = ["asOf": asOf.milliseconds, "day": day, "dayStart": day * Instant.millisecondsPerDay]
        var product = ""
        if let productId {
            product = " AND productId = :product"
            arguments += ["product": productId]
        }
        return try writer.read { db in
            let before =
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COALESCE(SUM(count), 0) FROM subscriptionStartDay
                        WHERE \(environment) AND \(ownership) AND day < :day\(product)
                        """, arguments: arguments) ?? 0
            let today =
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM segment g INDEXED BY segment_start
                        JOIN subscription s ON s.originalTransactionId = g.originalTransactionId AND s.firstStart = g.start
                        WHERE g.\(environment) AND g.\(ownership) AND g.start >= :dayStart AND g.start <= :asOf\(product.isEmpty ? "" : " AND s.productId = :product")
                        """, arguments: arguments) ?? 0
            return before + today
        }
    }
}
