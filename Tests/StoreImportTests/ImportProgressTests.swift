import Foundation
import SubscriberStore
import Synchronization
import TestSupport
import Testing

@testable import StoreImport

/// The import's progress line: which file of how many, a time left once there is something to
/// estimate from, and the derivation counted against its total.
@Suite struct ImportProgressTests {
    @Test func theReadingLineNamesTheFileTheRateAndTheTimeLeft() {
        // 3 of 9 files, 40 of 160 MB read in 20 s: 120 MB more at the same pace is 60 s.
        let reading = ImportProgress.reading(
            documents: 123_456, seconds: 20, file: 3, files: 9, bytesDone: 40_000_000, bytes: 160_000_000)
        #expect(reading.line == "importing: file 3 of 9, 123,456 documents, 6,172/s, about 60 s left")
        // Nothing read to its end yet: no estimate; one file: no file count.
        #expect(
            ImportProgress.reading(documents: 500, seconds: 1, file: 1, files: 1, bytesDone: 0, bytes: 1_000).line
                == "importing: 500 documents, 500/s")
        #expect(
            ImportProgress.reading(documents: 9, seconds: 100, file: 2, files: 2, bytesDone: 1, bytes: 100).line
                == "importing: file 2 of 2, 9 documents, 0/s, about 2 h 45 min left")
    }

    @Test func theDerivingLineCountsAgainstItsTotal() {
        #expect(
            ImportProgress.deriving(done: 40_000, total: 100_000, seconds: 8).line
                == "deriving: 40,000 of 100,000 subscriptions, about 12 s left")
        #expect(ImportProgress.deriving(done: 2_000, total: nil, seconds: 1).line == "deriving: 2,000 subscriptions")
        #expect(
            ImportProgress.deriving(done: 30_000, total: 100_000, seconds: 60).line
                == "deriving: 30,000 of 100,000 subscriptions, about 2 min left")
    }

    /// SampleData imported into a file store: the reading lines count files up to the last, the
    /// derivation moves chunk by chunk to the number of subscriptions it derived.
    @Test func anImportReportsEveryFileAndTheDerivationToItsEnd() throws {
        let directory = try TemporaryDirectory("progress")
        defer { directory.remove() }
        let database = try AppDatabase.open(path: directory.path("store.sqlite"))
        let seen = Mutex<[ImportProgress]>([])
        _ = try Importer.appStore(
            database: database, verifier: SampleDataStore.verifier(), report: { _ in },
            progress: { progress in seen.withLock { $0.append(progress) } }
        ).importPaths([SampleData.generated + "/v2"])
        let all = seen.withLock { $0 }
        let reading = all.compactMap { if case .reading(_, _, let file, let files, _, _) = $0 { (file, files) } else { nil } }
        let files = try FileManager.default.contentsOfDirectory(atPath: SampleData.generated + "/v2")
            .filter { !$0.hasPrefix(".") }.count
        #expect(reading.last.map { $0 == (files, files) } == true, "\(reading)")
        let deriving = all.compactMap { if case .deriving(let done, let total, _) = $0 { (done, total) } else { nil } }
        let subscriptions = try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM subscription") }
        #expect(deriving.last?.0 == subscriptions && deriving.last?.1 == subscriptions, "\(deriving)")
    }
}
