import GRDB
import SubscriptionModel

extension AppDatabase {
    /// How many subscriptions began (first period started) at or before `asOf`: pane 1's count
    /// of every subscriber.
    ///
    /// Whole days before as-of's day are a sum over `subscriptionStartDay` (a few thousand rows
    /// whatever the store's size); as-of's own day is read from its shorter side. Early in the day,
    /// the subscriptions begun from the day's start up to as-of are read from the segments starting
    /// then (a subscription's first segment starts with its first period); late in the day (the
    /// dashboard opens at the data horizon, the day's last instant with data), the day's kept count
    /// whole, less the subscriptions begun after as-of that day. At a million subscribers the day
    /// up to the horizon was about 20,000 segments, each looked up in `subscription`: 153 ms of the
    /// first frame's 180 warm, 2.9 s cold (docs/performance.md, "The first frame at a million").
    ///
    /// - Parameter productId: only subscriptions whose latest product is this one.
    public func subscriptionsBegun(
        by asOf: Instant, environments: [StoreEnvironment], ownerships: [Ownership],
        productId: String? = nil
    ) throws -> Int {
        let day = Self.day(of: asOf)
        let environment = "environment " + RowScope.inList(environments)
        let ownership = "ownership " + RowScope.inList(ownerships)
        let dayStart = day * Instant.millisecondsPerDay
        let dayEnd = dayStart + Instant.millisecondsPerDay
        var arguments: StatementArguments = ["asOf": asOf.milliseconds, "day": day, "dayStart": dayStart, "dayEnd": dayEnd]
        let lateInDay = asOf.milliseconds - dayStart > dayEnd - asOf.milliseconds
        var product = ""
        if let productId {
            product = " AND productId = :product"
            arguments += ["product": productId]
        }
        return try writer.read { db in
            // Days before as-of's day, or through it when late in the day.
            let kept =
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COALESCE(SUM(count), 0) FROM subscriptionStartDay
                        WHERE \(environment) AND \(ownership) AND day \(lateInDay ? "<=" : "<") :day\(product)
                        """, arguments: arguments) ?? 0
            // Begun on as-of's day up to as-of (early), or after as-of (late).
            let range = lateInDay ? "g.start > :asOf AND g.start < :dayEnd" : "g.start >= :dayStart AND g.start <= :asOf"
            let read =
                try Int.fetchOne(
                    db,
                    sql: try db.presentIndexes(
                        """
                        SELECT COUNT(*) FROM segment g INDEXED BY segment_start
                        JOIN subscription s ON s.originalTransactionId = g.originalTransactionId AND s.firstStart = g.start
                        WHERE g.\(environment) AND g.\(ownership) AND \(range)\(product.isEmpty ? "" : " AND s.productId = :product")
                        """), arguments: arguments) ?? 0
            return lateInDay ? kept - read : kept + read
        }
    }
}
