import GRDB
import SubscriberStore
import SubscriptionModel

/// One row of the Subscribers list: the subscription with its segment at the as-of instant.
public struct SubscriberRow: Hashable, Sendable {
    public var id: String
    public var productId: String
    public var state: String?
    public var paidPeriods: Int?
    public var autoRenew: Bool?
    public var flagCount: Int

    public init(id: String, productId: String, state: String?, paidPeriods: Int?, autoRenew: Bool?, flagCount: Int = 0) {
        self.id = id
        self.productId = productId
        self.state = state
        self.paidPeriods = paidPeriods
        self.autoRenew = autoRenew
        self.flagCount = flagCount
    }
}

extension SubscriberAnalytics {
    /// One page of the Subscribers list: subscriptions begun by `asOf` (those matching `filter`, any id,
    /// when given; the members of `population` when given), with their segment then, by id.
    ///
    /// A population keeps its own product rule (a cohort by its first paid product, a state by the
    /// product at as-of…), so `scope.productId` then narrows only through the population.
    public func subscriberList(offset: Int, limit: Int, asOf: Instant, scope: ReportScope = ReportScope(),
                               matching filter: String? = nil,
                               population: SubscriberPopulation? = nil) throws -> [SubscriberRow] {
        let ids: [String]? = try filter.map { try database.subscriptions(matching: $0) }
        if let ids, ids.isEmpty { return [] }
        return try database.writer.read { db in
            let environments = scope.environment.environments.map(\.rawValue)
            var sql = """
                SELECT s.originalTransactionId, s.productId, g.state, g.paidPeriods, g.autoRenew,
                       (SELECT COUNT(*) FROM offerFlag f WHERE f.originalTransactionId = s.originalTransactionId)
                FROM subscription s
                LEFT JOIN segment g ON g.originalTransactionId = s.originalTransactionId AND g.start <= ? AND g."end" > ?
                WHERE s.firstStart <= ? AND s.environment IN (\(environments.map { _ in "?" }.joined(separator: ", ")))
                """
            var arguments: StatementArguments = [asOf.milliseconds, asOf.milliseconds, asOf.milliseconds]
            arguments += StatementArguments(environments)
            if let population {
                let members = Self.memberSQL(population, asOf: asOf, scope: scope)
                sql += " AND s.originalTransactionId IN (\(members.sql))"
                arguments += members.arguments
            } else if let product = scope.productId {
                sql += " AND s.productId = ?"
                arguments += [product]
            }
            if let ids {
                sql += " AND s.originalTransactionId IN (\(ids.map { _ in "?" }.joined(separator: ", ")))"
                arguments += StatementArguments(ids)
            }
            sql += " ORDER BY s.originalTransactionId LIMIT ? OFFSET ?"
            arguments += [limit, offset]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                SubscriberRow(id: row[0], productId: row[1], state: row[2], paidPeriods: row[3], autoRenew: row[4],
                              flagCount: row[5])
            }
        }
    }
}

extension SubscriberAnalytics {
    /// Every product id a subscription in scope has had a period of, sorted (from the `product`
    /// table the import keeps; a product stays listed once seen).
    /// Why a product id the store has never seen is refused (it would show zeros everywhere, as if
    /// nobody had bought it), with the ids it knows.
    public static func unknownProductMessage(_ product: String, known: [String]) -> String {
        let list = known.isEmpty ? "the store has no product yet" : "known products: " + known.joined(separator: ", ")
        return "unknown product \(product) (\(list))"
    }

    public func productIds(scope: ReportScope = ReportScope()) throws -> [String] {
        try database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT productId FROM product WHERE \(scope.environment.sql) ORDER BY 1")
        }
    }
}
