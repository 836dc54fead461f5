import CSQLiteSettings
import Foundation
import GRDB
import GRDBSQLite
import Synchronization
import ThreadKit

/// The subdash store: one SQLite database (WAL) holding the raw payload archive, the facts Apple
/// sent, the rows derived from them (docs/metrics.md) and the operators' offer flags.
///
/// It owns a GRDB `DatabaseWriter`: a `DatabasePool` for files, a `DatabaseQueue` in memory for
/// tests. The migrator runs in `init`, so every `AppDatabase` is at the latest schema.
public final class AppDatabase: Sendable {
    public let writer: any DatabaseWriter
    /// The file path, or nil in memory.
    public let path: String?
    /// The archive's certificate chains read so far (`restoreArchived`).
    let archiveChains = ArchiveChainCache()
    /// The archive's trained dictionaries (``ArchiveDictionaries``), loaded when the store opens.
    public let archiveDictionaries = ArchiveDictionaries()
    /// How this store compresses new archive bodies: zstd (else zlib) with its kind's dictionary.
    public var archiveCodec: ArchiveCodec {
        ArchiveCodec(zstdAvailable: ArchiveCodec.current.zstdAvailable, dictionaries: archiveDictionaries)
    }
    /// The team log operator writes are committed to first, when this store is a view of one
    /// (``writeOperatorActions(through:)``); nil writes them here only.
    let operatorActionLog = Mutex<(any OperatorActionLog)?>(nil)

    /// - Parameter repackOnOpen: false leaves documents stored before migration v30 in their old
    ///   layout (tests interrupt the conversion so); `repackArchive` converts them.
    public init(_ writer: any DatabaseWriter, path: String? = nil, repackOnOpen: Bool = true) throws {
        self.writer = writer
        self.path = path
        let applied = try writer.read { db in
            try Self.refuseNewer(db, path: path ?? "the store")
            return try db.tableExists("grdb_migrations") ? try Self.migrator.appliedIdentifiers(db) : []
        }
        try Self.migrator.migrate(writer)
        try writer.read(archiveDictionaries.load)
        // The archive's documents stored before migration v30 or v36, converted to the compact
        // layout and their kind's dictionary.
        if repackOnOpen, try writer.read(Self.hasPendingRepack) { try repackArchiveReporting() }
        // Documents a migration queued to be read again from the archive, when this process can.
        if let decode = Self.archiveDecoder, try writer.read(Self.hasPendingArchiveDocuments) {
            try rereadArchive(decode: decode)
        }
        // A migration that changes how subscriptions are derived marks them pending; they are
        // derived again here, once the schema is complete (the materialiser writes the latest
        // tables, which a migration in the middle of the list does not have yet).
        if !applied.isEmpty, applied.count < Self.migrator.migrations.count { try rebuildPending() }
        try writer.writeWithoutTransaction { db in
            // For other tools and later versions: the schema version this store is at.
            if try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 < Self.schemaVersion {
                try db.execute(sql: "PRAGMA user_version = \(Self.schemaVersion)")
            }
        }
    }

    /// The schema version this subdash writes: how many migrations it knows.
    public static var schemaVersion: Int { migrator.migrations.count }

    /// The schema version of the store `db` is: the migrations applied to it (or `user_version`,
    /// which a later subdash may raise without a migration of its own).
    static func storedSchemaVersion(_ db: Database) throws -> Int {
        let applied = try db.tableExists("grdb_migrations") ? try migrator.appliedIdentifiers(db).count : 0
        return max(applied, try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0)
    }

    /// Throws when a later subdash wrote the store: its tables may mean something this version
    /// does not know, so neither reading nor writing it is safe.
    static func refuseNewer(_ db: Database, path: String) throws {
        let stored = try storedSchemaVersion(db)
        let unknown = try db.tableExists("grdb_migrations") ? try migrator.hasBeenSuperseded(db) : false
        guard unknown || stored > schemaVersion else { return }
        throw StoreError(
            "\(path) was written by a newer version of subdash (store schema version \(stored); this subdash "
                + "reads versions up to \(schemaVersion)): upgrade subdash to open it; nothing was read or written")
    }

    /// Opens the store at `path` in WAL mode, creating it (private to the user: it holds customer
    /// emails) when `readOnly` is false and it is not there.
    ///
    /// Read-only, the connections are SQLite read-only (`SQLITE_OPEN_READONLY`: a write fails)
    /// and nothing is written at open, so a store in a directory the user cannot write to can be
    /// read; a store an earlier subdash wrote is brought up to date first only when it can be.
    /// A store from a later subdash is refused either way.
    public static func open(path: String, readOnly: Bool = false) throws -> AppDatabase {
        try open(path: path, readOnly: readOnly, directoryWritable: nil)
    }

    /// Every connection's page cache outside an import, in KiB (64 MiB; SQLite reads a negative
    /// `cache_size` as KiB).
    static let everydayCacheKibibytes = 64 * 1024
    /// Pages in the WAL before SQLite checkpoints on commit outside an import (SQLite's default).
    static let everydayCheckpointPages = 1000
    /// Pages in the WAL before a checkpoint during an import: 1 GB of 4 KiB pages.
    static let bulkImportCheckpointPages = 262_144

    /// `directoryWritable` nil: found out from the file system; tests say false to read as in a
    /// read-only directory (root writes anywhere).
    static func open(path: String, readOnly: Bool, directoryWritable: Bool?) throws -> AppDatabase {
        var config = Configuration()
        config.readonly = readOnly
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            // Settings of this connection only: nothing of them is written to the file.
            if !readOnly { try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            // Deleted content is overwritten on the pages a change writes anyway, but pages freed
            // whole are not written again only to be zeroed: the system library is built with
            // secure_delete ON, which made dropping the derived indexes before a large rebuild
            // write every page of them (docs/performance.md, "`prices import`'s memory").
            if !readOnly { try db.execute(sql: "PRAGMA secure_delete = FAST") }
            try db.execute(sql: "PRAGMA cache_size = -\(Self.everydayCacheKibibytes)")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        if readOnly {
            guard FileManager.default.fileExists(atPath: path) else {
                throw StoreError("no store at \(path): run `subdash import` first, or pass --db PATH")
            }
            let reader = try readOnlyWriter(path: path, configuration: config, directoryWritable: directoryWritable)
            let (migrated, archivePending) = try reader.read { db in
                try refuseNewer(db, path: path)
                let pending = archiveDecoder != nil ? try hasPendingArchiveDocuments(db) : false
                return (try migrator.hasCompletedMigrations(db), try pending || hasPendingRepack(db))
            }
            // Documents queued to be read again are read where the store can be written; elsewhere
            // it is read as it is (their renewal details missing).
            let current = migrated && !(archivePending && StoreFiles.canWrite(path: path))
            if !current {
                // A store from an earlier version: brought up to date once (a write), then read as usual.
                try reader.close()
                guard StoreFiles.canWrite(path: path) else {
                    throw StoreError(
                        "\(path) was written by an earlier version of subdash and cannot be brought up to date "
                            + "here (it or its directory is read-only): open it once where it can be written")
                }
                _ = try open(path: path)
                return try open(path: path, readOnly: true)
            }
            return try AppDatabase(readOnlyWriter: reader, path: path)
        }
        let created = !FileManager.default.fileExists(atPath: path)
        let pool = try StoreFiles.creatingPrivate(path: path, created: created) {
            try DatabasePool(path: path, configuration: config)
        }
        return try AppDatabase(pool, path: path)
    }

    /// A read-only pool; in a directory that cannot be written (where SQLite cannot create the
    /// `-shm` file a WAL store is read through) and with no writer's `-wal` beside it, the file
    /// is opened immutable: nobody can be writing it there.
    private static func readOnlyWriter(path: String, configuration: Configuration, directoryWritable: Bool?) throws
        -> any DatabaseWriter
    {
        let fm = FileManager.default
        let directory = (path as NSString).deletingLastPathComponent
        let directoryWritable =
            directoryWritable
            ?? (fm.isWritableFile(atPath: directory.isEmpty ? "." : directory) && !StoreFiles.onReadOnlyFileSystem(path))
        if directoryWritable || fm.fileExists(atPath: path + "-shm") || fm.fileExists(atPath: path + "-wal") {
            return try DatabasePool(path: path, configuration: configuration)
        }
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var uri = URLComponents()
        uri.scheme = "file"
        uri.path = absolute
        uri.queryItems = [URLQueryItem(name: "immutable", value: "1")]
        return try DatabaseQueue(path: uri.string ?? "file:\(absolute)?immutable=1", configuration: configuration)
    }

    private init(readOnlyWriter writer: any DatabaseWriter, path: String) throws {
        self.writer = writer
        self.path = path
    }

    /// An empty store in memory, for tests.
    public static func inMemory() throws -> AppDatabase {
        try AppDatabase(DatabaseQueue())
    }

    /// The path of the store: `--db PATH`, else `$SUBDASH_DB`, else `./subdash.sqlite`.
    public static func resolvePath(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String
    {
        if let option, !option.isEmpty { return option }
        if let env = environment["SUBDASH_DB"], !env.isEmpty { return env }
        return "subdash.sqlite"
    }

    /// Settings of the writing connection for an import of many documents. Every document adds a
    /// key at a random place in a few indexes (its sha256, its notification id, its subscription),
    /// so once a store holds millions of documents each batch dirties pages all over those indexes.
    /// A larger page cache keeps the indexes' inner pages (the importer's size, and why, is on
    /// `Importer.defaultCacheMegabytes`), and a 1 GB checkpoint interval lets a page dirtied by
    /// several batches be copied into the store once.
    public func prepareForBulkImport(cacheMegabytes: Int) throws {
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA cache_size = -\(cacheMegabytes * 1024)")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.bulkImportCheckpointPages)")
        }
    }

    /// Copies committed pages from the WAL into the store on a thread of its own (PASSIVE
    /// checkpoints through a second connection, every `interval` seconds) until `stop()`, so the
    /// importing thread neither waits for checkpoints nor leaves a gigabyte of WAL to copy at the
    /// end. Nil in memory.
    public func startBackgroundCheckpoints(interval: Double = 0.5) throws -> BackgroundCheckpoints? {
        guard let path else { return nil }
        return try BackgroundCheckpoints(path: path, interval: interval)
    }

    /// After an import: back to the everyday settings, and the WAL folded into the store and
    /// truncated so the store is one file of its final size.
    ///
    /// The truncating checkpoint waits for every reader to leave the WAL and keeps writers out
    /// while it waits, so it takes a turn among the store's writers (``WriterTurn``): outside one,
    /// a second import's transaction could wait behind it past SQLite's busy timeout (its reader
    /// deriving ahead holds the checkpoint up) and fail with "database is locked". Should readers
    /// outlast the busy timeout, the checkpoint leaves the WAL as it is: no error, the next
    /// writer's checkpoints fold it in.
    public func finishBulkImport() throws {
        let turn = writerTurn()
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA cache_size = -\(Self.everydayCacheKibibytes)")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.everydayCheckpointPages)")
            guard path != nil else { return }
            let truncate = { _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            if let turn { try turn.shortWrite(truncate) } else { try truncate() }
        }
    }

    /// SQLite's `PRAGMA data_version` on whichever connection the writer reads with: it changes
    /// when *another* connection commits. A pool may answer from a different reader each time, so
    /// to watch a file store for changes use ``StoreChangeMonitor``, which keeps one connection.
    public func dataVersion() throws -> Int {
        try writer.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }
}

/// A failure of the store a user can act on: it cannot be opened or written as asked, or an
/// archived body cannot be given back.
public struct StoreError: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// See `AppDatabase.startBackgroundCheckpoints`.
public final class BackgroundCheckpoints: Sendable {
    private let connection: DatabaseQueue
    /// `stop()` sends one value: the checkpointing thread's wait for its next turn ends at once.
    private let stopRequest = BlockingChannel<Bool>(capacity: 1)
    private let done = DispatchGroup()

    init(path: String, interval: Double) throws {
        var config = Configuration()
        config.busyMode = .timeout(1)
        connection = try DatabaseQueue(path: path, configuration: config)
        done.enter()
        Thread.detachNewThread { [self] in
            nameCurrentThread("subdash-ckpt")
            while stopRequest.receive(before: Date(timeIntervalSinceNow: interval)) == nil {
                // Busy or failed: the writer's own autocheckpoint remains the safety net.
                _ = try? connection.writeWithoutTransaction { db in try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)") }
            }
            done.leave()
        }
    }

    /// Ends the checkpoints and waits for the one in progress.
    public func stop() {
        stopRequest.send(true)
        done.wait()
    }
}

extension AppDatabase {
    /// Whether SQLite's memory statistics were turned off when the program was loaded (its
    /// process-wide settings, CSQLiteSettings): they are, so that readers on two cores do not wait
    /// on one mutex, unless `SUBDASH_IMPORT_TRACE` is set (its trace reports SQLite's memory).
    public static var memoryStatisticsOff: Bool { csqlite_memory_statistics_off() != 0 }

    /// Bytes SQLite holds in this process (page caches, sorters, statements: every connection),
    /// now and at most since the process started; for `SUBDASH_IMPORT_TRACE` (0 without it: the
    /// statistics are off, ``memoryStatisticsOff``).
    public static func sqliteMemory() -> (used: Int64, highest: Int64) {
        (sqlite3_memory_used(), sqlite3_memory_highwater(0))
    }
}
