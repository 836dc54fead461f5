import GRDB
import SubscriptionModel

/// How the billing failures of a range ended, as of an instant.
public struct RecoveryCounts: Sendable, Equatable {
    public var failures = 0
    /// Recovered at or before as-of.
    public var recovered = 0
    /// Not recovered by as-of, and their retry ended at or before it.
    public var expired = 0
    /// Recovered at or before as-of within N days of the failure, for each N asked.
    public var recoveredWithinDays: [Int: Int] = [:]
}

extension AppDatabase {
    /// The billing failures with from <= at < upper, counted in one pass over `billingFailure`.
    public func recoveryCounts(
        from: Int64, upper: Int64, asOf: Int64, withinDays days: [Int],
        scope: RowScope
    ) throws -> RecoveryCounts {
        let length = Instant.millisecondsPerDay
        var within: SQL = ""
        for d in days {
            within +=
                ", SUM(recoveryStart IS NOT NULL AND recoveryStart <= \(asOf) AND recoveryStart - at <= \(Int64(d) * length)) AS \(sql: "within\(d)")"
        }
        let request: SQLRequest<Row> = """
            SELECT COUNT(*) AS failures,
                   SUM(recoveryStart IS NOT NULL AND recoveryStart <= \(asOf)) AS recovered,
                   SUM((recoveryStart IS NULL OR recoveryStart > \(asOf)) AND retryEnd <= \(asOf)) AS expired\(within)
            FROM billingFailure WHERE \(scope.rows()) AND at >= \(from) AND at < \(upper)\(scope.product("productId"))\(scope.planOfTransaction("billingFailure.transactionId"))
            """
        return try writer.read { db in
            var counts = RecoveryCounts()
            guard let row = try request.fetchOne(db) else { return counts }
            counts.failures = row["failures"] ?? 0
            counts.recovered = row["recovered"] ?? 0
            counts.expired = row["expired"] ?? 0
            for d in days { counts.recoveredWithinDays[d] = row["within\(d)"] ?? 0 }
            return counts
        }
    }
}
