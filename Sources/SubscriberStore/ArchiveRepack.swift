import Foundation
import GRDB

/// How far the conversion of a store's archive to the compact layout (migration v30) and its
/// trained dictionaries (v36) has come.
public struct ArchiveRepackProgress: Sendable, Equatable {
    /// Documents looked at, of `total` (those stored before the migration), this run and earlier ones.
    public var done: Int
    public var total: Int
    /// Documents this run converted, and their archived bytes before and after.
    public var converted: Int
    public var bytesBefore: Int
    public var bytesAfter: Int
    /// Whether every document has been looked at (`archiveRepack` is gone).
    public var finished: Bool
}

extension AppDatabase {
    /// Whether documents stored before migration v30 or v36 wait to be converted to the compact
    /// layout and the dictionaries.
    static func hasPendingRepack(_ db: Database) throws -> Bool {
        guard try db.tableExists("archiveRepack") else { return false }
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM archiveRepack)") ?? false
    }

    /// Converts the documents stored before migration v30 to the compact layout, and those stored
    /// before v36 to their kind's dictionary (docs/architecture.md, "The archive's layout"): first
    /// each kind without a dictionary is trained on the store's first bodies of it (when it holds
    /// enough), then the documents are converted, `batchSize` documents per transaction, each
    /// committed with how far it came (`archiveRepack.doneThroughId`): an interrupted conversion
    /// loses at most one batch and goes on where it stopped the next time the store is opened for
    /// writing. A document whose compact layout does not give back its bytes exactly, or saves
    /// nothing, or cannot be read here (zstd missing) is left as it is. `maxBatches`: stop after so
    /// many (tests interrupt it so). Freed pages stay in the file until `subdash archive vacuum`.
    @discardableResult
    public func repackArchive(
        batchSize: Int = 500, maxBatches: Int? = nil, codec: ArchiveCodec = .current,
        progress: ((ArchiveRepackProgress) -> Void)? = nil
    ) throws -> ArchiveRepackProgress {
        let (doneBefore, total) = try writer.read { db -> (Int, Int) in
            guard let row = try Row.fetchOne(db, sql: "SELECT doneThroughId, lastId FROM archiveRepack") else { return (0, 0) }
            let count = { (id: Int64) throws -> Int in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document WHERE id <= ? AND body IS NOT NULL", arguments: [id])
                    ?? 0
            }
            return (try count(row[0] as Int64), try count(row[1] as Int64))
        }
        var state = ArchiveRepackProgress(
            done: doneBefore, total: total, converted: 0, bytesBefore: 0, bytesAfter: 0, finished: total == 0)
        if !state.finished {
            try writer.write { db in
                for kind in ArchiveDictionaries.Kind.allCases where archiveDictionaries.compressor(kind) == nil {
                    _ = try archiveDictionaries.train(kind, db, restore: { try restoreArchived($0, db) })
                }
            }
        }
        let codec = codec.zstdAvailable ? archiveCodec : codec
        var batches = 0
        while !state.finished, maxBatches.map({ batches < $0 }) ?? true {
            state = try writer.write { db in
                var next = state
                guard let row = try Row.fetchOne(db, sql: "SELECT doneThroughId, lastId FROM archiveRepack") else {
                    next.finished = true
                    return next
                }
                let (doneThrough, last): (Int64, Int64) = (row[0], row[1])
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT id, \(Self.archiveColumns()) FROM document
                        WHERE id > ? AND id <= ? AND body IS NOT NULL ORDER BY id LIMIT ?
                        """, arguments: [doneThrough, last, batchSize])
                let update = try db.cachedStatement(
                    sql: """
                        UPDATE document SET body = ?, bodyEncoding = ?, bodyLayout = ?, bodyChains = ?, bodyDictionary = ?
                        WHERE id = ?
                        """)
                let facts = FactWriter(db)
                var through = doneThrough
                for row in rows {
                    through = row["id"]
                    next.done += 1
                    guard (row["bodyDictionary"] as Int64?) == nil, let stored = row["body"] as Data?,
                        let original = try? restoreArchived(row, db),
                        // A rejected document's kept prefix is left as it is.
                        original.count == row["byteCount"] as Int
                    else { continue }
                    let packed: ArchivedBody
                    let chains: String?
                    if let layout = row["bodyLayout"] as String? {
                        // In the compact layout already: compressed again with the dictionary, nothing
                        // unpacked; its chains stay as they are.
                        let current = ArchivedBody(data: stored, encoding: row["bodyEncoding"], layout: layout)
                        guard let again = codec.withDictionary(current, originalCount: original.count) else { continue }
                        (packed, chains) = (again, row["bodyChains"])
                    } else {
                        packed = codec.archive(original)
                        chains = try facts.chainIds(packed)
                    }
                    guard packed.data.count < stored.count else { continue }
                    try update.execute(
                        arguments: [packed.data, packed.encoding, packed.layout, chains, packed.dictionary, row["id"]])
                    next.converted += 1
                    next.bytesBefore += stored.count
                    next.bytesAfter += packed.data.count
                }
                if rows.count < batchSize || through >= last {
                    try db.execute(sql: "DELETE FROM archiveRepack")
                    next.finished = true
                    next.done = next.total
                } else {
                    try db.execute(sql: "UPDATE archiveRepack SET doneThroughId = ?", arguments: [through])
                }
                return next
            }
            batches += 1
            progress?(state)
        }
        return state
    }

    /// `repackArchive` as the store's opening runs it: progress on stderr about once a second,
    /// and at the end what it saved and how to give the space back to the file system.
    func repackArchiveReporting() throws {
        let started = Date()
        var lastReport = started
        let path = self.path ?? "the store"
        let say = { (line: String) in FileHandle.standardError.write(Data((line + "\n").utf8)) }
        say(
            "subdash: converting \(path)'s archive to the compact layout and trained dictionaries (migrations v30 "
                + "and v36; resumes if interrupted)")
        let final = try repackArchive { state in
            guard !state.finished, Date().timeIntervalSince(lastReport) >= 1 else { return }
            lastReport = Date()
            say("subdash: archive: \(state.done) of \(state.total) documents")
        }
        let saved = final.bytesBefore - final.bytesAfter
        say(
            "subdash: archive: \(final.converted) of \(final.total) documents converted in "
                + String(format: "%.1f s", Date().timeIntervalSince(started)) + ", \(saved) bytes of archive freed; "
                + "`subdash archive vacuum --db \(path)` gives the freed pages back to the file system")
    }
}

extension AppDatabase {
    /// SQLite's VACUUM, then the WAL truncated: the file without its free pages. VACUUM copies
    /// the whole store into a temporary database: that copy goes to a file, so memory stays
    /// bounded whatever the store's size (measured in docs/performance.md, "A dictionary per kind
    /// of body").
    public func vacuum() throws {
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA temp_store = FILE")
            defer { try? db.execute(sql: "PRAGMA temp_store = MEMORY") }
            try db.execute(sql: "VACUUM")
            if path != nil { _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        }
    }

    /// The store's size in bytes: its pages (free ones included).
    public func fileBytes() throws -> Int {
        try writer.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0) * (try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0)
        }
    }
}
