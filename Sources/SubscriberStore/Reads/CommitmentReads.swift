import GRDB
import SubscriptionModel
import SubscriptionTimeline

/// The running commitments of purchased subscriptions at an instant, counted by ``CommittedKey``
/// (docs/metrics.md, "Committed revenue").
///
/// `committedMonth` and `committedDay`, kept by the materialiser (``KeptCommitment``), count each
/// commitment into and out of its key per UTC month and day, so the whole months before t's and
/// the whole days of its month up to the day boundary nearest t are sums of a few rows each; only
/// the commitments starting, charged or ending between that boundary and t are read, with their
/// charges, and the rule applied to them at the boundary and at t.
extension AppDatabase {
    /// For each of `instants`, in order: the running commitments, by key (keys with none are left
    /// out). The scope's environments and product (the commitment's) restrict what counts.
    public func committedCounts(at instants: [Instant], scope: RowScope) throws -> [[CommittedKey: Int]] {
        guard !instants.isEmpty else { return [] }
        let environmentSQL = RowScope.inList(scope.environments)
        var samples: [String] = []
        for (index, t) in instants.enumerated() {
            // The nearer day boundary, as `mrrCounts` takes it: the counted days reach the
            // instant `reference` (the last millisecond before t's day, or of it), and the
            // commitments changing in [low, high] between it and t are read.
            let day = Self.day(of: t)
            let dayStart = day * Instant.millisecondsPerDay
            let before = t.milliseconds - dayStart < Instant.millisecondsPerDay / 2
            let (dayLimit, low, high, reference) =
                before
                ? (day, dayStart, t.milliseconds, dayStart - 1)
                : (
                    day + 1, t.milliseconds + 1, dayStart + Instant.millisecondsPerDay - 1,
                    dayStart + Instant.millisecondsPerDay - 1
                )
            samples.append(
                "(\(index), \(dayLimit), \(low), \(high), \(reference), \(t.month.index), \(Self.day(of: t.month.start)))")
        }
        var arguments = StatementArguments()
        var product = ""
        if let productId = scope.productId {
            product = "AND x.productId = ?"
            arguments += [productId]
        }
        let sample =
            "WITH sample(i, dayLimit, low, high, reference, month, monthStartDay) AS (VALUES \(samples.joined(separator: ", ")))"
        // The whole months before each instant's (``MonthTotals``).
        let months = MonthTotals.sql(
            select: "x.productId, x.currency, x.amount, SUM(x.count)",
            table: "committedMonth", conditions: "x.environment \(environmentSQL) \(product)", groupColumns: 3)
        let sql = """
            \(sample)
            SELECT s.i, x.productId, x.currency, x.amount, SUM(x.count)
            FROM sample s JOIN committedDay x
                ON x.environment \(environmentSQL) AND x.day >= s.monthStartDay AND x.day < s.dayLimit \(product)
            GROUP BY 1, 2, 3, 4
            """
        // The commitments starting, charged or running out in [low, high], with all their charges.
        let touched = """
            \(sample),
            touched(i, reference, originalTransactionId, commitmentIndex) AS (
                SELECT s.i, s.reference, c.originalTransactionId, c.commitmentIndex
                FROM sample s JOIN commitment c INDEXED BY commitment_start
                    ON c.environment \(environmentSQL) AND c.start >= s.low AND c.start <= s.high
                UNION
                SELECT s.i, s.reference, c.originalTransactionId, c.commitmentIndex
                FROM sample s JOIN commitment c INDEXED BY commitment_running
                    ON c.environment \(environmentSQL) AND c.runningEnd >= s.low AND c.runningEnd <= s.high
                UNION
                SELECT s.i, s.reference, m.originalTransactionId, m.commitmentIndex
                FROM sample s JOIN periodMoney m INDEXED BY periodMoney_start
                    ON m.environment \(environmentSQL) AND m.start >= s.low AND m.start <= s.high
                WHERE m.commitmentIndex IS NOT NULL)
            SELECT t.i, t.reference, t.originalTransactionId, t.commitmentIndex, x.productId, x.start, x.runningEnd,
                x.price, x.currency, m.start, m.price, m.currency
            FROM touched t JOIN commitment x ON x.originalTransactionId = t.originalTransactionId
                AND x.commitmentIndex = t.commitmentIndex
            LEFT JOIN periodMoney m ON m.originalTransactionId = x.originalTransactionId
                AND m.commitmentIndex = x.commitmentIndex
            WHERE x.ownership = '\(Ownership.purchased.rawValue)' \(product)
            ORDER BY t.i, t.originalTransactionId, t.commitmentIndex
            """
        var counts = [[CommittedKey: Int]](repeating: [:], count: instants.count)
        // Counted rows store an unpriced commitment as currency '' and amount 0.
        func key(_ row: Row) -> CommittedKey {
            let currency: String = row[2]
            return CommittedKey(
                productId: row[1], currency: currency.isEmpty ? nil : currency, amount: currency.isEmpty ? nil : row[3])
        }
        try writer.read { db in
            counts = try MonthTotals.before(instants, db, sql: months, arguments: arguments, key: key, count: { $0[4] })
            let rows = try Row.fetchCursor(db, sql: try db.presentIndexes(sql), arguments: arguments)
            while let row = try rows.next() {
                counts[row[0] as Int][key(row), default: 0] += row[4] as Int
            }
            // One commitment's rows at a time: the rule at the reference instant is taken back,
            // at t added.
            var current: (i: Int, reference: Int64, id: String, index: Int, commitment: KeptCommitment)?
            func apply() {
                guard let c = current else { return }
                if let key = c.commitment.key(at: Instant(milliseconds: c.reference)) { counts[c.i][key, default: 0] -= 1 }
                if let key = c.commitment.key(at: instants[c.i]) { counts[c.i][key, default: 0] += 1 }
            }
            let day = try Row.fetchCursor(db, sql: try db.presentIndexes(touched), arguments: arguments)
            while let row = try day.next() {
                let (i, id, index): (Int, String, Int) = (row[0], row[2], row[3])
                if current.map({ $0.i != i || $0.id != id || $0.index != index }) ?? true {
                    apply()
                    current = (
                        i, row[1], id, index,
                        KeptCommitment(
                            productId: row[4], start: Instant(milliseconds: row[5]), runningEnd: Instant(milliseconds: row[6]),
                            price: row[7], currency: row[8], charges: [])
                    )
                }
                if let start: Int64 = row[9] {
                    current!.commitment.charges.append(
                        Commitment.Charge(start: Instant(milliseconds: start), price: row[10], currency: row[11]))
                }
            }
            apply()
        }
        return counts.map { $0.filter { $0.value != 0 } }
    }
}
