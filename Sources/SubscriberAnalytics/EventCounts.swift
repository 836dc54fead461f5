import GRDB
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// DESIGN §3 events with their instant in [from, to) and at or before as-of.
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
        try database.writer.read { db in
            var sql = """
                SELECT type, expirationReason, COUNT(*) FROM event
                WHERE \(scope.environment.sql) AND at >= ?1 AND at < ?2
                """
            var arguments: StatementArguments = [from.milliseconds, upper]
            if let product = scope.productId { sql += " AND productId = ?3"; arguments += [product] }
            sql += " GROUP BY type, expirationReason"
            for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
                guard let type = EventType(rawValue: row[0]) else { continue }
                let n: Int = row[2]
                result.counts[type, default: 0] += n
                if type == .expiration, let reason = (row[1] as String?).flatMap(ExpirationReason.init(rawValue:)) {
                    result.expirationReasons[reason, default: 0] += n
                }
            }
        }
        return result
    }

    /// Events per UTC day in [from, to) (for sparklines), one array per type, `days` long.
    public func dailyEvents(from: Instant, days: Int, asOf: Instant, scope: ReportScope = ReportScope()) throws -> [EventType: [Int]] {
        var result: [EventType: [Int]] = [:]
        let to = min(from.adding(days: Int64(days)).milliseconds, asOf.milliseconds + 1)
        guard from.milliseconds < to else { return result }
        try database.writer.read { db in
            var sql = """
                SELECT type, (at - ?1) / 86400000 AS day, COUNT(*) FROM event
                WHERE \(scope.environment.sql) AND at >= ?1 AND at < ?2
                """
            var arguments: StatementArguments = [from.milliseconds, to]
            if let product = scope.productId { sql += " AND productId = ?3"; arguments += [product] }
            sql += " GROUP BY type, day"
            for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
                guard let type = EventType(rawValue: row[0]) else { continue }
                let day: Int = row[1]
                if result[type] == nil { result[type] = Array(repeating: 0, count: days) }
                if day >= 0 && day < days { result[type]![day] += row[2] }
            }
        }
        return result
    }
}
