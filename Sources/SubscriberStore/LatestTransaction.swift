import GRDB
import SubscriptionModel

extension AppDatabase {
    /// The latest transaction (by purchase date) of a subscription: when it started and ends, and
    /// the subscription's original purchase date; nil when the store has none.
    public func latestTransactionDates(
        originalTransactionId: String
    ) throws -> (purchase: Instant, expires: Instant?, originalPurchase: Instant?)? {
        try writer.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT purchaseDate, expiresDate, originalPurchaseDate FROM "transaction"
                        WHERE originalTransactionId = ? ORDER BY purchaseDate DESC, transactionId DESC LIMIT 1
                        """, arguments: [originalTransactionId])
            else { return nil }
            let purchase: Int64 = row[0]
            let expires: Int64? = row[1]
            let original: Int64? = row[2]
            return (
                Instant(milliseconds: purchase), expires.map(Instant.init(milliseconds:)),
                original.map(Instant.init(milliseconds:))
            )
        }
    }
}
