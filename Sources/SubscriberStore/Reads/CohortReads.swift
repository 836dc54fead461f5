import GRDB
import SubscriptionModel

extension AppDatabase {
    /// The paid periods of run `r` started on or before `asOf` that count for retention: what
    /// cohorts count as `retained` and `ended`, and their populations select by. The run's own count
    /// when its last paid period had started by then, else a count of its periods.
    static func paidPeriods(asOf: Int64) -> SQL {
        """
        CASE WHEN r.lastPaidStart <= \(asOf) THEN r.paidPeriodCount
             ELSE (SELECT COUNT(*) FROM period p
                   WHERE p.originalTransactionId = r.originalTransactionId AND p.runIndex = r.runIndex
                     AND p.countsForRetention AND p.start <= \(asOf)) END
        """
    }

    /// How many cohort members (runs with a paid period) each first paid product has, in the
    /// scope's environments: what the Cohorts pane's default billing duration is chosen by.
    public func cohortMembersByProduct(scope: RowScope) throws -> [String: Int] {
        try writer.read { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(
                db,
                SQLRequest<Row>(
                    literal: """
                        SELECT firstPaidProductId, COUNT(*) FROM run
                        WHERE \(scope.environment()) AND firstPaidStart IS NOT NULL GROUP BY 1
                        """))
            {
                if let product: String = row[0] { counts[product] = row[1] }
            }
            return counts
        }
    }
}
