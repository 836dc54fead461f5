import AppStorePayloads
import Foundation
import GRDB
import SubscriberStore
import TestSupport
import Testing

@testable import StoreImport

/// End to end: the committed SampleData, real decoders, real verification, a file store.
@Suite(.serialized) struct AppStoreImportTests {
    static let generated = SampleData.generated

    /// A new file store in a temporary directory of its own: remove the directory when done.
    static func temporaryStore() throws -> (AppDatabase, TemporaryDirectory) {
        let directory = try TemporaryDirectory("test")
        return (try AppDatabase.open(path: directory.path("store.sqlite")), directory)
    }

    static func importer(_ db: AppDatabase, batchSize: Int = 4000) throws -> (Importer, Lines) {
        let lines = Lines()
        return (
            Importer.appStore(
                database: db, verifier: try SampleDataStore.verifier(), batchSize: batchSize,
                report: { lines.append($0) }), lines
        )
    }

    /// The store a clean import of SampleData gives (signed documents trusted), made once.
    static func cleanDump() throws -> [String: [String]] { try SampleDataStore.dump(.signedOnly) }

    static func files() throws -> [String] { try Importer.expand([generated]) }

    /// The first import is the process's shared SampleData store (`SampleDataStore` imports it
    /// into a new file store as here, and fails on any rejection line); a second import into a
    /// copy of it, and an import in another order into a new store, must give it again.
    @Test func sampleDataImportsWithoutRejectionsAndTwiceChangesNothing() throws {
        let directory = try TemporaryDirectory("twice")
        defer { directory.remove() }
        let first = try SampleDataStore.summary(.signedOnly)
        let db = try SampleDataStore.copyFile(.signedOnly, to: directory.path("store.sqlite"))
        let (importer, rejections) = try Self.importer(db)
        #expect(first.rejected == 0)
        // SampleData holds some subscriptions in both v1 and v2: their unsigned v1 documents are
        // stored but not applied (no --shared-secret here), whatever the order (the dumps below).
        #expect(first.documents == first.applied + first.duplicates + first.unverified)
        #expect(first.unverified > 0)
        // 700 purchasers and their 138 family members (those paying with a commitment share none).
        #expect(first.subscriptionsTouched == 838)
        let before = try Self.cleanDump()
        #expect(before["segment"]?.isEmpty == false)
        #expect(before["pendingSubscription"] == [])
        #expect(try storeDump(db) == before)
        let second = try importer.importPaths([Self.generated])
        #expect(rejections.all == [])
        #expect(second.documents == first.documents)
        #expect(second.applied == 0)
        #expect(second.duplicates == second.documents)
        #expect(try storeDump(db) == before)

        // Another order (files reversed, tiny batches) gives the same store.
        let (other, otherDirectory) = try Self.temporaryStore()
        defer { otherDirectory.remove() }
        let (reversed, _) = try Self.importer(other, batchSize: 97)
        _ = try reversed.importPaths(try Self.files().reversed())
        #expect(try storeDump(other) == before)
    }

    /// Every subscription derived again and again as its history arrives in slices (SampleData's
    /// two files cut into six slices each, imported alternately, each import deriving what it
    /// touched) ends as the clean import: a stored subscription's rows are rewritten only where
    /// they changed, and the tables of counts keep only the changes of sums.
    @Test func derivingAfterEverySliceOfTheHistoryGivesTheStoreOfOneImport() throws {
        let directory = try TemporaryDirectory("slices")
        defer { directory.remove() }
        var slices: [[String]] = []
        for file in try Self.files() where file.hasSuffix(".ndjson.gz") {
            let gunzip = Process()
            gunzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
            gunzip.arguments = ["-dc", file]
            let output = Pipe()
            gunzip.standardOutput = output
            try gunzip.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            gunzip.waitUntilExit()
            let lines = text.split(separator: "\n").map(String.init)
            let size = (lines.count + 5) / 6
            slices.append(
                stride(from: 0, to: lines.count, by: size).map { lines[$0..<min($0 + size, lines.count)].joined(separator: "\n") }
            )
        }
        #expect(slices.count == 2)
        let db = try AppDatabase.open(path: directory.path("store.sqlite"))
        let (importer, rejections) = try Self.importer(db)
        var rederived = 0
        for index in 0..<6 {
            for (file, slice) in slices.enumerated() where index < slice.count {
                let path = directory.path("slice-\(index)-\(file).ndjson")
                try slice[index].write(toFile: path, atomically: true, encoding: .utf8)
                let stored = try db.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM subscription") ?? 0 }
                let summary = try importer.importPaths([path])
                rederived += min(stored, summary.subscriptionsTouched)
            }
        }
        #expect(rejections.all == [])
        #expect(rederived > 500, "later slices touched subscriptions earlier ones had stored")
        #expect(try storeDump(db) == Self.cleanDump())
    }

    /// SIGKILL in the middle of an import leaves a consistent store, and a re-run completes it.
    @Test func killedImportLeavesTheStoreWholeAndARerunCompletesIt() throws {
        let directory = try TemporaryDirectory("kill")
        defer { directory.remove() }
        let path = directory.path("store.sqlite")
        let process = try Subdash.process([
            "import", "--db", path, "--batch-size", "25", "--trust-root", SampleData.trustRoot,
            Self.generated,
        ])
        try process.run()
        // Wait until some batches are in, however slow the machine (no time window: the import
        // either commits them or ends on its own), then kill without warning.
        while process.isRunning, (try? Self.documentCount(path)) ?? 0 < 300 { Thread.sleep(forTimeInterval: 0.01) }
        #expect(process.isRunning, "the import finished before it could be killed")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let killed = try AppDatabase.open(path: path)
        let integrity = try killed.writer.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")
        // Whole batches only: every applied document's notifications are there.
        let orphans = try killed.writer.read { db in
            try Int.fetchOne(
                db,
                sql: """
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
        #expect(try storeDump(killed) == Self.cleanDump())
    }

    /// A full disk (SQLite's page limit standing in for a small file system) stops the import
    /// with what it had committed; the store stays consistent and, with room again, the same
    /// import completes it to the store a clean import gives.
    @Test func aFullDiskStopsTheImportSayingWhatWasCommittedAndARerunCompletesIt() throws {
        let (full, directory) = try Self.temporaryStore()
        defer { directory.remove() }

        let pages = try full.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 }
        try full.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = \(pages + 60)") }
        let stopping = Importer.appStore(
            database: full, verifier: try SampleDataStore.verifier(), batchSize: 50,
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
        #expect(
            stop.description.contains("committed before it stopped: \(stored) new documents (\(applied) applied, 0 rejected)"))
        let integrity = try full.writer.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")

        try full.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
        let (rerun, rejections) = try Self.importer(full)
        let summary = try rerun.importPaths([Self.generated])
        #expect(rejections.all == [])
        #expect(summary.duplicates >= stored)
        #expect(try storeDump(full) == Self.cleanDump())
    }

    static func documentCount(_ path: String) throws -> Int {
        var config = Configuration()
        config.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: config)
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document") ?? 0 }
    }
}
