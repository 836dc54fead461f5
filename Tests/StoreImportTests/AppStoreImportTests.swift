import AppStorePayloads
import Foundation
import GRDB
import Testing
@testable import StoreImport
import SubscriberStore

/// End to end: the committed SampleData, real decoders, real verification, a file store.
@Suite(.serialized) struct AppStoreImportTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let generated = root.appendingPathComponent("SampleData/generated").path

    static func temporaryStore() throws -> (AppDatabase, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("subdash-test-\(UUID().uuidString).sqlite").path
        return (try AppDatabase.open(path: path), path)
    }

    static func verifier() throws -> AppleJWSVerifier {
        try AppleJWSVerifier(additionalRootsPEM: [String(contentsOfFile: generated + "/test-root.pem", encoding: .utf8)])
    }

    static func importer(_ db: AppDatabase, batchSize: Int = 4000) throws -> (Importer, Lines) {
        let lines = Lines()
        return (Importer.appStore(database: db, verifier: try verifier(), batchSize: batchSize, report: { lines.append($0) }), lines)
    }

    /// Every table's meaningful content (the archive's `source` says where a document was first
    /// seen, which depends on order by nature).
    static func dump(_ database: AppDatabase) throws -> [String: [String]] {
        try database.writer.read { db in
            var tables: [String: [String]] = [:]
            let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%' ORDER BY name")
            for name in names {
                tables[name] = try Row.fetchAll(db, sql: "SELECT * FROM \"\(name)\"").map { row in
                    row.columnNames.filter { !(name == "document" && ($0 == "source" || $0 == "id")) }
                        .map { "\($0)=\(row[$0] as DatabaseValue)" }.joined(separator: " ")
                }.sorted()
            }
            return tables
        }
    }

    static func files() throws -> [String] { try Importer.expand([generated]) }

    @Test func sampleDataImportsWithoutRejectionsAndTwiceChangesNothing() throws {
        let (db, path) = try Self.temporaryStore()
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let (importer, rejections) = try Self.importer(db)
        let first = try importer.importPaths([Self.generated])
        #expect(rejections.all == [])
        #expect(first.rejected == 0)
        // SampleData holds some subscriptions in both v1 and v2: their unsigned v1 documents are
        // stored but not applied (no --shared-secret here), whatever the order (the dumps below).
        #expect(first.documents == first.applied + first.duplicates + first.unverified)
        #expect(first.unverified > 0)
        // 700 purchasers and their 156 family members.
        #expect(first.subscriptionsTouched == 856)
        let before = try Self.dump(db)
        #expect(before["segment"]?.isEmpty == false)
        #expect(before["pendingSubscription"] == [])
        let second = try importer.importPaths([Self.generated])
        #expect(second.applied == 0)
        #expect(second.duplicates == second.documents)
        #expect(try Self.dump(db) == before)

        // Another order (files reversed, tiny batches) gives the same store.
        let (other, otherPath) = try Self.temporaryStore()
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: otherPath + s) } }
        let (reversed, _) = try Self.importer(other, batchSize: 97)
        _ = try reversed.importPaths(try Self.files().reversed())
        #expect(try Self.dump(other) == before)
    }

    /// SIGKILL in the middle of an import leaves a consistent store, and a re-run completes it.
    @Test func killedImportLeavesTheStoreWholeAndARerunCompletesIt() throws {
        let binary = try #require(Self.subdashBinary(), "build the subdash executable first (swift build)")
        let (clean, cleanPath) = try Self.temporaryStore()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("subdash-kill-\(UUID().uuidString).sqlite").path
        defer {
            for s in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: path + s)
                try? FileManager.default.removeItem(atPath: cleanPath + s)
            }
        }
        _ = try Self.importer(clean).0.importPaths([Self.generated])

        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["import", "--db", path, "--batch-size", "25", "--trust-root", Self.generated + "/test-root.pem",
                             Self.generated]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Wait until some batches are in, then kill without warning.
        var seen = 0
        let deadline = Date().addingTimeInterval(60)
        while seen < 300 && process.isRunning && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            seen = (try? Self.documentCount(path)) ?? 0
        }
        #expect(process.isRunning, "the import finished before it could be killed")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let killed = try AppDatabase.open(path: path)
        let integrity = try killed.writer.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")
        // Whole batches only: every applied document's notifications are there.
        let orphans = try killed.writer.read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM document d WHERE d.outcome = 'applied' AND d.format IN ('v1', 'v2')
                AND NOT EXISTS (SELECT 1 FROM notification n WHERE n.documentSha256 = d.sha256)
                """)
        }
        #expect(orphans == 0)
        let partial = try killed.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document") ?? 0 }
        #expect(partial > 0)

        let (rerun, rejections) = try Self.importer(killed)
        let summary = try rerun.importPaths([Self.generated])
        #expect(rejections.all == [])
        #expect(summary.duplicates > 0)
        #expect(try Self.dump(killed) == Self.dump(clean))
    }

    /// A full disk (SQLite's page limit standing in for a small file system) stops the import
    /// with what it had committed; the store stays consistent and, with room again, the same
    /// import completes it to the store a clean import gives.
    @Test func aFullDiskStopsTheImportSayingWhatWasCommittedAndARerunCompletesIt() throws {
        let (clean, cleanPath) = try Self.temporaryStore()
        let (full, fullPath) = try Self.temporaryStore()
        defer {
            for s in ["", "-wal", "-shm", "-import.lock"] {
                try? FileManager.default.removeItem(atPath: fullPath + s)
                try? FileManager.default.removeItem(atPath: cleanPath + s)
            }
        }
        _ = try Self.importer(clean).0.importPaths([Self.generated])

        let pages = try full.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 }
        try full.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = \(pages + 60)") }
        let stopping = Importer.appStore(database: full, verifier: try Self.verifier(), batchSize: 50,
                                         documentsPerTransaction: 100, report: { _ in })
        var stopped: ImportError?
        do { _ = try stopping.importPaths([Self.generated]) } catch let error as ImportError { stopped = error }
        let stop = try #require(stopped)
        guard case .stopped(let reason, let applied, let rejected) = stop else {
            Issue.record("the import was not stopped: \(stop)")
            return
        }
        #expect(reason.contains("database or disk is full"))
        let stored = try full.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document") ?? 0 }
        #expect(applied > 0 && applied + rejected == stored)
        #expect(stop.description.contains("committed before it stopped: \(stored) new documents (\(applied) applied, 0 rejected)"))
        let integrity = try full.writer.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")

        try full.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
        let (rerun, rejections) = try Self.importer(full)
        let summary = try rerun.importPaths([Self.generated])
        #expect(rejections.all == [])
        #expect(summary.duplicates >= stored)
        #expect(try Self.dump(full) == Self.dump(clean))
    }

    static func documentCount(_ path: String) throws -> Int {
        var config = Configuration()
        config.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: config)
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document") ?? 0 }
    }

    static func subdashBinary() -> String? {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [here.appendingPathComponent("subdash").path, root.appendingPathComponent(".build/debug/subdash").path]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

final class Lines: @unchecked Sendable {
    private var lines: [String] = []
    private let lock = NSLock()
    func append(_ s: String) { lock.lock(); lines.append(s); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}
