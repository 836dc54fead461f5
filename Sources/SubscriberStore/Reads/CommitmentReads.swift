import GRDB
import SubscriptionModel
import SubscriptionTimeline

/// A commitment running at an instant, as committed revenue reads it (docs/metrics.md,
/// "Committed revenue").
public struct RunningCommitment: Hashable, Sendable {
    public var productId: String
    /// The whole commitment's price, milliunits of `currency`; nil when unknown.
    public var price: Int64?
    public var currency: String?
    /// Its charged periods started at or before the instant.
    public var charges: [Commitment.Charge]

    public init(productId: String, price: Int64?, currency: String?, charges: [Commitment.Charge]) {
        self.productId = productId
        self.price = price
        self.currency = currency
        self.charges = charges
    }

    /// What it has left to charge at `t` (``Commitment/committed(price:currency:charges:at:)``); nil when unpriced.
    public func committed(at t: Instant) -> Int64? {
        Commitment.committed(price: price, currency: currency, charges: charges, at: t).amount
    }
}

extension AppDatabase {
    /// For each of `instants`, in order: the commitments of purchased subscriptions running at it
    /// (`commitment`, written by the materialiser, with its charges in `periodMoney`). The scope's
    /// environments and product (the commitment's) restrict what counts.
    public func runningCommitments(at instants: [Instant], scope: RowScope) throws -> [[RunningCommitment]] {
        let environmentSQL = RowScope.inList(scope.environments)
        let product = scope.productId == nil ? "" : "AND c.productId = :product"
        return try writer.read { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT c.originalTransactionId, c.commitmentIndex, c.productId, c.price, c.currency,
                        m.start, m.price, m.currency
                    FROM commitment c
                    LEFT JOIN periodMoney m ON m.originalTransactionId = c.originalTransactionId
                        AND m.commitmentIndex = c.commitmentIndex AND m.start <= :t
                    WHERE c.environment \(environmentSQL) AND c.runningEnd > :t AND c.start <= :t
                        AND c.ownership = '\(Ownership.purchased.rawValue)' \(product)
                    ORDER BY c.originalTransactionId, c.commitmentIndex
                    """)
            return try instants.map { t in
                var result: [RunningCommitment] = []
                var last: (String, Int)?
                let rows = try Row.fetchCursor(statement, arguments: ["t": t.milliseconds, "product": scope.productId])
                while let row = try rows.next() {
                    let id: (String, Int) = (row[0], row[1])
                    if last.map({ $0 != id }) ?? true {
                        result.append(RunningCommitment(productId: row[2], price: row[3], currency: row[4], charges: []))
                        last = id
                    }
                    if let start: Int64 = row[5] {
                        result[result.count - 1].charges.append(
                            Commitment.Charge(start: Instant(milliseconds: start), price: row[6], currency: row[7]))
                    }
                }
                return result
            }
        }
    }
}
