import GRDB
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// Events (docs/metrics.md, "Events") with their instant in [from, to) and at or before as-of.
public struct EventCounts: Sendable, Equatable {
    public var from: Instant
    public var to: Instant
    public var asOf: Instant
    public var counts: [EventType: Int] = [:]
    public var expirationReasons: [ExpirationReason: Int] = [:]

    public init(from: Instant, to: Instant, asOf: Instant) {
        self.from = from
        self.to = to
        self.asOf = asOf
    }

    public subscript(type: EventType) -> Int { counts[type] ?? 0 }
    public subscript(reason: ExpirationReason) -> Int { expirationReasons[reason] ?? 0 }
}

extension SubscriberAnalytics {
    public func events(from: Instant, to: Instant, asOf: Instant, scope: ReportScope = ReportScope()) throws -> EventCounts {
        var result = EventCounts(from: from, to: to, asOf: asOf)
        let upper = min(to.milliseconds, asOf.milliseconds + 1)
        guard from.milliseconds < upper else { return result }
        let rows = try database.writer.read { db in try Self.eventRows(from: from.milliseconds, upper: upper, scope: scope, db) }
        for row in rows {
            guard let type = EventType(rawValue: row.type) else { continue }
            result.counts[type, default: 0] += row.count
            if type == .expiration, let reason = row.reason.flatMap(ExpirationReason.init(rawValue:)) {
                result.expirationReasons[reason, default: 0] += row.count
            }
        }
        return result
    }

    /// Events per UTC day in [from, to) (for sparklines), one array per type, `days` long.
    public func dailyEvents(from: Instant, days: Int, asOf: Instant, scope: ReportScope = ReportScope()) throws -> [EventType: [Int]] {
        var result: [EventType: [Int]] = [:]
        let to = min(from.adding(days: Int64(days)).milliseconds, asOf.milliseconds + 1)
        guard from.milliseconds < to else { return result }
        let first = AppDatabase.day(of: from)
        // Days counted from `from`: UTC days when it is a midnight, else a scan of the events.
        let rows: [EventRow]
        if first * Instant.millisecondsPerDay == from.milliseconds {
            rows = try database.writer.read { db in try Self.eventRows(from: from.milliseconds, upper: to, scope: scope, db) }
        } else {
            rows = try database.writer.read { db in
                try Self.scanEvents(from: from.milliseconds, upper: to, day: "(at - ?1) / \(Instant.millisecondsPerDay) + \(first)",
                                    scope: scope, db)
            }
        }
        for row in rows {
            guard let type = EventType(rawValue: row.type) else { continue }
            let day = Int(row.day - first)
            if result[type] == nil { result[type] = Array(repeating: 0, count: days) }
            if day >= 0 && day < days { result[type]![day] += row.count }
        }
        return result
    }

    struct EventRow {
        var day: Int64
        var type: String
        var reason: String?
        var count: Int
    }

    /// The events with from <= at < upper by UTC day, type and expiration reason: the whole days
    /// from `eventDay` (counted per day by the materialiser), the partial first and last days from
    /// the `event_at` index.
    static func eventRows(from: Int64, upper: Int64, scope: ReportScope, _ db: Database) throws -> [EventRow] {
        let length = Instant.millisecondsPerDay
        let fromDay = AppDatabase.day(of: Instant(milliseconds: from))
        let firstWhole = fromDay * length == from ? fromDay : fromDay + 1
        let lastDay = AppDatabase.day(of: Instant(milliseconds: upper))  // days before it are whole
        guard firstWhole < lastDay else {
            return try scanEvents(from: from, upper: upper, day: "\(fromDay) + (at - \(fromDay * length)) / \(length)", scope: scope, db)
        }
        var rows = try scanEvents(from: from, upper: firstWhole * length, day: "\(fromDay)", scope: scope, db)
        var sql = """
            SELECT day, type, NULLIF(expirationReason, ''), SUM(count) FROM eventDay
            WHERE \(scope.sql()) AND day >= ?1 AND day < ?2
            """
        var arguments: StatementArguments = [firstWhole, lastDay]
        if let product = scope.productId { sql += " AND productId = ?3"; arguments += [product] }
        for row in try Row.fetchAll(db, sql: sql + " GROUP BY 1, 2, 3", arguments: arguments) {
            rows.append(EventRow(day: row[0], type: row[1], reason: row[2], count: row[3]))
        }
        rows += try scanEvents(from: lastDay * length, upper: upper, day: "\(lastDay)", scope: scope, db)
        return rows
    }

    /// The events with from <= at < upper read from the `event_at` index, their day given by `day`
    /// (SQL; `?1` is `from`).
    static func scanEvents(from: Int64, upper: Int64, day: String, scope: ReportScope, _ db: Database) throws -> [EventRow] {
        guard from < upper else { return [] }
        var sql = """
            SELECT \(day) AS day, type, expirationReason, COUNT(*) FROM event
            WHERE \(scope.sql()) AND at >= ?1 AND at < ?2
            """
        var arguments: StatementArguments = [from, upper]
        if let product = scope.productId { sql += " AND productId = ?3"; arguments += [product] }
        return try Row.fetchAll(db, sql: sql + " GROUP BY 1, 2, 3", arguments: arguments).map {
            EventRow(day: $0[0], type: $0[1], reason: $0[2], count: $0[3])
        }
    }
}
