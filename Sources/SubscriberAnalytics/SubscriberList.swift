import Foundation
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
    public var userId: String?
    public var email: String?
    public var ownership: Ownership

    public init(id: String, productId: String, state: String?, paidPeriods: Int?, autoRenew: Bool?, flagCount: Int = 0,
                userId: String? = nil, email: String? = nil, ownership: Ownership = .purchased) {
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

    var sql: String {
        let expression = switch column {
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
        return column == .id ? expression + direction : "\(expression)\(direction), s.originalTransactionId"
    }
}

extension SubscriberAnalytics {
    /// One page of the Subscribers list: subscriptions begun by `asOf` (those a search for `filter`
    /// finds, when given; the members of `population` when given), with their segment then, in
    /// `sort` order. Only the ownership `scope` names: pass `.all` to list family members too.
    ///
    /// A population keeps its own product rule (a cohort by its first paid product, a state by the
    /// product at as-of…), so `scope.productId` then narrows only through the population.
    /// Sorting by anything but the id sorts the whole list before the page is cut: over a search or a
    /// drill-down that is a few rows, over every subscriber of a large store it reads them all.
    public func subscriberList(offset: Int, limit: Int, asOf: Instant, scope: ReportScope = ReportScope(),
                               matching filter: String? = nil,
                               population: SubscriberPopulation? = nil,
                               sort: SubscriberSort = SubscriberSort()) throws -> [SubscriberRow] {
        try database.writer.read { db in
            guard let list = try Self.listSQL(db, asOf: asOf, scope: scope, filter: filter, population: population) else { return [] }
            let sql = """
                SELECT s.originalTransactionId, s.productId, g.state, g.paidPeriods, g.autoRenew,
                       (SELECT COUNT(*) FROM offerFlag f WHERE f.originalTransactionId = s.originalTransactionId) AS flagCount,
                       x.userId, x.email, s.ownership
                \(list.sql)
                ORDER BY \(sort.sql) LIMIT ? OFFSET ?
                """
            return try Row.fetchAll(db, sql: sql, arguments: list.arguments + [limit, offset]).map { row in
                SubscriberRow(id: row[0], productId: row[1], state: row[2], paidPeriods: row[3], autoRenew: row[4],
                              flagCount: row[5], userId: row[6], email: row[7], ownership: Ownership(rawValue: row[8]) ?? .purchased)
            }
        }
    }

    /// How many rows ``subscriberList(offset:limit:asOf:scope:matching:population:sort:)`` pages through.
    public func subscriberCount(asOf: Instant, scope: ReportScope = ReportScope(), matching filter: String? = nil,
                                population: SubscriberPopulation? = nil) throws -> Int {
        if filter == nil, population == nil {
            // Every subscriber: counted per day by the store, not row by row.
            return try database.subscriptionsBegun(by: asOf, environments: scope.environment.environments,
                                                   ownerships: scope.ownership.ownerships, productId: scope.productId)
        }
        return try database.writer.read { db in
            guard let list = try Self.listSQL(db, asOf: asOf, scope: scope, filter: filter, population: population) else { return 0 }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) \(list.sql)", arguments: list.arguments) ?? 0
        }
    }

    /// `FROM … WHERE …` of the list, nil when a search found nobody.
    private static func listSQL(_ db: Database, asOf: Instant, scope: ReportScope, filter: String?,
                                population: SubscriberPopulation?) throws -> (sql: String, arguments: StatementArguments)? {
        var ids: [String]?
        if let filter {
            ids = try AppDatabase.subscriptions(searching: filter, limit: AppDatabase.searchLimit, in: db)
            if ids?.isEmpty == true { return nil }
        }
        let environments = scope.environment.environments.map(\.rawValue)
        var sql = """
            FROM subscription s
            LEFT JOIN segment g ON g.originalTransactionId = s.originalTransactionId AND g.start <= ? AND g."end" > ?
            LEFT JOIN subscriberSearch x ON x.originalTransactionId = s.originalTransactionId
            WHERE s.firstStart <= ? AND s.environment IN (\(environments.map { _ in "?" }.joined(separator: ", ")))
                AND s.\(scope.ownership.sql)
            """
        var arguments: StatementArguments = [asOf.milliseconds, asOf.milliseconds, asOf.milliseconds]
        arguments += StatementArguments(environments)
        if let population {
            let members = memberSQL(population, asOf: asOf, scope: scope)
            sql += " AND s.originalTransactionId IN (\(members.sql))"
            arguments += members.arguments
        } else if let product = scope.productId {
            sql += " AND s.productId = ?"
            arguments += [product]
        }
        if let ids {
            // A JSON array is one argument, however many the search found.
            sql += " AND s.originalTransactionId IN (SELECT value FROM json_each(?))"
            arguments += [String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)]
        }
        return (sql, arguments)
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
