import GRDB
import SubscriptionModel
import SubscriptionTimeline

extension MRRKey {
    /// The key from `row`'s columns from `column` on: offerKind, productId, currency, price, monthlyTwelfths,
    /// billingPlan.
    init(_ row: Row, from column: Int) {
        self.init(
            offerKind: row[column], productId: row[column + 1], currency: row[column + 2], price: row[column + 3],
            monthlyTwelfths: row[column + 4], billingPlan: row[column + 5])
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
        // The whole months before each instant's (``MonthTotals``).
        let months = MonthTotals.sql(
            select: "\(keyColumns), SUM(x.starts - x.ends)",
            table: "mrrMonth", conditions: "x.environment \(environmentSQL) \(product)", groupColumns: 6)
        let sql = """
            \(sample)
            SELECT s.i, \(keyColumns),
                SUM(x.starts - x.ends)
            FROM sample s JOIN mrrDay x ON x.environment \(environmentSQL) AND x.day >= s.monthStartDay AND x.day < s.dayLimit \(product)
            GROUP BY 1, 2, 3, 4, 5, 6, 7
            """
        // As-of's day: the charged periods and failures starting or ending in [low, high] of each
        // instant, found by the indexes by instant and counted by the rule the materialiser kept
        // them by (``MRRInterval``): +sign at an interval's start in range, −sign at its end.
        let touched = """
            \(sample)
            SELECT s.i, s.low, s.high, s.sign, m.transactionId, NULL, m.start, m."end", NULL, \(moneyColumns)
            FROM sample s JOIN periodMoney m INDEXED BY periodMoney_start
                ON m.environment \(environmentSQL) AND m.start >= s.low AND m.start <= s.high
            WHERE 1 \(moneyProduct)
            UNION
            SELECT s.i, s.low, s.high, s.sign, m.transactionId, NULL, m.start, m."end", NULL, \(moneyColumns)
            FROM sample s JOIN periodMoney m INDEXED BY periodMoney_end
                ON m.environment \(environmentSQL) AND m."end" >= s.low AND m."end" <= s.high
            WHERE 1 \(moneyProduct)
            UNION
            SELECT s.i, s.low, s.high, s.sign, f.transactionId, f.originalTransactionId, f.at, f.windowEnd, f.graceEnd,
                \(moneyColumns)
            FROM sample s JOIN billingFailure f INDEXED BY billingFailure_at
                ON f.environment \(environmentSQL) AND f.ownership \(allOwnerships) AND f.at >= s.low AND f.at <= s.high
            JOIN periodMoney m ON m.transactionId = f.transactionId
            WHERE 1 \(moneyProduct)
            UNION
            SELECT s.i, s.low, s.high, s.sign, f.transactionId, f.originalTransactionId, f.at, f.windowEnd, f.graceEnd,
                \(moneyColumns)
            FROM sample s JOIN billingFailure f INDEXED BY billingFailure_graceClosed
                ON f.environment \(environmentSQL) AND MIN(f.windowEnd, f.graceEnd) >= s.low
                AND MIN(f.windowEnd, f.graceEnd) <= s.high AND f.graceEnd IS NOT NULL
            JOIN periodMoney m ON m.transactionId = f.transactionId
            WHERE 1 \(moneyProduct)
            """
        var counts = [[MRRKey: Int]](repeating: [:], count: instants.count)
        try writer.read { db in
            counts = try MonthTotals.before(
                instants, db, sql: months, arguments: arguments, key: { MRRKey($0, from: 1) }, count: { $0[7] })
            let rows = try Row.fetchCursor(db, sql: try db.presentIndexes(sql), arguments: repeated(1))
            while let row = try rows.next() {
                counts[row[0] as Int][MRRKey(row, from: 1), default: 0] += row[7] as Int
            }
            let day = try Row.fetchCursor(db, sql: try db.presentIndexes(touched), arguments: repeated(4))
            while let row = try day.next() {
                let (i, low, high, sign): (Int, Int64, Int64, Int) = (row[0], row[1], row[2], row[3])
                let key = MRRKey(row, from: 9)
                let (start, end) = (Instant(milliseconds: row[6]), Instant(milliseconds: row[7]))
                // A failure names its subscription; a charged period does not.
                let isFailure = (row[5] as String?) != nil
                let interval =
                    isFailure
                    ? MRRInterval.grace(
                        at: start, windowEnd: end, graceEnd: (row[8] as Int64?).map(Instant.init(milliseconds:)), key: key)
                    : MRRInterval.period(start: start, end: end, key: key)
                guard let interval else { continue }
                if low <= interval.start.milliseconds && interval.start.milliseconds <= high {
                    counts[i][key, default: 0] += sign
                }
                if low <= interval.end.milliseconds && interval.end.milliseconds <= high { counts[i][key, default: 0] -= sign }
            }
        }
        return counts.map { $0.filter { $0.value != 0 } }
    }
}
