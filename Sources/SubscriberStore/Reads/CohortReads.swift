import GRDB
import SubscriptionModel

/// One counted paid period of a cohort member (a run), with its price: what realized LTV averages.
/// A member without a counted paid period yet has one row with `start` nil.
public struct CohortMemberPeriod: FetchableRecord, Sendable, Equatable {
    public var originalTransactionId: String
    public var runIndex: Int
    /// `Month.index` of the run's first paid period.
    public var cohortMonth: Int
    /// The run ended at or before as-of.
    public var ended: Bool
    public var start: Int64?
    public var price: Int64?
    public var currency: String?

    public init(row: Row) {
        originalTransactionId = row["originalTransactionId"]
        runIndex = row["runIndex"]
        cohortMonth = row["cohortMonth"]
        ended = row["ended"]
        start = row["start"]
        price = row["price"]
        currency = row["currency"]
    }
}

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

    /// Every cohort member's (run's) counted paid periods started by `asOf`, with their price, in
    /// order of member then start, handed to `body` one by one (a store holds millions).
    public func forEachCohortMemberPeriod(asOf: Int64, scope: RowScope, _ body: (CohortMemberPeriod) throws -> Void) throws {
        // The covering cohort index, named: the planner would otherwise scan `run` by its primary key.
        let request = { (db: Database) in
            SQLRequest<CohortMemberPeriod>(
                literal: try db.presentIndexes(
                    in: """
                        SELECT r.originalTransactionId, r.runIndex, r.cohortMonth, r.endedAt <= \(asOf) AS ended, p.start, m.price, m.currency
                        FROM run r INDEXED BY run_cohort
                        LEFT JOIN period p ON p.originalTransactionId = r.originalTransactionId AND p.runIndex = r.runIndex
                            AND p.countsForRetention AND p.start <= \(asOf)
                        LEFT JOIN periodMoney m ON m.transactionId = p.transactionId
                        WHERE \(scope.environment("r")) AND r.firstPaidStart IS NOT NULL AND r.firstPaidStart <= \(asOf)\(scope.product("r.firstPaidProductId"))
                        ORDER BY r.originalTransactionId, r.runIndex, p.start
                        """))
        }
        try writer.read { db in
            let cursor = try request(db).fetchCursor(db)
            while let row = try cursor.next() { try body(row) }
        }
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
