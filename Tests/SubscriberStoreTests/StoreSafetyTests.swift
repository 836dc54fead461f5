import Foundation
import GRDB
import SubscriptionModel
import Synchronization
import Testing

@testable import SubscriberStore

/// Flags that keep an earlier operator's work, an identity behind every change, stores private
/// to their user, readers that never write, and an import lock that tells running from interrupted.
@Suite struct StoreSafetyTests {
    @Test func anEarlierFlagIsKeptUnlessReplacedAndTheLogKeepsBoth() throws {
        let db = try AppDatabase.inMemory()
        let t0 = Instant(parsing: "2025-03-01")!
        #expect(
            try db.setFlags(OfferFlagWrite(offer: .winBackOffer, ids: ["1"], operatorName: "alice", note: "called"), at: t0) == 1)
        // Another note by another operator: kept, nothing logged.
        #expect(
            try db.setFlags(
                OfferFlagWrite(offer: .winBackOffer, ids: ["1"], operatorName: "bob", note: "again"), at: t0.adding(days: 1)) == 0
        )
        #expect(try db.flags().map { "\($0.operatorName) \($0.note ?? "-") \($0.at.isoDate)" } == ["alice called 2025-03-01"])
        // Confirmed: replaced, and logged as a change after alice's flag.
        #expect(
            try db.setFlags(
                OfferFlagWrite(offer: .winBackOffer, ids: ["1"], operatorName: "bob", note: "again", replace: true),
                at: t0.adding(days: 2)) == 1)
        #expect(try db.flags().map { "\($0.operatorName) \($0.note ?? "-") \($0.at.isoDate)" } == ["bob again 2025-03-03"])
        #expect(
            try db.setFlags(
                OfferFlagWrite(offer: .winBackOffer, ids: ["1"], clear: true, operatorName: "carol"), at: t0.adding(days: 3)) == 1
        )
        #expect(
            try db.setFlags(OfferFlagWrite(offer: .winBackOffer, ids: ["1"], operatorName: "dan"), at: t0.adding(days: 4)) == 1)
        let log = try db.flagLog()
        #expect(
            log.map { "\($0.kind.rawValue) \($0.operatorName) \($0.note ?? "-")" }
                == ["set alice called", "changed bob again", "cleared carol -", "set dan -"])
        #expect(try db.flagLog(offer: .service).isEmpty)
    }

    @Test func nothingIsWrittenWithoutAnOperator() throws {
        let db = try AppDatabase.inMemory()
        for nobody in ["", "  "] {
            #expect(throws: StoreError.self) {
                try db.setFlags(OfferFlagWrite(offer: .service, ids: ["1"], operatorName: nobody), at: Instant(milliseconds: 0))
            }
        }
        #expect(try db.flagLog().isEmpty)
    }

    @Test func theOperatorIsTheOptionThenUserThenTheLoginName() {
        #expect(OperatorIdentity.resolve(option: "ann", environment: ["USER": "bob"], loginName: { "carl" }) == "ann")
        #expect(OperatorIdentity.resolve(option: nil, environment: ["USER": "bob"], loginName: { "carl" }) == "bob")
        #expect(OperatorIdentity.resolve(option: nil, environment: ["USER": ""], loginName: { "carl" }) == "carl")
        #expect(OperatorIdentity.resolve(option: "", environment: [:], loginName: { "carl" }) == "carl")
        #expect(OperatorIdentity.resolve(option: nil, environment: ["USER": " "], loginName: { nil }) == nil)
        // The real password database names whoever runs the tests.
        #expect(OperatorIdentity.loginName()?.isEmpty == false)
    }

    @Test func aStoreFromANewerSchemaIsRefusedByEveryOpenerNamingBothVersions() throws {
        for how in ["migration", "user_version"] {
            let path = try Fixture.temporaryStorePath("newer")
            do {
                let store = try AppDatabase.open(path: path)
                try store.writer.writeWithoutTransaction { db in
                    if how == "migration" {
                        try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99 from the future')")
                    } else {
                        try db.execute(sql: "PRAGMA user_version = 99")
                    }
                    _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                }
            }
            func schema() throws -> String {
                let queue = try DatabaseQueue(
                    path: path,
                    configuration: {
                        var c = Configuration()
                        c.readonly = true
                        return c
                    }())
                return try queue.read { db in
                    try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations").joined(separator: ",")
                        + " user_version \(try Int.fetchOne(db, sql: "PRAGMA user_version") ?? -1)"
                }
            }
            let before = try schema()
            let stored = how == "migration" ? AppDatabase.schemaVersion + 1 : 99
            let expected =
                "\(path) was written by a newer version of subdash (store schema version \(stored); this subdash "
                + "reads versions up to \(AppDatabase.schemaVersion)): upgrade subdash to open it; nothing was read or written"
            for readOnly in [false, true] {
                var message: String?
                do { _ = try AppDatabase.open(path: path, readOnly: readOnly) } catch let error as StoreError {
                    message = error.message
                }
                #expect(message == expected, "readOnly: \(readOnly)")
            }
            #expect(try schema() == before, "nothing migrated or stamped")
        }
    }

    @Test func aReadOnlyOpenRefusesWritesAtTheSQLiteLevelAndWritesNothing() throws {
        let path = try Fixture.temporaryStorePath("readonly")
        do {
            try AppDatabase.open(path: path).setFlags(
                OfferFlagWrite(offer: .service, ids: ["1"], operatorName: "ann"), at: Instant(milliseconds: 0))
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let store = try AppDatabase.open(path: path, readOnly: true)
        #expect(try store.flags().count == 1)
        #expect {
            try store.writer.write { db in try db.execute(sql: "DELETE FROM offerFlag") }
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .SQLITE_READONLY
        }
        #expect(throws: (any Error).self) {
            try store.setFlags(
                OfferFlagWrite(offer: .winBackOffer, ids: ["2"], operatorName: "eve"), at: Instant(milliseconds: 0))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// As in a directory the user cannot write to (no `-shm` can be made): read through an
    /// immutable open, and nothing is created beside the store.
    @Test func aStoreInAReadOnlyDirectoryCanBeBrowsed() throws {
        let path = try Fixture.temporaryStorePath("rodir")
        do {
            try AppDatabase.open(path: path).setFlags(
                OfferFlagWrite(offer: .service, ids: ["1"], operatorName: "ann"), at: Instant(milliseconds: 0))
        }
        let directory = (path as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["store.sqlite"])
        let store = try AppDatabase.open(path: path, readOnly: true, directoryWritable: false)
        #expect(try store.flags().map(\.operatorName) == ["ann"])
        #expect(throws: (any Error).self) {
            try store.writer.write { db in try db.execute(sql: "DELETE FROM offerFlag") }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["store.sqlite"])
    }

    @Test func aNewStoreAndItsWALArePrivateAndAReadableOneIsPointedOut() throws {
        let path = try Fixture.temporaryStorePath("modes")
        let saved = umask(0o022)
        defer { umask(saved) }
        let store = try AppDatabase.open(path: path)
        try store.setFlags(OfferFlagWrite(offer: .service, ids: ["1"], operatorName: "ann"), at: Instant(milliseconds: 0))
        for file in [path, path + "-wal", path + "-shm"] {
            let mode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(file) has mode \(String(mode, radix: 8))")
        }
        #expect(StoreFiles.exposureWarning(path: path) == nil)
        chmod(path, 0o644)
        #expect(
            StoreFiles.exposureWarning(path: path)
                == "warning: \(path) (mode 644) can be read by everyone and holds customer emails; `chmod 600 \(path)` makes it private"
        )
        chmod(path, 0o640)
        #expect(StoreFiles.exposureWarning(path: path)?.contains("can be read by its group") == true)
        let export = (path as NSString).deletingLastPathComponent + "/export.csv"
        #expect(try StoreFiles.writeNewPrivateFile(path: export, data: Data("a,b\n".utf8)))
        #expect(try !StoreFiles.writeNewPrivateFile(path: export, data: Data("c\n".utf8)))
        #expect(FileManager.default.contents(atPath: export) == Data("a,b\n".utf8))
        #expect(try FileManager.default.attributesOfItem(atPath: export)[.posixPermissions] as? Int == 0o600)
    }

    @Test func theImportLockTellsWorkInProgressFromAnInterruptedImport() throws {
        let path = try Fixture.temporaryStorePath("lock")
        let store = try AppDatabase.open(path: path)
        #expect(try store.importActivity() == .idle)
        let lock = try #require(ImportLock(storePath: path))
        #expect(ImportLock.isHeld(storePath: path))
        // Held with nothing waiting to be rebuilt (a listener between notifications): the figures
        // are current.
        #expect(try store.importActivity() == .idle)
        try store.writer.write { db in try db.execute(sql: "INSERT INTO pendingSubscription VALUES ('1'), ('2')") }
        #expect(try store.importActivity() == .running)
        // A second import shares the lock.
        let second = try #require(ImportLock(storePath: path))
        second.release()
        #expect(try store.importActivity() == .running)
        lock.release()
        #expect(!ImportLock.isHeld(storePath: path))
        #expect(try store.importActivity() == .interrupted(pending: 2))
    }

    /// Several readers asking at once (reports, dashboards) never take each other for an import.
    @Test func readersAskingAtOnceDoNotSeeAnImport() throws {
        let path = try Fixture.temporaryStorePath("lock-readers")
        let lock = try #require(ImportLock(storePath: path))
        lock.release()
        let seen = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<5_000 where ImportLock.isHeld(storePath: path) { seen.withLock { $0 += 1 } }
        }
        #expect(seen.withLock { $0 } == 0)
    }
}
