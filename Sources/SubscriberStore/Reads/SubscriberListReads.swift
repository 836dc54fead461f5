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
    /// Production or Sandbox: a search lists every environment and says which.
    public var environment: StoreEnvironment
    public var appAccountToken: String?
    /// Nil when the latest period started by as-of is billed upfront; for a monthly payment of a
    /// commitment, the commitment's number of payments (0 when Apple did not say).
    public var commitmentPeriods: Int?

    public init(
        id: String, productId: String, state: String?, paidPeriods: Int?, autoRenew: Bool?, flagCount: Int = 0,
        userId: String? = nil, email: String? = nil, ownership: Ownership = .purchased,
        environment: StoreEnvironment = .production, appAccountToken: String? = nil,
        commitmentPeriods: Int? = nil
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
        self.environment = environment
        self.appAccountToken = appAccountToken
        self.commitmentPeriods = commitmentPeriods
    }

    public init(row: Row) {
        self.init(
            id: row["originalTransactionId"], productId: row["productId"], state: row["state"], paidPeriods: row["paidPeriods"],
            autoRenew: row["autoRenew"], flagCount: row["flagCount"], userId: row["userId"], email: row["email"],
            ownership: Ownership(rawValue: row["ownership"]) ?? .purchased,
            environment: (row["environment"] as String?).map(StoreEnvironment.init(rawValue:)) ?? .production,
            appAccountToken: (row["appAccountToken"] as String?).flatMap { $0.isEmpty ? nil : $0 },
            commitmentPeriods: row["commitmentPeriods"])
    }
}

/// The order of the Subscribers list: a column, then the originalTransactionId (so pages never overlap).
public struct SubscriberSort: Hashable, Sendable {
    public enum Column: String, CaseIterable, Hashable, Sendable {
        case id, userId, email, state, product, paidPeriods, autoRenew, flags
        /// Purchased before family-shared (Family Sharing) ascending.
        case ownership
        /// Production before Sandbox ascending.
        case environment
        /// Upfront before monthly payments ascending, then by the commitment's payments.
        case plan
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
            case .environment: "s.environment"
            case .plan: "commitmentPeriods"
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
                           x.userId, x.email, s.ownership, s.environment, x.appAccountToken,
                           -- the billing plan of the latest period started by as-of (docs/metrics.md,
                           -- "Billing plans and commitments"), one subscription's transactions by their index
                           (SELECT CASE WHEN t.billingPlanType IS 'MONTHLY' THEN COALESCE(t.commitmentPeriods, 0) END
                            FROM "transaction" t WHERE t.originalTransactionId = s.originalTransactionId
                              AND t.purchaseDate <= \(asOf) ORDER BY t.purchaseDate DESC LIMIT 1) AS commitmentPeriods
                    \(list.sql)
                    ORDER BY \(sort.sql) LIMIT \(limit) OFFSET \(offset)
                    """
            ).fetchAll(db)
        }
    }

    /// How many rows ``subscriberList(offset:limit:asOf:scope:matching:population:sort:)`` pages through;
    /// for a search that finds more than ``searchLimit`` in the list, `searchLimit + 1` (the list
    /// holds the first `searchLimit` of them: "5,000+").
    public func subscriberCount(asOf: Int64, scope: RowScope, matching filter: String?, population: PopulationMembers?) throws
        -> Int
    {
        try writer.read { db in
            guard let list = try Self.list(db, asOf: asOf, scope: scope, filter: filter, population: population) else { return 0 }
            if list.capped { return Self.searchLimit + 1 }
            return try Int.fetchOne(db, SQLRequest<Int>(literal: "SELECT COUNT(*) \(list.sql)")) ?? 0
        }
    }

    /// `FROM … WHERE …` of the list (and whether a search found more than it holds), nil when a
    /// search found nobody.
    private static func list(
        _ db: Database, asOf: Int64, scope: RowScope, filter: String?,
        population: PopulationMembers?
    ) throws -> (sql: SQL, capped: Bool)? {
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
            // A member list may name an index (the uses by start): kept only while it exists.
            let members = try db.presentIndexes(in: members(db, population, asOf: asOf, scope: scope))
            sql += " AND s.originalTransactionId IN (\(members))"
        } else {
            sql += scope.product("s.productId")
        }
        guard let filter else { return (sql, false) }
        let ids = try searched(db, filter, within: sql)
        if ids.isEmpty { return nil }
        return (sql + inList(ids.prefix(searchLimit)), ids.count > searchLimit)
    }

    /// ` AND s.originalTransactionId IN (…)`: a JSON array is one argument, however many ids.
    private static func inList(_ ids: some Collection<String>) -> SQL {
        let json = String(decoding: (try? JSONEncoder().encode(Array(ids))) ?? Data("[]".utf8), as: UTF8.self)
        return " AND s.originalTransactionId IN (SELECT value FROM json_each(\(json)))"
    }

    /// The subscriptions a search for `filter` finds that `list` (`FROM … WHERE …`) keeps, sorted,
    /// at most ``searchLimit`` + 1 (one more than the limit: there are more). The search's own
    /// limit applies before the list's conditions (environment, ownership, a drill-down), so it
    /// grows until the list keeps more than the limit or the search has found everything: a
    /// count cut off by it says so, and one under it is the true count.
    private static func searched(_ db: Database, _ filter: String, within list: SQL) throws -> [String] {
        var limit = searchLimit + 1
        while true {
            let found = try subscriptions(searching: filter, limit: limit, in: db)
            guard !found.isEmpty else { return [] }
            let kept = try String.fetchAll(
                db,
                SQLRequest<String>(
                    literal: "SELECT s.originalTransactionId \(list)\(inList(found)) ORDER BY 1 LIMIT \(searchLimit + 1)"))
            if kept.count > searchLimit || found.count < limit { return kept }
            limit *= 4
        }
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
