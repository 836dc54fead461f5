import AppStorePayloads
import Foundation
import GRDB
import SubscriberStore
import Synchronization
import TestSupport
import Testing
import ThreadKit

@testable import StoreImport

/// A receiver piping notifications into `subdash import -`: what has arrived when the stream pauses
/// is stored and derived at once, not at the end of the stream.
@Suite struct StreamImportTests {
    /// Lines handed over one by one by the test, as a slow pipe would.
    final class Trickle: Sendable {
        private let lines = BlockingChannel<String>(capacity: .max)
        private let count = Mutex(0)

        func send(_ line: String) { lines.send(line) }
        func close() { lines.close() }

        func next() -> SourceDocument? {
            guard let line = lines.receive() else { return nil }
            let n = count.withLock { count in
                count += 1
                return count
            }
            return SourceDocument(location: "line \(n)", bytes: Data(line.utf8))
        }
    }

    /// Waits up to 10 s for `condition` to hold on the store; false if it never does.
    func eventually(_ db: AppDatabase, _ condition: (Database) throws -> Bool) throws -> Bool {
        try waitUntil(timeout: 10) { try db.writer.read(condition) }
    }

    @Test func documentsAreStoredAndDerivedWhenTheStreamPauses() throws {
        let path = TemporaryDirectory.uniquePath("stream.sqlite")
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try AppDatabase.open(path: path)
        let trickle = Trickle()
        let rejections = Lines()
        let importer = Importer(
            database: db, open: { _ in AnyIterator { trickle.next() } }, decode: ImporterTests.decode,
            signaturesVerified: true, batchSize: 1000, isStream: { $0 == "-" },
            report: { rejections.append($0) })
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        DispatchQueue.global().async {
            outcome.set(Result { try importer.importPaths(["-"]) })
            done.signal()
        }

        trickle.send("s1 t1 2025-01-01 2025-02-01")
        trickle.send("s2 t3 2025-01-05 2025-02-05")
        // The stream is still open: the two subscriptions are there, derived.
        #expect(try eventually(db) { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM subscription") == 2 })

        trickle.send("bad")
        trickle.send("s1 t2 2025-02-01 2025-03-01")
        #expect(
            try eventually(db) {
                try Int.fetchOne($0, sql: "SELECT periodCount FROM subscription WHERE originalTransactionId = 's1'") == 2
            })
        #expect(rejections.all == ["stdin:line 3: expected 'otid txid start end'"])

        trickle.close()
        #expect(done.wait(timeout: .now() + 10) == .success)
        let summary = try #require(try outcome.get())
        #expect(summary.files == 1)
        #expect(summary.documents == 4)
        #expect(summary.applied == 3)
        #expect(summary.rejected == 1)
        #expect(summary.subscriptionsTouched == 2)
    }

    @Test func aFileIsNeverAStreamAndStdinIsOneOnlyWhenItIsNotAFile() throws {
        #expect(!Importer.standardInputIsAStream("notifications.ndjson"))
        // Real descriptors of each kind: a pipe and a socket may wait, a regular file ends.
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipeEnds.withUnsafeMutableBufferPointer { pipe($0.baseAddress!) } == 0)
        defer {
            close(pipeEnds[0])
            close(pipeEnds[1])
        }
        #expect(Importer.isStream(fileDescriptor: pipeEnds[0]))
        var sockets: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &sockets) == 0)
        defer {
            close(sockets[0])
            close(sockets[1])
        }
        #expect(Importer.isStream(fileDescriptor: sockets[0]))
        let path = TemporaryDirectory.uniquePath("stream")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("{}\n".utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = open(path, O_RDONLY)
        defer { close(file) }
        #expect(file >= 0)
        #expect(!Importer.isStream(fileDescriptor: file))
        #expect(Importer.isStream(fileDescriptor: -1), "a descriptor that cannot be examined is read as a stream")
    }

    final class Outcome: Sendable {
        private let result = Mutex<Result<ImportSummary, any Error>?>(nil)
        func set(_ r: Result<ImportSummary, any Error>) { result.withLock { $0 = r } }
        func get() throws -> ImportSummary? { try result.withLock { try $0?.get() } }
    }
}
