import Foundation
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

@Suite struct StoreChangeMonitorTests {
    @Test func seesCommitsOfEveryConnectionOnlyWhenTheyHappen() throws {
        let directory = try TemporaryDirectory("monitor")
        defer { directory.remove() }
        let path = directory.path("store.sqlite")

        let store = try AppDatabase.open(path: path)
        let monitor = try StoreChangeMonitor(database: store)
        func document(_ id: String) -> IncomingDocument {
            Fixture.document(
                "monitor-\(id)",
                DocumentFacts(
                    format: .v2Notification,
                    transactions: [
                        Fixture.transaction(id, of: id, start: "2025-01-01", end: "2025-02-01")
                    ]))
        }

        let first = try monitor.version()
        #expect(try monitor.version() == first, "no commit, no change")
        _ = try store.apply([document("1")])
        let afterOwnWrite = try monitor.version()
        #expect(afterOwnWrite != first, "the store's own writer is another connection to the monitor")
        _ = try AppDatabase.open(path: path).apply([document("2")])
        #expect(try monitor.version() != afterOwnWrite, "another process's import")
        // Reads do not count: the baseline is taken before the reads it checks.
        let beforeReads = try monitor.version()
        #expect(try store.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM subscription") } == 2)
        #expect(
            try AppDatabase.open(path: path, readOnly: true).writer.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"transaction\"")
            } == 2)
        #expect(try monitor.version() == beforeReads, "reads by this process or another are not commits")
    }
}
