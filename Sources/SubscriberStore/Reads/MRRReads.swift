import GRDB
import SubscriptionModel

/// What MRR needs to know of a charged period: the money columns it is grouped by.
public struct MRRKey: Hashable, Sendable {
    public var offerKind: String
    public var productId: String
    /// Nil with the price when the period is unpriced.
    public var currency: String?
    public var price: Int64?
    /// The period's own month multiplier in twelfths (`periodMoney.monthlyTwelfths`).
    public var monthlyTwelfths: Int
    /// `upfront` or `monthly` (`periodMoney.billingPlan`): a monthly payment is one month's MRR.
    public var billingPlan: String

    public init(
        offerKind: String, productId: String, currency: String?, price: Int64?, monthlyTwelfths: Int,
        billingPlan: String = BillingPlan.upfront.rawValue
    ) {
        self.offerKind = offerKind
        self.productId = productId
        (self.currency, self.price) = currency == nil || price == nil ? (nil, nil) : (currency, price)
        self.monthlyTwelfths = monthlyTwelfths
        self.billingPlan = billingPlan
    }

    init(_ row: Row, from column: Int) {
        self.init(
            offerKind: row[column], productId: row[column + 1], currency: row[column + 2], price: row[column + 3],
            monthlyTwelfths: row[column + 4], billingPlan: row[column + 5])
    }

    /// The stored form in `mrrDay` / `mrrMonth`: an unpriced period is currency '' and price 0.
    var storedValues: [DatabaseValue] {
        [
            offerKind.databaseValue, productId.databaseValue, (currency ?? "").databaseValue, (price ?? 0).databaseValue,
            monthlyTwelfths.databaseValue, billingPlan.databaseValue,
        ]
    }
}

/// The charged periods covering an instant and the grace periods open at it, counted by
/// ``MRRKey`` (docs/metrics.md "Money", "How the money figures are computed").
///
/// Each charged period `[start, end)` and each grace period after a charged period `[failure,
/// min(retry window end, grace end))` is an interval; the intervals covering t are those started
/// at or before t less those ended at or before t. `mrrMonth` and `mrrDay`, kept by the
/// materialiser, count starts and ends per UTC month and day, so the whole months before t's and
/// the whole days of its month up to the day boundary nearest t are sums of a few rows each;
/// only the intervals starting or ending between that boundary and t are read one by one.
extension AppDatabase {
    /// For each of `instants`, in order: the intervals covering it, by key (keys with no interval
    /// are left out). The scope's environments and product (the period's) restrict what counts;
    /// every ownership counts, as money rows keep none.
    public func mrrCounts(at instants: [Instant], scope: RowScope) throws -> [[MRRKey: Int]] {
        guard !instants.isEmpty else { return [] }
        let (environments, productId) = (scope.environments, scope.productId)
        let environmentSQL = RowScope.inList(environments)
        let allOwnerships = RowScope.inList(Ownership.allCases)
        // Counted rows store an unpriced period as currency '' and price 0.
        let keyColumns =
            "x.offerKind, x.productId, NULLIF(x.currency, ''), CASE WHEN x.currency = '' THEN NULL ELSE x.price END, "
            + "x.monthlyTwelfths, x.billingPlan"
        let moneyColumns = "m.offerKind, m.productId, m.currency, m.price, m.monthlyTwelfths, m.billingPlan"
        var product = ""
        var arguments = StatementArguments()
        var samples: [String] = []
        for (index, t) in instants.enumerated() {
            // The nearer day boundary: from the day's start, the intervals starting or ending up to
            // t are added; from the next day's, the whole day is counted and those starting or
            // ending after t are taken back (a month's last millisecond reads none).
            let day = Self.day(of: t)
            let dayStart = day * Instant.millisecondsPerDay
            let before = t.milliseconds - dayStart < Instant.millisecondsPerDay / 2
            let (dayLimit, low, high, sign) =
                before
                ? (day, dayStart, t.milliseconds, 1)
                : (day + 1, t.milliseconds + 1, dayStart + Instant.millisecondsPerDay - 1, -1)
            samples.append("(\(index), \(dayLimit), \(low), \(high), \(sign), \(t.month.index), \(Self.day(of: t.month.start)))")
        }
        if let productId {
            product = "AND x.productId = ?"
            arguments += [productId]
        }
        let moneyProduct = productId == nil ? "" : "AND m.productId = ?"
        func repeated(_ n: Int) -> StatementArguments {
            var all = StatementArguments()
            for _ in 0..<n { all += arguments }
            return all
        }
        let sample =
            "WITH sample(i, dayLimit, low, high, sign, month, monthStartDay) AS (VALUES \(samples.joined(separator: ", ")))"
        let sql = """
            \(sample)
            SELECT s.i, \(keyColumns),
                SUM(x.starts - x.ends)
            FROM sample s JOIN mrrMonth x ON x.environment \(environmentSQL) AND x.month < s.month \(product)
            GROUP BY 1, 2, 3, 4, 5, 6, 7
            UNION ALL
            SELECT s.i, \(keyColumns),
                SUM(x.starts - x.ends)
            FROM sample s JOIN mrrDay x ON x.environment \(environmentSQL) AND x.day >= s.monthStartDay AND x.day < s.dayLimit \(product)
            GROUP BY 1, 2, 3, 4, 5, 6, 7
            UNION ALL
            SELECT s.i, \(moneyColumns), s.sign * COUNT(*)
            FROM sample s JOIN periodMoney m INDEXED BY periodMoney_start
                ON m.environment \(environmentSQL) AND m.start >= s.low AND m.start <= s.high
            WHERE m.start < m."end" \(moneyProduct)
            GROUP BY 1, 2, 3, 4, 5, 6, 7
            UNION ALL
            SELECT s.i, \(moneyColumns), -s.sign * COUNT(*)
            FROM sample s JOIN periodMoney m INDEXED BY periodMoney_end
                ON m.environment \(environmentSQL) AND m."end" >= s.low AND m."end" <= s.high
            WHERE m.start < m."end" \(moneyProduct)
            GROUP BY 1, 2, 3, 4, 5, 6, 7
            UNION ALL
            SELECT s.i, \(moneyColumns), s.sign * COUNT(*)
            FROM sample s JOIN billingFailure f INDEXED BY billingFailure_at
                ON f.environment \(environmentSQL) AND f.ownership \(allOwnerships) AND f.at >= s.low AND f.at <= s.high
            JOIN periodMoney m ON m.transactionId = f.transactionId
            WHERE f.graceEnd IS NOT NULL AND f.at < MIN(f.windowEnd, f.graceEnd) \(moneyProduct)
            GROUP BY 1, 2, 3, 4, 5, 6, 7
            UNION ALL
            SELECT s.i, \(moneyColumns), -s.sign * COUNT(*)
            FROM sample s JOIN billingFailure f INDEXED BY billingFailure_graceClosed
                ON f.environment \(environmentSQL) AND MIN(f.windowEnd, f.graceEnd) >= s.low
                AND MIN(f.windowEnd, f.graceEnd) <= s.high AND f.graceEnd IS NOT NULL
            JOIN periodMoney m ON m.transactionId = f.transactionId
            WHERE f.at < MIN(f.windowEnd, f.graceEnd) \(moneyProduct)
            GROUP BY 1, 2, 3, 4, 5, 6, 7
            """
        var counts = [[MRRKey: Int]](repeating: [:], count: instants.count)
        try writer.read { db in
            let rows = try Row.fetchCursor(db, sql: try db.presentIndexes(sql), arguments: repeated(6))
            while let row = try rows.next() {
                counts[row[0] as Int][MRRKey(row, from: 1), default: 0] += row[7] as Int
            }
        }
        return counts.map { $0.filter { $0.value != 0 } }
    }

    /// The same counts read the long way, every charged period and billing failure against each
    /// instant: what ``mrrCounts(at:scope:)`` must always equal (tests).
    public func mrrCountsByScan(at instants: [Instant], scope: RowScope) throws -> [[MRRKey: Int]] {
        let (environments, productId) = (scope.environments, scope.productId)
        let environmentSQL = RowScope.inList(environments)
        let product = productId == nil ? "" : "AND m.productId = :product"
        return try writer.read { db in
            try instants.map { t in
                var counts: [MRRKey: Int] = [:]
                let arguments: StatementArguments = ["t": t.milliseconds, "product": productId]
                for row in try Row.fetchAll(
                    db,
                    sql: """
                        SELECT m.offerKind, m.productId, m.currency, m.price, m.monthlyTwelfths, m.billingPlan, COUNT(*)
                        FROM periodMoney m
                        WHERE m.environment \(environmentSQL) AND m.start <= :t AND m."end" > :t \(product)
                        GROUP BY 1, 2, 3, 4, 5, 6
                        UNION ALL
                        SELECT m.offerKind, m.productId, m.currency, m.price, m.monthlyTwelfths, m.billingPlan, COUNT(*)
                        FROM billingFailure f JOIN periodMoney m ON m.transactionId = f.transactionId
                        WHERE f.environment \(environmentSQL) AND f.at <= :t AND f.windowEnd > :t AND f.graceEnd > :t \(product)
                        GROUP BY 1, 2, 3, 4, 5, 6
                        """, arguments: arguments)
                {
                    counts[MRRKey(row, from: 0), default: 0] += row[6] as Int
                }
                return counts
            }
        }
    }

    /// `mrrDay` and `mrrMonth` as the materialiser keeps them, and as recomputed from
    /// `periodMoney` and `billingFailure` (what the migration fills them with): equal in a
    /// consistent store (tests).
    public func mrrCountTables() throws -> (kept: [[DatabaseValue]], recomputed: [[DatabaseValue]]) {
        try writer.read { db in
            let kept = try Row.fetchAll(
                db,
                sql: """
                    SELECT 'day', environment, day, offerKind, productId, currency, price, monthlyTwelfths, billingPlan,
                        starts, ends
                    FROM mrrDay
                    UNION ALL
                    SELECT 'month', environment, month, offerKind, productId, currency, price, monthlyTwelfths, billingPlan,
                        starts, ends
                    FROM mrrMonth
                    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
                    """)
            let recomputed = try Row.fetchAll(
                db,
                sql: """
                    WITH d AS (\(Self.mrrDaySQL))
                    SELECT 'day', * FROM d
                    UNION ALL
                    SELECT 'month', environment, \(Self.monthIndexSQL(day: "day")), offerKind, productId, currency, price,
                        monthlyTwelfths, billingPlan, SUM(starts), SUM(ends) FROM d GROUP BY 2, 3, 4, 5, 6, 7, 8, 9
                    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
                    """)
            return (kept.map { Array($0.databaseValues) }, recomputed.map { Array($0.databaseValues) })
        }
    }

    /// `mrrDay`'s rows computed from `periodMoney` and `billingFailure`.
    private static let mrrDaySQL = """
        SELECT environment, day, offerKind, productId, currency, price, monthlyTwelfths, billingPlan, SUM(starts) AS starts,
            SUM(ends) AS ends
        FROM (
            SELECT environment, \(daySQL("start")) AS day, offerKind, productId, \(storedMoneySQL("")), 1 AS starts, 0 AS ends
            FROM periodMoney WHERE start < "end"
            UNION ALL
            SELECT environment, \(daySQL("\"end\"")), offerKind, productId, \(storedMoneySQL("")), 0, 1
            FROM periodMoney WHERE start < "end"
            UNION ALL
            SELECT f.environment, \(daySQL("f.at")), m.offerKind, m.productId, \(storedMoneySQL("m.")), 1, 0
            FROM billingFailure f JOIN periodMoney m ON m.transactionId = f.transactionId
            WHERE f.graceEnd IS NOT NULL AND f.at < MIN(f.windowEnd, f.graceEnd)
            UNION ALL
            SELECT f.environment, \(daySQL("MIN(f.windowEnd, f.graceEnd)")), m.offerKind, m.productId, \(storedMoneySQL("m.")), 0, 1
            FROM billingFailure f JOIN periodMoney m ON m.transactionId = f.transactionId
            WHERE f.graceEnd IS NOT NULL AND f.at < MIN(f.windowEnd, f.graceEnd))
        GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
        """

    /// Currency, price and multiplier as `mrrDay` stores them (unpriced: '' and 0).
    private static func storedMoneySQL(_ prefix: String) -> String {
        """
        CASE WHEN \(prefix)price IS NULL OR \(prefix)currency IS NULL THEN '' ELSE \(prefix)currency END AS currency,
        CASE WHEN \(prefix)price IS NULL OR \(prefix)currency IS NULL THEN 0 ELSE \(prefix)price END AS price,
        \(prefix)monthlyTwelfths AS monthlyTwelfths, \(prefix)billingPlan AS billingPlan
        """
    }

    /// The UTC day number (days since 1970-01-01, rounded down) of a millisecond instant, in SQL.
    private static func daySQL(_ milliseconds: String) -> String {
        let day = Instant.millisecondsPerDay
        return "((\(milliseconds) - ((\(milliseconds) % \(day)) + \(day)) % \(day)) / \(day))"
    }

    /// The month index (``Month/index``) of a UTC day number, in SQL.
    private static func monthIndexSQL(day: String) -> String {
        "((CAST(strftime('%Y', \(day) * 86400, 'unixepoch') AS INTEGER) - 1970) * 12 "
            + "+ CAST(strftime('%m', \(day) * 86400, 'unixepoch') AS INTEGER) - 1)"
    }
}
