import Foundation
import GRDB

/// The indexes of the derived tables that a rebuild does not read (those not led by
/// `originalTransactionId`: by time, by product, by cohort…), set aside while many subscriptions are
/// derived at once.
///
/// A rebuild writes subscriptions in id order, so the derived tables, keyed by subscription, grow
/// at their ends; but each of these indexes is keyed by time or product, so every row lands at a
/// random place in it. Once they outgrow the page cache (at a million subscribers they are
/// gigabytes) each row costs page reads and a page write to the WAL and back (docs/performance.md,
/// "Where an import's time goes"). Built afterwards, SQLite sorts each index's keys and writes its
/// pages once, in order.
///
/// While they are missing, pending subscriptions remain: the last chunk of the rebuild builds
/// them in its own transaction. A rebuild that was interrupted leaves them missing with its
/// subscriptions still pending, and the next rebuild (the next import) builds them; until then a
/// report that names one of them fails rather than read the half-derived store.
public enum DerivedIndexes {
    /// Pending subscriptions from which a rebuild sets the indexes aside: below it, building an
    /// index from scratch (reading every row of its table) costs more than the random inserts.
    public static let deferFrom = 50_000

    /// The tables `Materializer` writes.
    static let derivedTables = [
        "subscription", "period", "run", "segment", "event", "billingFailure", "periodMoney",
        "offerUse", "subscriberSearch", "commitment",
    ]

    /// Page cache while the indexes are built, in KiB: SQLite's sorter holds this much of each
    /// index's keys in memory before it writes a sorted run to a temporary file.
    static let buildCacheKibibytes = 32 * 1024

    /// Every index this schema gives the derived tables that a rebuild can set aside: name and
    /// `CREATE INDEX` statement, from an empty store migrated in memory (so an index a later
    /// migration adds is included with no list to keep up to date).
    static let expected: Result<(deferrable: [String: String], all: Int), any Error> = Result {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue)
        return try queue.read { db in (try deferrable(db), try count(db)) }
    }

    private static let tableList = derivedTables.map { "'\($0)'" }.joined(separator: ", ")

    /// How many indexes (declared ones, not primary keys) the derived tables have in `db`.
    private static func count(_ db: Database) throws -> Int {
        try Int.fetchOne(
            db,
            sql: """
                SELECT COUNT(*) FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (\(tableList))
                """) ?? 0
    }

    /// The deferrable indexes present in `db`.
    static func deferrable(_ db: Database) throws -> [String: String] {
        var found: [String: String] = [:]
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (\(tableList))
                """)
        {
            let name: String = row["name"]
            let lead = try String.fetchOne(db, sql: "SELECT name FROM pragma_index_info(?) WHERE seqno = 0", arguments: [name])
            if lead != "originalTransactionId" { found[name] = row["sql"] }
        }
        return found
    }

    /// Drops them (those present).
    static func drop(_ db: Database) throws {
        for name in try deferrable(db).keys.sorted() {
            try db.execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
        }
    }

    /// Builds those missing, with a smaller page cache and sorted runs in temporary files rather
    /// than memory, so the build stays inside an import's memory bound whatever the store's size.
    /// One count when none is missing (every small rebuild, such as each of the listener's).
    static func buildMissing(_ db: Database) throws {
        let expected = try self.expected.get()
        guard try count(db) < expected.all else { return }
        let present = try deferrable(db)
        let missing = expected.deferrable.filter { present[$0.key] == nil }
        guard !missing.isEmpty else { return }
        let cache = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -AppDatabase.everydayCacheKibibytes
        try db.execute(sql: "PRAGMA cache_size = -\(buildCacheKibibytes)")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(cache)") }
        // The pages the smaller cache let go are free in the heap, not given back to the system;
        // the sorter's buffer (up to the cache's size) is a new mapping on top of them. Given
        // back first, they make room for it (at 100,000 subscribers the builds made an import's
        // peak: 286 → 311 MB).
        FreedMemory.returnToSystem()
        for (_, sql) in missing.sorted(by: { $0.key < $1.key }) { try db.execute(sql: sql) }
    }
}

/// The C library's free heap pages handed back to the system.
enum FreedMemory {
    /// glibc's `malloc_trim(0)`, looked up at run time (it is not in the headers Swift imports);
    /// nothing elsewhere.
    static func returnToSystem() {
        #if canImport(Glibc)
            typealias Trim = @convention(c) (Int) -> Int32
            guard let symbol = dlsym(nil, "malloc_trim") else { return }
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }
}
