import GRDB
import SubscriberStore
import SubscriptionModel

/// A product's billing duration: the most frequent rounded length (`expiresDate − start`) of its
/// standard periods in the store, ties to the shorter (docs/metrics.md, "Retention cohorts"). Read
/// from the per-product counts the materialiser keeps (`productDuration`).
extension SubscriberAnalytics {
    /// The products whose billing duration is `days`, in SQL (`SELECT productId …`): per product,
    /// the most frequent rounded length of its standard periods, ties to the shorter.
    static func productsBilledSQL(days: String) -> String {
        """
        SELECT productId FROM (
            SELECT productId, billingDays,
                   ROW_NUMBER() OVER (PARTITION BY productId ORDER BY count DESC, billingDays) AS rank
            FROM productDuration)
        WHERE rank = 1 AND billingDays = \(days)
        """
    }

    /// Every product's billing duration: the most frequent rounded length of its standard periods
    /// in the store, ties to the shorter. A product with no standard period has none.
    public func productDurations() throws -> [String: BillingDuration] {
        try database.writer.read { db in
            var durations: [String: BillingDuration] = [:]
            let rows = try Row.fetchAll(db, sql: """
                SELECT productId, billingDays FROM productDuration ORDER BY productId, count DESC, billingDays
                """)
            for row in rows {
                let product: String = row[0]
                if durations[product] == nil, let duration = BillingDuration(days: row[1]) { durations[product] = duration }
            }
            return durations
        }
    }

    /// The billing durations of the products in the store, shortest first.
    public func billingDurations() throws -> [BillingDuration] {
        Set(try productDurations().values).sorted()
    }
}
