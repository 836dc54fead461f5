import GRDB
import SubscriptionModel

extension AppDatabase {
    /// The latest notification `signedDate`, renewal-fact instant, transaction `purchaseDate` or
    /// `revocationDate` among the facts the store applies; nil when it has none. Unsigned facts
    /// set aside because their subscription has signed data (``SignedData``) take no part: one
    /// unsigned notification must not move every report's as-of. Each query walks its instant
    /// index from the end and stops at the first applied row, normally the first it reads.
    public func latestFactInstant() throws -> Instant? {
        try writer.read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT MAX(m) FROM (
                        SELECT (SELECT instant FROM notification n WHERE \(SignedData.applied("n"))
                                ORDER BY instant DESC LIMIT 1) AS m
                        UNION ALL SELECT (SELECT instant FROM renewalFact r WHERE \(SignedData.applied("r"))
                                ORDER BY instant DESC LIMIT 1)
                        UNION ALL SELECT (SELECT purchaseDate FROM "transaction" t WHERE \(SignedData.applied("t"))
                                ORDER BY purchaseDate DESC LIMIT 1)
                        UNION ALL SELECT (SELECT revocationDate FROM "transaction" t
                                WHERE revocationDate IS NOT NULL AND \(SignedData.applied("t"))
                                ORDER BY revocationDate DESC LIMIT 1))
                    """
            ).map(Instant.init(milliseconds:))
        }
    }

    /// The earliest purchase date of an applied transaction: where "all" of a chart over time
    /// starts. Nil for an empty store. One step down the index by purchase date.
    public func earliestPurchaseInstant() throws -> Instant? {
        try writer.read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT purchaseDate FROM "transaction" t WHERE \(SignedData.applied("t"))
                    ORDER BY purchaseDate LIMIT 1
                    """
            ).map(Instant.init(milliseconds:))
        }
    }
}
