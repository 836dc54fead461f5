import GRDB
import SubscriptionModel

extension AppDatabase {
    /// The products whose billing duration is `days` (`SELECT productId …`): per product, the most
    /// frequent rounded length of its standard periods in `productDuration`, ties to the shorter.
    static func productsBilled(days: Int) -> SQL {
        """
        SELECT productId FROM (
            SELECT productId, billingDays,
                   ROW_NUMBER() OVER (PARTITION BY productId ORDER BY count DESC, billingDays) AS rank
            FROM productDuration)
        WHERE rank = 1 AND billingDays = \(days)
        """
    }

    /// Every rounded length of each product's standard periods, by product, the most frequent
    /// first, ties to the shorter: the first of a product is its billing duration in days.
    public func productBillingDays() throws -> [(productId: String, billingDays: Int)] {
        try writer.read { db in
            try SQLRequest<Row>(
                literal: """
                    SELECT productId, billingDays FROM productDuration ORDER BY productId, count DESC, billingDays
                    """
            ).fetchAll(db).map { ($0["productId"], $0["billingDays"]) }
        }
    }
}
