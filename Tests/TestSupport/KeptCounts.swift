import GRDB
import SubscriberStore

/// The kept tables of counts (the tables per day and per month, and `productDuration`) as a
/// store keeps them incrementally, against the same tables rebuilt from its facts alone: every
/// derived row and count removed from a copy, every subscription derived afresh.
public struct KeptCounts: Sendable {
    /// Each kept table's rows, sorted, as text.
    public var kept: [String: [String]]
    public var rebuilt: [String: [String]]

    /// The tables whose rows differ.
    public var differing: [String] { Set(kept.keys).union(rebuilt.keys).sorted().filter { kept[$0] != rebuilt[$0] } }

    /// The kept tables of `database`: every table keyed by day or month, `productDuration` and `mrrChange`.
    public static func tables(_ db: Database) throws -> [String] {
        try String.fetchAll(
            db,
            sql: """
                SELECT name FROM sqlite_schema WHERE type = 'table'
                    AND (name GLOB '*[a-z]Day' OR name GLOB '*[a-z]Month' OR name IN ('productDuration', 'mrrChange')) ORDER BY 1
                """)
    }

    static func rows(_ db: Database, _ tables: [String]) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for table in tables {
            result[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map { row in
                row.databaseValues.map(\.description).joined(separator: "|")
            }.sorted()
        }
        return result
    }

    /// The derived rows the materialiser writes for each subscription.
    static let derivedTables = [
        "subscription", "period", "run", "segment", "event", "billingFailure", "periodMoney", "offerUse", "subscriberSearch",
        "commitment",
    ]

    /// The kept tables of `database` as it keeps them.
    public static func kept(_ database: AppDatabase) throws -> [String: [String]] {
        try database.writer.read { db in try rows(db, try tables(db)) }
    }

    /// The kept tables of `database`, and the same tables rebuilt from its facts in a copy.
    public static func of(_ database: AppDatabase) throws -> KeptCounts {
        let copy = try DatabaseQueue()
        try database.writer.backup(to: copy)
        let (tables, kept) = try database.writer.read { db in
            let tables = try Self.tables(db)
            return (tables, try rows(db, tables))
        }
        try copy.write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO pendingSubscription (originalTransactionId)
                        SELECT originalTransactionId FROM subscription
                        UNION SELECT originalTransactionId FROM "transaction"
                    """)
            for table in tables + derivedTables { try db.execute(sql: "DELETE FROM \(table)") }
        }
        let fresh = try AppDatabase(copy)
        try fresh.rebuildPending()
        return KeptCounts(kept: kept, rebuilt: try fresh.writer.read { db in try rows(db, tables) })
    }
}
