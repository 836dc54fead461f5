import Foundation
import GRDB
import TestSupport
import Testing

@testable import SubscriberStore

/// Migration v30 converts a store's archive to the compact layout in place (docs/architecture.md,
/// "The archive's layout"): in batches each committed with its progress, so a conversion stopped
/// after some batches goes on where it stopped and ends with the store an uninterrupted one makes.
@Suite struct ArchiveRepackTests {
    /// SampleData's example documents (v1 and v2 notifications, Server API pages, a verifyReceipt
    /// response), each as it arrived.
    static let examples: [Data] = {
        let root = URL(fileURLWithPath: SampleData.examples)
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!.compactMap { $0 as? URL }
            .filter { $0.pathExtension == "json" && !$0.lastPathComponent.hasSuffix(".decoded.json") }
            .sorted { $0.path < $1.path }
        return files.compactMap { try? Data(contentsOf: $0) }
    }()

    /// A store as a subdash before v30 wrote it: every document compressed as it arrived.
    static func storeBeforeV30() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue, upTo: "v32 team log position")
        try queue.write { db in
            for (i, body) in examples.enumerated() {
                let stored = ArchiveCodec.current.archiveAsReceived(body)
                try db.execute(
                    sql: """
                        INSERT INTO document (sha256, source, format, outcome, byteCount, body, bodyEncoding)
                        VALUES (?, ?, 'v2', 'applied', ?, ?, ?)
                        """, arguments: [String(format: "%064d", i), "example \(i)", body.count, stored.data, stored.encoding])
            }
        }
        return queue
    }

    static func archive(_ queue: DatabaseQueue) throws -> [String] {
        try queue.read { db in
            try Row.fetchAll(
                db, sql: "SELECT id, hex(body), bodyEncoding, bodyLayout, bodyChains FROM document ORDER BY id"
            ).map(\.description)
                + Row.fetchAll(db, sql: "SELECT id, hex(sha256), hex(chain) FROM archiveChain ORDER BY id").map(\.description)
                + Row.fetchAll(db, sql: "SELECT * FROM archiveRepack").map(\.description)
        }
    }

    @Test func theMigrationConvertsTheArchiveAndEveryDocumentComesBackExactly() throws {
        #expect(Self.examples.count > 50)
        let queue = try Self.storeBeforeV30()
        let before = try queue.read { db in try Int.fetchOne(db, sql: "SELECT SUM(length(body)) FROM document")! }
        let store = try AppDatabase(queue)
        for (i, body) in Self.examples.enumerated() {
            #expect(try store.archivedBody(sha256: String(format: "%064d", i)) == body)
        }
        let (after, compact, chains, pending) = try queue.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT SUM(length(body)) FROM document")!,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document WHERE bodyLayout = 'jws'")!,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM archiveChain")!,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM archiveRepack")!
            )
        }
        // The 40 v2 examples and the 3 Server API pages with JWS (all unsigned, with the one chain
        // `[]`: SampleData/examples/README.md); not the 13 v1 notifications nor the verifyReceipt response.
        #expect(Self.examples.count == 57)
        #expect(compact == 43, "\(compact) converted")
        #expect(chains == 1)
        #expect(pending == 0)
        #expect(after < before, "\(before) bytes before, \(after) after")
    }

    @Test func anInterruptedConversionResumesAndEndsWithTheSameStore() throws {
        let whole = try Self.storeBeforeV30()
        _ = try AppDatabase(whole)

        let interrupted = try Self.storeBeforeV30()
        let first = try AppDatabase(interrupted, repackOnOpen: false)
        let progress = try first.repackArchive(batchSize: 7, maxBatches: 3)
        #expect(progress.finished == false)
        #expect(progress.done == 21)
        #expect(progress.total == Self.examples.count)
        let halfway = try interrupted.read { db in
            try Int.fetchOne(db, sql: "SELECT doneThroughId FROM archiveRepack")
        }
        #expect(halfway == 21)
        // Opened again (as after a kill): the conversion goes on from document 22.
        let second = try AppDatabase(interrupted)
        #expect(try Self.archive(interrupted) == Self.archive(whole))
        for (i, body) in Self.examples.enumerated() {
            #expect(try second.archivedBody(sha256: String(format: "%064d", i)) == body)
        }
    }

    @Test func aNewStoreHasNothingToConvert() throws {
        let queue = try DatabaseQueue()
        _ = try AppDatabase(queue)
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM archiveRepack") } == 0)
    }
}
