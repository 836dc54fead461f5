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
        for row in try database.eventCountsByDay(from: from.milliseconds, upper: upper, scope: scope.rows) {
            guard let type = EventType(rawValue: row.type) else { continue }
            result.counts[type, default: 0] += row.count
            if type == .expiration, let reason = row.reason.flatMap(ExpirationReason.init(rawValue:)) {
                result.expirationReasons[reason, default: 0] += row.count
            }
        }
        return result
    }

    /// Events per UTC day in [from, to) (for sparklines), one array per type, `days` long.
    public func dailyEvents(from: Instant, days: Int, asOf: Instant, scope: ReportScope = ReportScope()) throws -> [EventType:
        [Int]]
    {
        var result: [EventType: [Int]] = [:]
        let to = min(from.adding(days: Int64(days)).milliseconds, asOf.milliseconds + 1)
        guard from.milliseconds < to else { return result }
        let first = AppDatabase.day(of: from)
        // Days counted from `from`: UTC days when it is a midnight, else a scan of the events.
        let rows =
            first * Instant.millisecondsPerDay == from.milliseconds
            ? try database.eventCountsByDay(from: from.milliseconds, upper: to, scope: scope.rows)
            : try database.eventCountsByDay(
                scanning: from.milliseconds, upper: to, origin: from.milliseconds, firstDay: first,
                scope: scope.rows)
        for row in rows {
            guard let type = EventType(rawValue: row.type) else { continue }
            let day = Int(row.day - first)
            if result[type] == nil { result[type] = Array(repeating: 0, count: days) }
            if day >= 0 && day < days { result[type]![day] += row.count }
        }
        return result
    }
}
