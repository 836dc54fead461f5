import GRDB
import SubscriptionModel

extension AppDatabase {
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
                        WHERE \(scope.environment()) AND firstPaidStart IS NOT NULL\(scope.plan("firstPaidBillingPlan"))
                        GROUP BY 1
                        """))
            {
                if let product: String = row[0] { counts[product] = row[1] }
            }
            return counts
        }
    }
}
