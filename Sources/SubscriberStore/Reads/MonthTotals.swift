import GRDB
import SubscriptionModel

/// Counts kept per UTC month (`mrrMonth`, `committedMonth`) summed over the whole months before
/// each of many instants: each month's rows are read once, in month order, and each instant takes
/// the running total when the rows reach its month. Joining every instant to every month before
/// its own read the months once per instant (the Money pane's eleven MRR instants: 603,037 VM
/// steps against 140,556, docs/performance.md "MRR movement of a bucket from its changes").
enum MonthTotals {
    /// A statement over `table` (aliased `x`) whose first column is the month (`Month.index`): the
    /// rows before a month limit (its first argument) that meet `conditions`, grouped by month and
    /// the `groupColumns` columns after it, in month order.
    static func sql(select: String, table: String, conditions: String, groupColumns: Int) -> String {
        """
        SELECT x.month, \(select) FROM \(table) x WHERE x.month < ? AND \(conditions)
        GROUP BY \((1...groupColumns + 1).map(String.init).joined(separator: ", ")) ORDER BY 1
        """
    }

    /// For each of `instants`, in order: the sums of `key`'s `count` over the rows of `sql`
    /// (``sql(select:table:conditions:groupColumns:)``) in the months before the instant's own. `arguments`
    /// follow the month limit.
    static func before<Key: Hashable>(
        _ instants: [Instant], _ db: Database, sql: String, arguments: StatementArguments,
        key: (Row) -> Key, count: (Row) -> Int
    ) throws -> [[Key: Int]] {
        var totals = [[Key: Int]](repeating: [:], count: instants.count)
        guard !instants.isEmpty else { return totals }
        let byMonth = instants.indices.sorted { instants[$0].month.index < instants[$1].month.index }
        var all: StatementArguments = [instants[byMonth[byMonth.count - 1]].month.index]
        all += arguments
        let rows = try Row.fetchCursor(db, sql: sql, arguments: all)
        var next = 0
        var running: [Key: Int] = [:]
        while let row = try rows.next() {
            let month: Int = row[0]
            while next < byMonth.count && instants[byMonth[next]].month.index <= month {
                totals[byMonth[next]] = running
                next += 1
            }
            running[key(row), default: 0] += count(row)
        }
        for i in byMonth[next...] { totals[i] = running }
        return totals
    }
}
