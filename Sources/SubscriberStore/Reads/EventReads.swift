import GRDB
import SubscriptionModel

/// How many events of one type (and expiration reason) fell on one UTC day.
public struct EventDayCount: FetchableRecord, Sendable, Equatable {
    /// Days since the Unix epoch (`AppDatabase.day(of:)`), or counted from the read's own origin.
    public var day: Int64
    /// An `EventType` raw value.
    public var type: String
    /// An `ExpirationReason` raw value for expirations, else nil.
    public var reason: String?
    public var count: Int

    public init(row: Row) {
        day = row["day"]
        type = row["type"]
        reason = row["reason"]
        count = row["count"]
    }
}

extension AppDatabase {
    /// The events with from <= at < upper by UTC day, type and expiration reason: the whole days
    /// from `eventDay` (counted per day by the materialiser), the partial first and last days from
    /// the `event_at` index.
    public func eventCountsByDay(from: Int64, upper: Int64, scope: RowScope) throws -> [EventDayCount] {
        try writer.read { db in
            let length = Instant.millisecondsPerDay
            let fromDay = Self.day(of: Instant(milliseconds: from))
            let firstWhole = fromDay * length == from ? fromDay : fromDay + 1
            let lastDay = Self.day(of: Instant(milliseconds: upper))  // days before it are whole
            guard firstWhole < lastDay else {
                return try Self.scanEvents(
                    from: from, upper: upper, origin: fromDay * length, firstDay: fromDay, scope: scope, db)
            }
            var rows = try Self.scanEvents(
                from: from, upper: firstWhole * length, origin: fromDay * length, firstDay: fromDay,
                scope: scope, db)
            rows += try SQLRequest<EventDayCount>(
                literal: """
                    SELECT day, type, NULLIF(expirationReason, '') AS reason, SUM(count) AS count FROM eventDay
                    WHERE \(scope.rows()) AND day >= \(firstWhole) AND day < \(lastDay)\(scope.product("productId"))\(scope.plan("billingPlan"))
                    GROUP BY 1, 2, 3
                    """
            ).fetchAll(db)
            rows += try Self.scanEvents(
                from: lastDay * length, upper: upper, origin: lastDay * length, firstDay: lastDay,
                scope: scope, db)
            return rows
        }
    }

    /// The events with from <= at < upper, read from the `event_at` index, by day counted from
    /// `origin` (day `firstDay` starts there), type and expiration reason: for sparklines whose
    /// days start at an instant other than midnight.
    public func eventCountsByDay(
        scanning from: Int64, upper: Int64, origin: Int64, firstDay: Int64,
        scope: RowScope
    ) throws -> [EventDayCount] {
        try writer.read { db in
            try Self.scanEvents(from: from, upper: upper, origin: origin, firstDay: firstDay, scope: scope, db)
        }
    }

    static func scanEvents(
        from: Int64, upper: Int64, origin: Int64, firstDay: Int64, scope: RowScope,
        _ db: Database
    ) throws -> [EventDayCount] {
        guard from < upper else { return [] }
        return try SQLRequest<EventDayCount>(
            literal: """
                SELECT (at - \(origin)) / \(Instant.millisecondsPerDay) + \(firstDay) AS day, type,
                       expirationReason AS reason, COUNT(*) AS count FROM event
                WHERE \(scope.rows()) AND at >= \(from) AND at < \(upper)\(scope.product("productId"))\(scope.plan("billingPlan"))
                GROUP BY 1, 2, 3
                """
        ).fetchAll(db)
    }
}
