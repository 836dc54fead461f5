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
                db, sql: "SELECT id, hex(body), bodyEncoding, bodyLayout, bodyChains, bodyDictionary FROM document ORDER BY id"
            ).map(\.description)
                + Row.fetchAll(db, sql: "SELECT id, kind, hex(dictionary) FROM archiveDictionary ORDER BY id").map(\.description)
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

    /// Migration v36: a store without dictionaries is trained on (one per kind of body) and every
    /// document converted, in batches that resume after an interruption; every document comes back
    /// exactly, in fewer bytes than compact layout alone.
    @Test func migrationV36TrainsADictionaryPerKindAndConvertsEveryDocument() throws {
        func converted(threshold: Int, batches: Int?) throws -> DatabaseQueue {
            let queue = try Self.storeBeforeV30()
            let store = try AppDatabase(queue, repackOnOpen: false)
            store.archiveDictionaries.threshold = threshold
            try store.repackArchive(batchSize: 7, maxBatches: batches)
            // Opened again (as after a kill): the conversion goes on with the dictionaries trained.
            let again = try AppDatabase(queue)
            for (i, body) in Self.examples.enumerated() {
                #expect(try again.archivedBody(sha256: String(format: "%064d", i)) == body)
            }
            return queue
        }
        let bytes = { (queue: DatabaseQueue) in
            try queue.read { db in try Int.fetchOne(db, sql: "SELECT SUM(length(body)) FROM document")! }
        }
        // 43 JWS documents and 14 kept as received: a threshold of 10 trains both kinds.
        let plain = try converted(threshold: .max, batches: nil)
        let whole = try converted(threshold: 10, batches: nil)
        let interrupted = try converted(threshold: 10, batches: 3)
        #expect(try Self.archive(interrupted) == Self.archive(whole))
        let (kinds, without) = try whole.read { db in
            (
                try String.fetchAll(db, sql: "SELECT kind FROM archiveDictionary ORDER BY kind"),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document WHERE bodyEncoding = 'zstd' AND bodyDictionary IS NULL")!
            )
        }
        #expect(kinds == ["jws", "received"])
        #expect(without == 0)
        #expect(try plain.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM archiveDictionary") } == 0)
        let (with, without2) = (try bytes(whole), try bytes(plain))
        #expect(with < without2, "\(with) bytes with dictionaries, \(without2) without")
    }

    /// A body compressed before its kind's dictionary existed (in flight in the importer, or
    /// written by a caller without the store's codec) is compressed again with it as it is written.
    @Test func aBodyWrittenAfterTheDictionaryUsesIt() throws {
        let queue = try Self.storeBeforeV30()
        let store = try AppDatabase(queue, repackOnOpen: false)
        store.archiveDictionaries.threshold = 10
        try store.repackArchive()
        let late = Self.examples[0] + Data(" ".utf8)
        let sha = String(repeating: "f", count: 64)
        try store.apply(
            [IncomingDocument(sha256: sha, source: "late", byteCount: late.count, body: late, content: .rejected(reason: "test"))]
        )
        #expect(try store.archivedBody(sha256: sha) == late)
        let dictionary = try queue.read { db in
            try Int64.fetchOne(db, sql: "SELECT bodyDictionary FROM document WHERE sha256 = ?", arguments: [sha])
        }
        #expect(dictionary != nil)
    }

    /// The count towards training is the store's, not a process's: documents written a few at a
    /// time by one process after another train the kind once the store holds the threshold, and
    /// every body ends compressed with it.
    @Test func writersOneAfterAnotherTrainOnceTheStoreHoldsEnough() throws {
        let queue = try DatabaseQueue()
        let documents = Self.examples.enumerated().map { i, body in
            IncomingDocument(
                sha256: String(format: "%064d", i), source: "example \(i)", byteCount: body.count, body: body,
                content: .rejected(reason: "test"))
        }
        for start in stride(from: 0, to: documents.count, by: 4) {
            let store = try AppDatabase(queue)
            store.archiveDictionaries.threshold = 10
            try store.apply(Array(documents[start..<min(start + 4, documents.count)]))
            // Twice: a document stored already is not counted again.
            try store.apply(Array(documents[start..<min(start + 4, documents.count)]))
        }
        let store = try AppDatabase(queue)
        for (i, body) in Self.examples.enumerated() {
            #expect(try store.archivedBody(sha256: String(format: "%064d", i)) == body)
        }
        let (kinds, without, untrained) = try queue.read { db in
            (
                try String.fetchAll(db, sql: "SELECT kind FROM archiveDictionary ORDER BY kind"),
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM document WHERE bodyEncoding = 'zstd' AND bodyDictionary IS NULL")!,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM archiveUntrained")!
            )
        }
        #expect(kinds == ["jws", "received"])
        #expect(without == 0)
        #expect(untrained == 0)
    }

    @Test func aNewStoreHasNothingToConvert() throws {
        let queue = try DatabaseQueue()
        _ = try AppDatabase(queue)
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM archiveRepack") } == 0)
    }
}
