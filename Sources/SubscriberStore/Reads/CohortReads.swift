import GRDB
import SubscriptionModel

extension AppDatabase {
    /// How many cohort members (runs with a paid period) each first paid product has, in the
    /// scope's environments: what the Cohorts pane's default billing duration is chosen by. Read
    /// from the kept monthly step counts (each member's first paid start is one step-0 count), so
    /// it costs the same at any store size; counting `run` read every member (50 ms of CPU at
    /// 100,000 subscribers, docs/performance.md "Pane 3's first visit").
    public func cohortMembersByProduct(scope: RowScope) throws -> [String: Int] {
        try writer.read { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(
                db,
                SQLRequest<Row>(
                    literal: """
                        SELECT firstPaidProductId, SUM(count) FROM cohortStepMonth
                        WHERE \(scope.environment()) AND step = 0\(scope.plan("billingPlan"))
                        GROUP BY 1
                        """))
            {
                if let product: String = row[0] { counts[product] = row[1] }
            }
            return counts
        }
    }
}
