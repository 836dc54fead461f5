import GRDB
import SubscriptionModel

/// What money rows are bucketed by.
public enum MoneyGrouping: Sendable, Hashable {
    /// The UTC month (`YYYY-MM`) of the amount's own instant.
    case month
    case product
    /// The period's storefront, `unknown` when absent.
    case storefront
    case currency
}

/// Which amount of a charged period: its price at its start, its refund, its upgrade credit.
public enum MoneyAmountKind: Sendable, Hashable, CaseIterable {
    case charge, refund, credit

    /// The instant column, the amount column and the index over the instant that the read names.
    fileprivate var columns: (instant: String, amount: String, index: String) {
        switch self {
        case .charge: ("start", "price", "periodMoney_start")
        case .refund: ("refundAt", "refundAmount", "periodMoney_refund")
        case .credit: ("creditAt", "upgradeCredit", "periodMoney_credit")
        }
    }
}

/// Charged periods of one key and how many of them were refunded.
public struct RefundCount: FetchableRecord, Sendable, Equatable {
    public var key: String
    public var charged: Int
    public var refunded: Int

    public init(row: Row) {
        key = row["key"]
        charged = row["charged"]
        refunded = row["refunded"]
    }
}

/// `count` amounts of one kind alike in key, currency, month, amount and proceeds rate.
public struct MoneyAmountGroup: Sendable, Equatable {
    public var kind: MoneyAmountKind
    /// The grouping key; nil without grouping.
    public var key: String?
    /// Nil with `amount` for a period without a price.
    public var currency: String?
    /// `YYYY-MM` of the amount's instant, when asked for.
    public var month: String?
    public var amount: Int64?
    public var proceedsRatePercent: Int
    public var count: Int
}

extension AppDatabase {
    /// `YYYY-MM` of a millisecond column, in SQL.
    static func monthSQL(_ column: String) -> SQL { SQL(sql: "strftime('%Y-%m', \(column) / 1000, 'unixepoch')") }

    /// Charged periods started in [from, upper), by the month of their start or by product (in
    /// order), and how many of them were refunded at or before `asOf`.
    public func refundCounts(from: Int64, upper: Int64, asOf: Int64, byMonth: Bool, scope: RowScope) throws -> [RefundCount] {
        let key = byMonth ? Self.monthSQL("start") : "productId"
        // The index by start covers the query (refundAt included); named so `refundAt` never draws the planner to the refund index.
        let request = { (db: Database) in
            SQLRequest<RefundCount>(
                literal: try db.presentIndexes(
                    in: """
                        SELECT \(key) AS key, COUNT(*) AS charged, COALESCE(SUM(refundAt IS NOT NULL AND refundAt <= \(asOf)), 0) AS refunded
                        FROM periodMoney INDEXED BY periodMoney_start
                        WHERE \(scope.environment()) AND start >= \(from) AND start < \(upper)\(scope.product("productId"))\(scope.plan("billingPlan"))
                        GROUP BY 1 ORDER BY 1
                        """))
        }
        return try writer.read { db in try request(db).fetchAll(db) }
    }

    /// Every charge, refund and upgrade credit with its instant in [from, upper), grouped by key,
    /// currency, month (when `withMonth`), amount and proceeds rate: conversion and proceeds are
    /// rounded per item, and a population pays few distinct prices, so each group is one amount
    /// times a count. `proceedsRatePercent` replaces each period's own rate when given.
    public func moneyAmounts(
        from: Int64, upper: Int64, by grouping: MoneyGrouping?, withMonth: Bool,
        proceedsRatePercent: Int?, scope: RowScope
    ) throws -> [MoneyAmountGroup] {
        try writer.read { db in
            var groups: [MoneyAmountGroup] = []
            for kind in MoneyAmountKind.allCases {
                let (instant, amount, index) = kind.columns
                let key: SQL =
                    switch grouping {
                    case nil: "NULL"
                    case .month: Self.monthSQL(instant)
                    case .product: "productId"
                    case .storefront: "COALESCE(storefront, 'unknown')"
                    case .currency: "currency"
                    }
                let month = withMonth ? Self.monthSQL(instant) : "NULL"
                let rate = SQL(sql: proceedsRatePercent.map(String.init) ?? "proceedsRate")
                // Each amount's own index by its instant covers its query; named so the range column alone decides.
                let cursor = try Row.fetchCursor(
                    db,
                    SQLRequest(
                        literal: try db.presentIndexes(
                            in: """
                                SELECT \(key) AS key, currency, \(month) AS month, \(sql: amount) AS amount, \(rate) AS rate, COUNT(*) AS count
                                FROM periodMoney INDEXED BY \(sql: index)
                                WHERE \(scope.environment()) AND \(sql: instant) >= \(from) AND \(sql: instant) < \(upper)\(scope.product("productId"))\(scope.plan("billingPlan"))
                                GROUP BY 1, 2, 3, 4, 5
                                """)))
                while let row = try cursor.next() {
                    groups.append(
                        MoneyAmountGroup(
                            kind: kind, key: row["key"], currency: row["currency"], month: row["month"],
                            amount: row["amount"], proceedsRatePercent: row["rate"], count: row["count"]))
                }
            }
            return groups
        }
    }
}
