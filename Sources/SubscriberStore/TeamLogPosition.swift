import Foundation
import GRDB

/// Where a store stands as a view of a team log (docs/team.md): the log's identity and the last of
/// its sequence numbers applied here.
public struct TeamLogPosition: Sendable, Equatable {
    public var logId: String
    public var lastSequence: Int64

    public init(logId: String, lastSequence: Int64) {
        self.logId = logId
        self.lastSequence = lastSequence
    }
}

extension AppDatabase {
    /// The store's place in a team log; nil for a store that has never synced.
    public func teamLogPosition() throws -> TeamLogPosition? {
        try writer.read { db in
            try Row.fetchOne(db, sql: "SELECT logId, lastSequence FROM teamLogPosition WHERE id = 1").map {
                TeamLogPosition(logId: $0["logId"], lastSequence: $0["lastSequence"])
            }
        }
    }

    /// Writes the entries of a team log read up to `position`, and `position` with them, in ONE
    /// transaction: a view stopped at any point resumes after the last entry it committed, and
    /// never skips one. Derived rows are rebuilt afterwards (`rebuildPending()`).
    /// Operator actions read with them are applied in the same transaction
    /// (``applyOperatorActions(_:)``); `newActions` is how many were new to the store.
    @discardableResult
    public func applyTeamLogEntries(
        _ documents: [IncomingDocument], actions: [OperatorAction] = [], through position: TeamLogPosition
    ) throws -> (result: BatchResult, newActions: Int) {
        try writer.write { db in
            var written = WrittenVersions()
            let result = try writeDocuments(documents, db, written: &written)
            let newActions = try Self.applyOperatorActions(actions, db)
            try db.execute(
                sql: """
                    INSERT INTO teamLogPosition (id, logId, lastSequence) VALUES (1, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET logId = excluded.logId, lastSequence = excluded.lastSequence
                    """, arguments: [position.logId, position.lastSequence])
            return (result, newActions)
        }
    }
}

/// A document a store accepted, with its bytes as they arrived (redacted of secrets, as archived):
/// what `subdash import --team` pushes to the log.
public struct AcceptedDocument: Sendable, Equatable {
    /// The store's own id, in the order the documents were stored.
    public var id: Int64
    public var source: String
    public var format: String
    /// nil when the document was too large to archive.
    public var body: Data?
}

extension AppDatabase {
    /// Up to `limit` documents stored with the outcome `applied` after the document `id`, in the
    /// order they were stored.
    public func acceptedDocuments(after id: Int64, limit: Int) throws -> [AcceptedDocument] {
        try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, source, format, \(Self.archiveColumns()) FROM document
                    WHERE outcome = 'applied' AND id > ? ORDER BY id LIMIT ?
                    """, arguments: [id, limit]
            ).map { row in
                AcceptedDocument(
                    id: row["id"], source: row["source"], format: row["format"] ?? "", body: try restoreArchived(row, db))
            }
        }
    }
}
