import GRDB
import SubscriptionModel
import SubscriptionTimeline

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

    /// The `kind` `moneyDay` keeps it under (``MoneyAmount``).
    fileprivate var kept: String {
        switch self {
        case .charge: MoneyAmount.kinds.charge
        case .refund: MoneyAmount.kinds.refund
        case .credit: MoneyAmount.kinds.credit
        }
    }
}

/// The whole UTC days inside [from, upper) and the partial ones left at its ends: what a read of
/// a kept per-day table sums, and what it reads live.
struct WholeDays {
    /// Day numbers [first, end); empty when the range holds no whole day.
    var first: Int64
    var end: Int64
    /// The millisecond ranges outside the whole days (none, one or two), each non-empty.
    var partial: [(from: Int64, upper: Int64)]

    init(from: Int64, upper: Int64) {
        let day = Instant.millisecondsPerDay
        first = AppDatabase.day(of: Instant(milliseconds: from))
        if first * day < from { first += 1 }
        end = max(first, AppDatabase.day(of: Instant(milliseconds: upper)))
        guard first < end else {
            (first, end) = (0, 0)
            partial = from < upper ? [(from, upper)] : []
            return
        }
        partial = [(from, first * day), (end * day, upper)].filter { $0.from < $0.upper }
    }

    var isEmpty: Bool { first >= end }

    /// The whole UTC months (by `Month.index`, from 1970 on) inside the whole days, and the whole
    /// days outside them (none, one or two ranges, each non-empty).
    var months: (months: Range<Int>, days: [(first: Int64, end: Int64)]) {
        guard !isEmpty else { return (0..<0, []) }
        func startDay(_ m: Month) -> Int64 { AppDatabase.day(of: m.start) }
        var low = Instant(milliseconds: first * Instant.millisecondsPerDay).month
        if startDay(low) < first { low = low.next }
        if low.index < 0 { low = Month(index: 0) }
        let high = Instant(milliseconds: end * Instant.millisecondsPerDay).month
        guard low < high else { return (0..<0, [(first, end)]) }
        return (low.index..<high.index, [(first, startDay(low)), (startDay(high), end)].filter { $0.first < $0.end })
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

    /// `YYYY-MM` of a UTC day number column, in SQL.
    static func monthOfDaySQL(_ column: String) -> SQL {
        SQL(sql: "strftime('%Y-%m', \(column) * 86400, 'unixepoch')")
    }

    /// `YYYY-MM` of a `Month.index` column (from 1970 on), in SQL.
    static func monthOfIndexSQL(_ column: String) -> SQL {
        SQL(sql: "printf('%04d-%02d', 1970 + \(column) / 12, \(column) % 12 + 1)")
    }

    /// The `Month.index` of a UTC day number column, in SQL.
    static func monthIndexOfDaySQL(_ column: String) -> String {
        "(CAST(strftime('%Y', \(column) * 86400, 'unixepoch') AS INTEGER) - 1970) * 12"
            + " + CAST(strftime('%m', \(column) * 86400, 'unixepoch') AS INTEGER) - 1"
    }

    /// The UTC day number of a millisecond column (rounded down, as ``day(of:)``), in SQL.
    static func daySQL(_ column: String) -> String {
        "CASE WHEN \(column) >= 0 THEN \(column) / 86400000 ELSE -((-\(column) + 86399999) / 86400000) END"
    }

    /// Charged periods started in [from, upper), by the month of their start or by product (in
    /// order), and how many of them were refunded at or before `asOf`.
    ///
    /// The whole days of the range are sums of `chargeDay` (kept by the materialiser, ``MoneyAmount``):
    /// refunded by as-of is a refund day before as-of's, plus the refunds on as-of's day up to it,
    /// read from `periodMoney` by the refund index; the partial days at the range's ends are read
    /// from `periodMoney` whole.
    public func refundCounts(from: Int64, upper: Int64, asOf: Int64, byMonth: Bool, scope: RowScope) throws -> [RefundCount] {
        let days = WholeDays(from: from, upper: upper)
        let asOfDay = Self.day(of: Instant(milliseconds: asOf))
        let key = byMonth ? Self.monthSQL("start") : "productId"
        var parts: [SQL] = []
        if !days.isEmpty {
            let dayKey = byMonth ? Self.monthOfDaySQL("day") : "productId"
            parts.append(
                """
                SELECT \(dayKey) AS key, SUM(count) AS charged, SUM(CASE WHEN refundDay < \(asOfDay) THEN count ELSE 0 END) AS refunded
                FROM chargeDay
                WHERE \(scope.environment()) AND day >= \(days.first) AND day < \(days.end)\(scope.product("productId"))\(scope.plan("billingPlan"))
                GROUP BY 1
                """)
            // Refunded on as-of's day up to as-of: few, by the refund index.
            let dayStart = asOfDay * Instant.millisecondsPerDay
            parts.append(
                """
                SELECT \(key) AS key, 0 AS charged, COUNT(*) AS refunded
                FROM periodMoney INDEXED BY periodMoney_refund
                WHERE \(scope.environment()) AND refundAt >= \(dayStart) AND refundAt <= \(asOf)
                    AND start >= \(days.first * Instant.millisecondsPerDay) AND start < \(days.end * Instant.millisecondsPerDay)\(scope.product("productId"))\(scope.plan("billingPlan"))
                GROUP BY 1
                """)
        }
        // The index by start covers these (refundAt included); named so `refundAt` never draws the planner to the refund index.
        for range in days.partial {
            parts.append(
                """
                SELECT \(key) AS key, COUNT(*) AS charged, COALESCE(SUM(refundAt IS NOT NULL AND refundAt <= \(asOf)), 0) AS refunded
                FROM periodMoney INDEXED BY periodMoney_start
                WHERE \(scope.environment()) AND start >= \(range.from) AND start < \(range.upper)\(scope.product("productId"))\(scope.plan("billingPlan"))
                GROUP BY 1
                """)
        }
        guard !parts.isEmpty else { return [] }
        let union = parts.joined(separator: " UNION ALL ")
        let sql: SQL = "SELECT key, SUM(charged) AS charged, SUM(refunded) AS refunded FROM (\(union)) GROUP BY 1 ORDER BY 1"
        return try writer.read { db in
            try SQLRequest<RefundCount>(literal: try db.presentIndexes(in: sql)).fetchAll(db)
        }
    }

    /// Every charge, refund and upgrade credit with its instant in [from, upper), grouped by key,
    /// currency, month (when `withMonth`), amount and proceeds rate: conversion and proceeds are
    /// rounded per item, and a population pays few distinct prices, so each group is one amount
    /// times a count. `proceedsRatePercent` replaces each period's own rate when given.
    ///
    /// The whole months of the range are sums of `moneyMonth`, the other whole days of `moneyDay`
    /// (kept by the materialiser, ``MoneyAmount``, under these groups); only the partial days at
    /// its ends are read from `periodMoney`. A group may come once from each: the caller adds
    /// them up.
    public func moneyAmounts(
        from: Int64, upper: Int64, by grouping: MoneyGrouping?, withMonth: Bool,
        proceedsRatePercent: Int?, scope: RowScope
    ) throws -> [MoneyAmountGroup] {
        let days = WholeDays(from: from, upper: upper)
        let rate = SQL(sql: proceedsRatePercent.map(String.init) ?? "proceedsRate")
        return try writer.read { db in
            var groups: [MoneyAmountGroup] = []
            func collect(_ kind: MoneyAmountKind?, _ sql: SQL) throws {
                let cursor = try Row.fetchCursor(db, SQLRequest(literal: try db.presentIndexes(in: sql)))
                while let row = try cursor.next() {
                    let kept: String? = kind == nil ? row["kind"] : nil
                    groups.append(
                        MoneyAmountGroup(
                            kind: kind ?? MoneyAmountKind.allCases.first { $0.kept == kept }!, key: row["key"],
                            currency: row["currency"], month: row["month"], amount: row["amount"],
                            proceedsRatePercent: row["rate"], count: row["count"]))
                }
            }
            // Whole months from `moneyMonth`, the whole days outside them from `moneyDay`.
            let (months, wholeDays) = days.months
            var sums: [(table: String, time: String, from: Int64, to: Int64)] = wholeDays.map {
                ("moneyDay", "day", $0.first, $0.end)
            }
            if !months.isEmpty { sums.append(("moneyMonth", "month", Int64(months.lowerBound), Int64(months.upperBound))) }
            for (table, time, low, high) in sums {
                let monthKey = time == "day" ? Self.monthOfDaySQL("day") : Self.monthOfIndexSQL("month")
                let key: SQL =
                    switch grouping {
                    case nil: "NULL"
                    case .month: monthKey
                    case .product: "productId"
                    case .storefront: "storefront"
                    case .currency: "NULLIF(currency, '')"
                    }
                let month = withMonth ? monthKey : "NULL"
                try collect(
                    nil,
                    """
                    SELECT kind, \(key) AS key, NULLIF(currency, '') AS currency, \(month) AS month, NULLIF(amount, -1) AS amount,
                        \(rate) AS rate, SUM(count) AS count
                    FROM \(sql: table)
                    WHERE \(scope.environment()) AND \(sql: time) >= \(low) AND \(sql: time) < \(high)\(scope.product("productId"))\(scope.plan("billingPlan"))
                    GROUP BY 1, 2, 3, 4, 5, 6
                    """)
            }
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
                for range in days.partial {
                    // Each amount's own index by its instant covers its query; named so the range column alone decides.
                    try collect(
                        kind,
                        """
                        SELECT \(key) AS key, currency, \(month) AS month, \(sql: amount) AS amount, \(rate) AS rate, COUNT(*) AS count
                        FROM periodMoney INDEXED BY \(sql: index)
                        WHERE \(scope.environment()) AND \(sql: instant) >= \(range.from) AND \(sql: instant) < \(range.upper)\(scope.product("productId"))\(scope.plan("billingPlan"))
                        GROUP BY 1, 2, 3, 4, 5
                        """)
                }
            }
            return groups
        }
    }
}
