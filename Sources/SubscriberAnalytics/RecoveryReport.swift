import GRDB
import SubscriberStore
import SubscriptionModel

/// Billing recovery (docs/metrics.md, "Billing failures, grace and retry") of the failures with T
/// in [from, to) and T ≤ as-of.
public struct RecoveryReport: Sendable, Equatable {
    public static let dayThresholds = [3, 7, 16, 30, 60]

    public var from: Instant
    public var to: Instant
    public var asOf: Instant
    public var failures = 0
    public var recovered = 0
    public var expired = 0
    public var pending = 0
    /// Cumulative: recovered within N days, for each of `dayThresholds`.
    public var recoveredWithinDays: [Int: Int] = [:]

    public init(from: Instant, to: Instant, asOf: Instant) {
        self.from = from
        self.to = to
        self.asOf = asOf
        for d in Self.dayThresholds { recoveredWithinDays[d] = 0 }
    }
}

extension SubscriberAnalytics {
    public func recovery(from: Instant, to: Instant, asOf: Instant, scope: ReportScope = ReportScope()) throws -> RecoveryReport {
        var report = RecoveryReport(from: from, to: to, asOf: asOf)
        let upper = min(to.milliseconds, asOf.milliseconds + 1)
        guard from.milliseconds < upper else { return report }
        try database.writer.read { db in
            let day = Instant.millisecondsPerDay
            var sql = """
                SELECT COUNT(*),
                       SUM(recoveryStart IS NOT NULL AND recoveryStart <= ?3),
                       SUM((recoveryStart IS NULL OR recoveryStart > ?3) AND retryEnd <= ?3)
                """
            for d in RecoveryReport.dayThresholds {
                sql += ", SUM(recoveryStart IS NOT NULL AND recoveryStart <= ?3 AND recoveryStart - at <= \(Int64(d) * day))"
            }
            sql += " FROM billingFailure WHERE \(scope.sql()) AND at >= ?1 AND at < ?2"
            var arguments: StatementArguments = [from.milliseconds, upper, asOf.milliseconds]
            if let product = scope.productId { sql += " AND productId = ?4"; arguments += [product] }
            guard let row = try Row.fetchOne(db, sql: sql, arguments: arguments) else { return }
            report.failures = row[0] ?? 0
            report.recovered = row[1] ?? 0
            report.expired = row[2] ?? 0
            report.pending = report.failures - report.recovered - report.expired
            for (i, d) in RecoveryReport.dayThresholds.enumerated() { report.recoveredWithinDays[d] = row[3 + i] ?? 0 }
        }
        return report
    }
}
