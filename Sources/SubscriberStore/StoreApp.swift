import GRDB
import SubscriptionModel

/// The app whose subscriptions the store holds (`storeApp`, one row): recorded from the first
/// signed document that names its app, or set at import with `--bundle-id` / `--app-apple-id`.
/// A signed document for another app is rejected.
enum StoreApp {
    static func fetch(_ db: Database) throws -> AppIdentity? {
        // Cached: a receiver asks once a notification (one statement compiled for each took 8% of
        // its committing thread).
        let statement = try db.cachedStatement(sql: "SELECT bundleId, appAppleId FROM storeApp WHERE id = 1")
        guard let row = try Row.fetchOne(statement) else { return nil }
        return AppIdentity(bundleId: row["bundleId"], appAppleId: row["appAppleId"])
    }

    /// Records the app, or fills in an Apple id the first record lacked.
    static func record(_ app: AppIdentity, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO storeApp (id, bundleId, appAppleId) VALUES (1, ?, ?)
                ON CONFLICT(id) DO UPDATE SET appAppleId = COALESCE(storeApp.appAppleId, excluded.appAppleId)
                """, arguments: [app.bundleId, app.appAppleId])
    }
}

extension AppDatabase {
    /// The app the store holds, if it knows yet.
    public func storeApp() throws -> AppIdentity? {
        try writer.read { db in try StoreApp.fetch(db) }
    }

    /// Records `app` as the store's app (`--bundle-id` / `--app-apple-id`). Throws when the
    /// store already holds another app.
    public func recordStoreApp(_ app: AppIdentity) throws {
        try writer.write { db in
            if let current = try StoreApp.fetch(db), !current.matches(app) {
                throw StoreError("this store holds the app \(current), not \(app)")
            }
            try StoreApp.record(app, db)
        }
    }

    /// How many unsigned documents about a subscription are stored without being applied
    /// because it has signed data (0 for a subscription with none: its unsigned data applies).
    public func unverifiedDocumentCount(originalTransactionId: String) throws -> Int {
        try writer.read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT CASE WHEN \(SignedData.exists("?1"))
                           THEN (SELECT COUNT(*) FROM unverifiedDocument WHERE originalTransactionId = ?1) ELSE 0 END
                    """, arguments: [originalTransactionId]) ?? 0
        }
    }

    /// Unsigned documents stored after document `mark` (an import's) that are set aside because
    /// their subscription has signed data, and how many such subscriptions they speak about.
    public func unverifiedSetAside(after mark: Int64) throws -> (documents: Int, subscriptions: Int) {
        try writer.read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(DISTINCT u.documentSha256), COUNT(DISTINCT u.originalTransactionId)
                    FROM unverifiedDocument u JOIN document d ON d.sha256 = u.documentSha256
                    WHERE d.id > ? AND \(SignedData.exists("u.originalTransactionId"))
                    """, arguments: [mark])
            return (row?[0] ?? 0, row?[1] ?? 0)
        }
    }
}
