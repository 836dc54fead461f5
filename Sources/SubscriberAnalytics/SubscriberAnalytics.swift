import GRDB
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// The one place figures come from: every dashboard pane and every `subdash report` asks it.
/// Population figures are SQL aggregates over the rows the store materialises on import
/// (`segment`, `event`, `run`, `period`, `billingFailure`); a single subscriber's figures are
/// derived in Swift from that subscriber's facts.
public struct SubscriberAnalytics: Sendable {
    public let database: AppDatabase

    public init(database: AppDatabase) { self.database = database }

    /// The data horizon (docs/metrics.md, "Which data, read when"): the latest notification
    /// `signedDate`, renewal-fact instant, transaction `purchaseDate` or `revocationDate` in the
    /// store (never a date that lies in the future by nature). Nil for an empty store. Each MAX
    /// reads one entry of an index (the revocation index is partial, so its query must say `IS NOT
    /// NULL` for SQLite to use it instead of scanning every transaction).
    public func dataHorizon() throws -> Instant? {
        try database.writer.read { db in
            let ms = try Int64.fetchOne(db, sql: """
                SELECT MAX(m) FROM (
                    SELECT MAX(instant) AS m FROM notification
                    UNION ALL SELECT MAX(instant) FROM renewalFact
                    UNION ALL SELECT MAX(purchaseDate) FROM "transaction"
                    UNION ALL SELECT MAX(revocationDate) FROM "transaction" WHERE revocationDate IS NOT NULL)
                """)
            return ms.map(Instant.init(milliseconds:))
        }
    }

    /// `asOf` when given, else the data horizon, else now-less empty store: the Unix epoch.
    public func resolveAsOf(_ asOf: Instant?) throws -> Instant {
        if let asOf { return asOf }
        return try dataHorizon() ?? Instant(milliseconds: 0)
    }
}
