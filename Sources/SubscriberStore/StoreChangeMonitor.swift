import GRDB

/// Tells when anyone, another process's import included, has committed to the store.
///
/// SQLite's `PRAGMA data_version` changes when *another* connection commits, and its value is
/// per connection. A pool hands out whichever reader is free, so the monitor keeps a connection
/// of its own that nothing else uses: every commit, ours or another process's, shows on it.
public final class StoreChangeMonitor: Sendable {
    private let connection: DatabaseQueue?
    private let database: AppDatabase

    /// For a file store, opens one more read-only connection to it; in memory (where no other
    /// process can write) it asks the store's own connection.
    public init(database: AppDatabase) throws {
        self.database = database
        if let path = database.path {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(1)
            connection = try DatabaseQueue(path: path, configuration: configuration)
        } else {
            connection = nil
        }
    }

    /// A number that changes whenever the store changed since the last call.
    public func version() throws -> Int {
        guard let connection else { return try database.dataVersion() }
        return try connection.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }
}
