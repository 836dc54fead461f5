import Foundation
import GRDB
@testable import SubscriberStore
import Testing

/// Opening a store written by another version of subdash.
@Suite struct StoreVersionTests {
    @Test func aStoreFromAnEarlierVersionIsBroughtUpToDateWhenOpenedForReading() throws {
        let path = try Fixture.temporaryStorePath("version")
        do {
            let pool = try DatabasePool(path: path)
            try AppDatabase.migrator.migrate(pool, upTo: "v3 covering cohort index")
            try pool.close()
        }
        let store = try AppDatabase.open(path: path, readOnly: true)
        let (complete, eventColumns) = try store.writer.read { db in
            (try AppDatabase.migrator.hasCompletedMigrations(db),
             try Row.fetchAll(db, sql: "PRAGMA index_info(event_at)").map { $0["name"] as String })
        }
        #expect(complete)
        #expect(eventColumns == ["environment", "at", "type", "productId", "expirationReason"])
    }

    @Test func aStoreFromALaterVersionIsRefusedWithAMessage() throws {
        let path = try Fixture.temporaryStorePath("version")
        do {
            let store = try AppDatabase.open(path: path)
            try store.writer.write { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99 from the future')")
            }
        }
        #expect(throws: StoreError.self) { try AppDatabase.open(path: path, readOnly: true) }
        do {
            _ = try AppDatabase.open(path: path, readOnly: true)
        } catch let error as StoreError {
            #expect(error.message == "\(path) was written by a newer version of subdash: upgrade subdash to read it")
        }
    }
}
