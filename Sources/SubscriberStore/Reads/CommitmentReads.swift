import GRDB
import SubscriptionModel

/// A commitment running at an instant, as committed revenue reads it (docs/metrics.md,
/// "Committed revenue").
public struct RunningCommitment: Hashable, Sendable {
    public var productId: String
    /// The whole commitment's price, milliunits of `currency`; nil when unknown.
    public var price: Int64?
    public var currency: String?
    /// The prices of its charged periods started at or before the instant, in `currency`.
    public var charged: Int64
    /// Its charged periods started at or before the instant without a price in `currency`.
    public var unpricedCharges: Int

    public init(productId: String, price: Int64?, currency: String?, charged: Int64, unpricedCharges: Int) {
        self.productId = productId
        self.price = price
        self.currency = currency
        self.charged = charged
        self.unpricedCharges = unpricedCharges
    }

    /// Price minus what was charged, never below 0; nil when unpriced.
    public var committed: Int64? {
        guard let price, currency != nil, unpricedCharges == 0 else { return nil }
        return max(price - charged, 0)
    }
}

extension AppDatabase {
    /// For each of `instants`, in order: the commitments of purchased subscriptions running at it
    /// (`commitment`, kept by the materialiser, with its charges in `periodMoney`). The scope's
    /// environments and product (the commitment's) restrict what counts.
    public func runningCommitments(at instants: [Instant], scope: RowScope) throws -> [[RunningCommitment]] {
        let environmentSQL = RowScope.inList(scope.environments)
        let product = scope.productId == nil ? "" : "AND c.productId = :product"
        return try writer.read { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT c.productId, c.price, c.currency,
                        (SELECT COALESCE(SUM(m.price), 0) FROM periodMoney m
                         WHERE m.originalTransactionId = c.originalTransactionId AND m.commitmentIndex = c.commitmentIndex
                           AND m.start <= :t AND m.price IS NOT NULL AND m.currency = c.currency),
                        (SELECT COUNT(*) FROM periodMoney m
                         WHERE m.originalTransactionId = c.originalTransactionId AND m.commitmentIndex = c.commitmentIndex
                           AND m.start <= :t AND (m.price IS NULL OR m.currency IS NOT c.currency))
                    FROM commitment c
                    WHERE c.environment \(environmentSQL) AND c.runningEnd > :t AND c.start <= :t
                        AND c.ownership = '\(Ownership.purchased.rawValue)' \(product)
                    """)
            return try instants.map { t in
                try Row.fetchAll(statement, arguments: ["t": t.milliseconds, "product": scope.productId]).map { row in
                    RunningCommitment(
                        productId: row[0], price: row[1], currency: row[2], charged: row[3],
                        unpricedCharges: row[4])
                }
            }
        }
    }
}
