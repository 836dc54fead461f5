import Foundation
import GRDB
import SubscriberStore
import TestSupport
import Testing
import ThreadKit

@Suite struct WriterTurnTests {
    /// An import's last step folds the WAL into the store with a truncating checkpoint, which
    /// keeps writers out until every reader has left the WAL. A second import's transaction,
    /// taken in its turn, must wait for that rather than begin beside it and fail on SQLite's busy
    /// timeout: two imports at once both finish.
    @Test func anImportsLastCheckpointIsATurnAnotherWriterWaitsFor() throws {
        let directory = try TemporaryDirectory("turns")
        defer { directory.remove() }
        let path = directory.path("store.sqlite")
        let store = try AppDatabase.open(path: path)
        try store.writer.write { db in try db.execute(sql: "INSERT INTO pendingSubscription VALUES ('1')") }

        // A reader (say the other import's, deriving ahead) holds a snapshot older than the WAL's end.
        let reader = try DatabaseQueue(path: path)
        let snapshotTaken = BlockingChannel<Bool>(capacity: 1)
        let readerDone = BlockingChannel<Bool>(capacity: 1)
        Thread.detachNewThread {
            try? reader.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN DEFERRED")
                _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pendingSubscription")
                snapshotTaken.send(true)
                Thread.sleep(forTimeInterval: 2)
                try db.execute(sql: "COMMIT")
            }
            readerDone.send(true)
        }
        #expect(snapshotTaken.receive(before: Date().addingTimeInterval(10)) == true)
        try store.writer.write { db in try db.execute(sql: "INSERT INTO pendingSubscription VALUES ('2')") }

        let finished = BlockingChannel<Bool>(capacity: 1)
        Thread.detachNewThread {
            finished.send((try? store.finishBulkImport()) != nil)
        }
        Thread.sleep(forTimeInterval: 0.3)

        // The other import's next transaction, in its turn, with a busy timeout shorter than the
        // reader's stay: it begins once the checkpoint is done instead of failing.
        var configuration = Configuration()
        configuration.busyMode = .timeout(0.5)
        let other = try DatabaseQueue(path: path, configuration: configuration)
        let turn = try #require(WriterTurn(storePath: path))
        let began = Date()
        try turn.longWrite {
            try other.write { db in try db.execute(sql: "INSERT INTO pendingSubscription VALUES ('3')") }
        }
        #expect(Date().timeIntervalSince(began) > 1, "the write went ahead of the checkpoint it should wait for")
        #expect(finished.receive(before: Date().addingTimeInterval(15)) == true)
        #expect(readerDone.receive(before: Date().addingTimeInterval(15)) == true)
        #expect(try store.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pendingSubscription") } == 3)
    }
}
