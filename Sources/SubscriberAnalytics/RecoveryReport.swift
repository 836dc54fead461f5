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
        let counts = try database.recoveryCounts(
            from: from.milliseconds, upper: upper, asOf: asOf.milliseconds,
            withinDays: RecoveryReport.dayThresholds, scope: scope.rows)
        report.failures = counts.failures
        report.recovered = counts.recovered
        report.expired = counts.expired
        report.pending = report.failures - report.recovered - report.expired
        for d in RecoveryReport.dayThresholds { report.recoveredWithinDays[d] = counts.recoveredWithinDays[d] ?? 0 }
        return report
    }
}
