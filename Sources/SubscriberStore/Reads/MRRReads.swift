import GRDB
import SubscriptionModel

/// `count` charged periods alike in offer, product, price and monthly factor that count for MRR
/// at the instant numbered `sample`.
public struct MRRPeriodGroup: FetchableRecord, Sendable, Equatable {
    /// Index of the instant in the list asked for.
    public var sample: Int
    /// An `OfferKind` raw value.
    public var offerKind: String
    public var productId: String
    public var currency: String?
    public var price: Int64?
    /// What makes the price monthly, in twelfths of a year (the period's own length).
    public var monthlyTwelfths: Int
    public var count: Int

    public init(row: Row) {
        sample = row["sample"]
        offerKind = row["offerKind"]
        productId = row["productId"]
        currency = row["currency"]
        price = row["price"]
        monthlyTwelfths = row["monthlyTwelfths"]
        count = row["count"]
    }
}

extension AppDatabase {
    /// At each of `instants`, the charged periods covering it and the charged periods of the
    /// billing failures whose grace is open then, grouped, from one statement.
    public func mrrPeriodGroups(at instants: [Int64], scope: RowScope) throws -> [MRRPeriodGroup] {
        guard !instants.isEmpty else { return [] }
        let samples = instants.enumerated().map { index, instant -> SQL in "(\(index), \(instant))" }.joined(separator: ", ")
        let product = scope.product("m.productId")
        // Both parts read only index entries: periods ending after each instant, and failures whose
        // retry window is open then, which at the data horizon are the live subscriptions only.
        // The covering indexes are named: joined to the sample list, the planner would otherwise
        // scan from the sample side.
        let request = SQLRequest<MRRPeriodGroup>(literal: """
            WITH sample(i, t) AS (VALUES \(samples))
            SELECT s.i AS sample, m.offerKind, m.productId, m.currency, m.price, m.monthlyTwelfths, COUNT(*) AS count
            FROM sample s CROSS JOIN periodMoney m INDEXED BY periodMoney_end
            WHERE \(scope.environment("m")) AND m."end" > s.t AND m.start <= s.t\(product)
            GROUP BY 1, 2, 3, 4, 5, 6
            UNION ALL
            SELECT s.i, m.offerKind, m.productId, m.currency, m.price, m.monthlyTwelfths, COUNT(*)
            FROM sample s CROSS JOIN billingFailure f INDEXED BY billingFailure_window
            JOIN periodMoney m ON m.transactionId = f.transactionId
            WHERE \(scope.environment("f")) AND f.windowEnd > s.t AND f.at <= s.t AND f.graceEnd > s.t\(product)
            GROUP BY 1, 2, 3, 4, 5, 6
            """)
        return try writer.read { db in try request.fetchAll(db) }
    }
}
