import GRDB
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

extension SubscriberAnalytics {
    /// DESIGN §3 states at `days` instants one day apart, the last at `asOf` (for sparklines): one
    /// array per state that occurs, oldest first, `days` long. The last values equal
    /// ``states(asOf:scope:)``.
    ///
    /// One pass over the segments alive in the window, grouped in SQL by the first and the
    /// past-the-last sample each one covers; the per-day counts are running sums of those steps.
    public func dailyStates(endingAt asOf: Instant, days: Int, scope: ReportScope = ReportScope()) throws -> [SubscriptionState: [Int]] {
        guard days > 0 else { return [:] }
        let first = asOf.adding(days: -Int64(days - 1)).milliseconds
        // A segment [start, end) counts at sample d (instant first + d·day) when start <= t < end:
        // from sample ceil((start - first) / day), clamped at 0, to ceil((end - first) / day) excluded.
        // A negative numerator truncates to 0 or below, which the clamp turns into 0.
        var sql = """
            SELECT state,
                   MAX(0, (start - ?1 + ?3 - 1) / ?3) AS fromDay,
                   MIN(?4, ("end" - ?1 + ?3 - 1) / ?3) AS toDay,
                   COUNT(*)
            FROM segment
            WHERE \(scope.environment.sql) AND "end" > ?1 AND start <= ?2
            """
        var arguments: StatementArguments = [first, asOf.milliseconds, Instant.millisecondsPerDay, days]
        if let product = scope.productId { sql += " AND productId = ?5"; arguments += [product] }
        sql += " GROUP BY state, fromDay, toDay"
        var steps: [SubscriptionState: [Int]] = [:]
        try database.writer.read { db in
            for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
                guard let state = SubscriptionState(rawValue: row[0]) else { continue }
                let from: Int = row[1], to: Int = row[2], count: Int = row[3]
                guard from < to else { continue }
                if steps[state] == nil { steps[state] = Array(repeating: 0, count: days + 1) }
                steps[state]![from] += count
                steps[state]![to] -= count
            }
        }
        return steps.mapValues { delta in
            var running = 0
            return delta.prefix(days).map { running += $0; return running }
        }
    }
}
