import Foundation
import GRDB
import SubscriptionModel

/// One row of the Subscribers list: the subscription with its segment at the as-of instant.
public struct SubscriberRow: Hashable, Sendable, FetchableRecord {
    public var id: String
    public var productId: String
    public var state: String?
    public var paidPeriods: Int?
    public var autoRenew: Bool?
    public var flagCount: Int
    public var userId: String?
    public var email: String?
    public var ownership: Ownership

    public init(
        id: String, productId: String, state: String?, paidPeriods: Int?, autoRenew: Bool?, flagCount: Int = 0,
        userId: String? = nil, email: String? = nil, ownership: Ownership = .purchased
    ) {
        self.id = id
        self.productId = productId
        self.state = state
        self.paidPeriods = paidPeriods
        self.autoRenew = autoRenew
        self.flagCount = flagCount
        self.userId = userId
        self.email = email
        self.ownership = ownership
    }

    public init(row: Row) {
        self.init(
            id: row["originalTransactionId"], productId: row["productId"], state: row["state"], paidPeriods: row["paidPeriods"],
            autoRenew: row["autoRenew"], flagCount: row["flagCount"], userId: row["userId"], email: row["email"],
            ownership: Ownership(rawValue: row["ownership"]) ?? .purchased)
    }
}

/// The order of the Subscribers list: a column, then the originalTransactionId (so pages never overlap).
public struct SubscriberSort: Hashable, Sendable {
    public enum Column: String, CaseIterable, Hashable, Sendable {
        case id, userId, email, state, product, paidPeriods, autoRenew, flags
        /// Purchased before family-shared (Family Sharing) ascending.
        case ownership
    }

    public var column: Column
    public var ascending: Bool

    public init(_ column: Column = .id, ascending: Bool = true) {
        self.column = column
        self.ascending = ascending
    }

    var sql: SQL {
        let expression =
            switch column {
            case .id: "s.originalTransactionId"
            case .userId: "x.userId"
            case .email: "x.email"
            case .state: "g.state"
            case .product: "s.productId"
            case .paidPeriods: "g.paidPeriods"
            case .autoRenew: "g.autoRenew"
            case .flags: "flagCount"
            case .ownership: "s.ownership = 'familyShared'"
            }
        let direction = ascending ? "" : " DESC"
        return SQL(sql: column == .id ? expression + direction : "\(expression)\(direction), s.originalTransactionId")
    }
}

extension AppDatabase {
    /// One page of the Subscribers list: subscriptions begun by `asOf` (those a search for `filter`
    /// finds, when given; the members of `population` when given), with their segment then, in
    /// `sort` order. Only the environments and ownerships of `scope` apply with a population,
    /// which keeps its own product rule.
    ///
    /// Sorting by anything but the id sorts the whole list before the page is cut: over a search or a
    /// drill-down that is a few rows, over every subscriber of a large store it reads them all.
    public func subscriberList(
        offset: Int, limit: Int, asOf: Int64, scope: RowScope, matching filter: String?,
        population: PopulationMembers?, sort: SubscriberSort
    ) throws -> [SubscriberRow] {
        try writer.read { db in
            guard let list = try Self.list(db, asOf: asOf, scope: scope, filter: filter, population: population) else {
                return []
            }
            return try SQLRequest<SubscriberRow>(
                literal: """
                    SELECT s.originalTransactionId, s.productId, g.state, g.paidPeriods, g.autoRenew,
                           (SELECT COUNT(*) FROM offerFlag f WHERE f.originalTransactionId = s.originalTransactionId) AS flagCount,
                           x.userId, x.email, s.ownership
                    \(list)
                    ORDER BY \(sort.sql) LIMIT \(limit) OFFSET \(offset)
                    """
            ).fetchAll(db)
        }
    }

    /// How many rows ``subscriberList(offset:limit:asOf:scope:matching:population:sort:)`` pages through.
    public func subscriberCount(asOf: Int64, scope: RowScope, matching filter: String?, population: PopulationMembers?) throws
        -> Int
    {
        try writer.read { db in
            guard let list = try Self.list(db, asOf: asOf, scope: scope, filter: filter, population: population) else { return 0 }
            return try Int.fetchOne(db, SQLRequest<Int>(literal: "SELECT COUNT(*) \(list)")) ?? 0
        }
    }

    /// `FROM … WHERE …` of the list, nil when a search found nobody.
    private static func list(
        _ db: Database, asOf: Int64, scope: RowScope, filter: String?,
        population: PopulationMembers?
    ) throws -> SQL? {
        var ids: [String]?
        if let filter {
            ids = try subscriptions(searching: filter, limit: searchLimit, in: db)
            if ids?.isEmpty == true { return nil }
        }
        let environments = scope.environments.map(\.rawValue)
        // Every ownership: no condition. `ownership IN (both)` would have SQLite read the list through
        // the ownership index, one range per value, and sort the whole list for a page in id order;
        // without it the first page is the first rows of the primary key.
        let ownership: SQL = Set(scope.ownerships) == Set(Ownership.allCases) ? "" : " AND \(scope.ownership("s"))"
        var sql: SQL = """
            FROM subscription s
            LEFT JOIN segment g ON g.originalTransactionId = s.originalTransactionId AND g.start <= \(asOf) AND g."end" > \(asOf)
            LEFT JOIN subscriberSearch x ON x.originalTransactionId = s.originalTransactionId
            WHERE s.firstStart <= \(asOf) AND s.environment IN \(environments)\(ownership)
            """
        if let population {
            sql += " AND s.originalTransactionId IN (\(members(population, asOf: asOf, scope: scope)))"
        } else {
            sql += scope.product("s.productId")
        }
        if let ids {
            // A JSON array is one argument, however many the search found.
            sql +=
                " AND s.originalTransactionId IN (SELECT value FROM json_each(\(String(decoding: try JSONEncoder().encode(ids), as: UTF8.self))))"
        }
        return sql
    }

    /// Every product id a subscription in scope has had a period of, sorted (from the `product`
    /// table the import keeps; a product stays listed once seen).
    public func productIds(scope: RowScope) throws -> [String] {
        try writer.read { db in
            try String.fetchAll(
                db, SQLRequest<String>(literal: "SELECT DISTINCT productId FROM product WHERE \(scope.environment()) ORDER BY 1"))
        }
    }
}
