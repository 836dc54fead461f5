import GRDB
import SubscriptionModel

extension AppDatabase {
    /// The latest notification `signedDate`, renewal-fact instant, transaction `purchaseDate` or
    /// `revocationDate` in the store; nil when it is empty. Each MAX reads one entry of an index
    /// (the revocation index is partial, so the query says `IS NOT NULL` for SQLite to use it
    /// instead of scanning every transaction).
    public func latestFactInstant() throws -> Instant? {
        try writer.read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT MAX(m) FROM (
                        SELECT MAX(instant) AS m FROM notification
                        UNION ALL SELECT MAX(instant) FROM renewalFact
                        UNION ALL SELECT MAX(purchaseDate) FROM "transaction"
                        UNION ALL SELECT MAX(revocationDate) FROM "transaction" WHERE revocationDate IS NOT NULL)
                    """
            ).map(Instant.init(milliseconds:))
        }
    }
}
