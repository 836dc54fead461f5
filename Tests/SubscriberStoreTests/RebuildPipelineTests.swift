import Foundation
import GRDB
import SubscriptionModel
import Testing

@testable import SubscriberStore

/// The rebuild of derived rows in a file store: one reader derives the next chunk while the
/// writer stores this one.
@Suite struct RebuildPipelineTests {
    /// Subscription 100i: bought 2025-01-01, renewed on 2025-02-01 (a month each).
    static func documents(count: Int) -> [IncomingDocument] {
        (0..<count).map { i in
            let original = "\(1000 + i)"
            return Fixture.document(
                "d\(i)",
                DocumentFacts(
                    format: .v2Notification,
                    transactions: [
                        Fixture.transaction(
                            "\(original)a", of: original, start: "2025-01-01", end: "2025-02-01", signed: "2025-01-01"),
                        Fixture.transaction(
                            "\(original)b", of: original, start: "2025-02-01", end: "2025-03-01", signed: "2025-02-01"),
                    ]))
        }
    }

    /// Every derived row, as text, in a stable order.
    static func derivedRows(_ store: AppDatabase) throws -> [String] {
        try store.writer.read { db in
            var rows: [String] = []
            for (table, order) in [
                ("subscription", "originalTransactionId"), ("period", "transactionId"),
                ("run", "originalTransactionId, runIndex"), ("segment", "originalTransactionId, start"),
                ("event", "originalTransactionId, at, type, productId, transactionId, expirationReason"),
                ("billingFailure", "originalTransactionId, transactionId"),
                ("periodMoney", "transactionId"), ("offerUse", "originalTransactionId, useIndex"),
                ("subscriberSearch", "originalTransactionId"), ("commitment", "originalTransactionId, commitmentIndex"),
            ] {
                rows += try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY \(order)").map { "\(table) \($0)" }
            }
            return rows
        }
    }

    /// Every row of the tables of counts the derivation keeps, as text, in a stable order.
    static func countRows(_ store: AppDatabase) throws -> [String] {
        try store.writer.read { db in
            var rows: [String] = []
            for table in [
                "segmentDay", "eventDay", "productDuration", "subscriptionStartDay", "cohortStepDay", "cohortStepMonth",
                "mrrDay", "mrrMonth", "ltvMemberDay", "ltvMemberMonth", "ltvPriceDay", "ltvPriceMonth", "mrrMovementMonth",
                "mrrChange",
            ] {
                rows += try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map { "\(table) \($0)" }.sorted()
            }
            return rows
        }
    }

    @Test func aFileStoreRebuiltInChunksHasTheRowsOfAStoreRebuiltAtOnce() throws {
        let docs = Self.documents(count: 7)
        let memory = try AppDatabase.inMemory()
        try memory.apply(docs)
        let file = try AppDatabase.open(path: try Fixture.temporaryStorePath("rebuild"))
        try file.apply(docs, rebuild: false)
        #expect(try file.pendingCount() == 7)
        #expect(try file.rebuildPending(chunk: 2) == 7)
        #expect(try file.pendingCount() == 0)
        let expected = try Self.derivedRows(memory)
        #expect(expected.filter { $0.hasPrefix("period ") }.count == 14)
        #expect(try Self.derivedRows(file) == expected)
    }

    @Test func aCommitFromAnotherConnectionDuringTheRebuildIsNotLost() throws {
        let path = try Fixture.temporaryStorePath("rebuild")
        let store = try AppDatabase.open(path: path)
        let other = try AppDatabase.open(path: path)
        try store.apply(Self.documents(count: 4), rebuild: false)
        // After the first chunk is stored (the reader has already started on the second), another
        // connection records a refund of subscription 1001's second period.
        let refund = Fixture.document(
            "refund",
            DocumentFacts(
                format: .v2Notification,
                transactions: [
                    Fixture.transaction(
                        "1001b", of: "1001", start: "2025-02-01", end: "2025-03-01", revoked: "2025-02-10",
                        signed: "2025-02-10")
                ]))
        try store.rebuildPending(chunk: 1) { done, _ in
            if done == 1 { _ = try? other.apply([refund], rebuild: false) }
        }
        let refunded = try store.writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT isRefunded FROM period WHERE transactionId = '1001b'")
        }
        #expect(refunded == true)
        #expect(try store.pendingCount() == 0)
    }
}

/// A receiver's commits carry slices of derivation (`applyEach(_:deriving:)`).
@Suite struct DerivationSliceTests {
    static let refund = Fixture.document(
        "refund",
        DocumentFacts(
            format: .v2Notification,
            transactions: [
                Fixture.transaction(
                    "1001b", of: "1001", start: "2025-02-01", end: "2025-03-01", revoked: "2025-02-10", signed: "2025-02-10")
            ]))

    @Test func aSliceDerivesItsSubscriptionsWithTheDocumentsOfItsOwnCommitAndLeavesTheRestPending() throws {
        let docs = RebuildPipelineTests.documents(count: 4)
        let store = try AppDatabase.open(path: try Fixture.temporaryStorePath("slices"))
        try store.apply(docs, rebuild: false)
        #expect(try store.pendingSubscriptions(limit: 3) == ["1000", "1001", "1002"])
        let applied = try store.applyEach([[Self.refund]], deriving: ["1000", "1001"])
        #expect(applied.results.map(\.applied) == [1])
        #expect(try store.pendingSubscriptions(limit: 10) == ["1002", "1003"])
        let (refunded, periods) = try store.writer.read { db in
            (
                try Bool.fetchOne(db, sql: "SELECT isRefunded FROM period WHERE transactionId = '1001b'"),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM period") ?? 0
            )
        }
        #expect(refunded == true, "derived after the refund written in the same transaction")
        #expect(periods == 4, "two subscriptions derived, two still pending")
        // The rest derived later: the store is the one-shot import's, counts included.
        try store.rebuildPending()
        let reference = try AppDatabase.inMemory()
        try reference.apply(docs + [Self.refund])
        #expect(try RebuildPipelineTests.derivedRows(store) == RebuildPipelineTests.derivedRows(reference))
        #expect(try RebuildPipelineTests.countRows(store) == RebuildPipelineTests.countRows(reference))
    }

    @Test func aCommitWithoutASliceDerivesNothing() throws {
        let store = try AppDatabase.open(path: try Fixture.temporaryStorePath("slices"))
        let applied = try store.applyEach([[Self.refund]], deriving: [])
        #expect(applied.derivationSeconds == 0)
        #expect(try store.pendingSubscriptions(limit: 10) == ["1001"])
    }
}

/// A backfill's rebuild sets the derived tables' time- and product-keyed indexes aside and builds
/// them again at the end.
@Suite struct DerivedIndexTests {
    static func indexes(_ store: AppDatabase) throws -> [String] {
        try store.writer.read { db in
            try String.fetchAll(
                db, sql: "SELECT name || ': ' || sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
        }
    }

    @Test func aRebuildThatDefersItsIndexesEndsWithTheSameIndexesAndRows() throws {
        let docs = RebuildPipelineTests.documents(count: 7)
        let plain = try AppDatabase.open(path: try Fixture.temporaryStorePath("indexes"))
        try plain.apply(docs, rebuild: false)
        try plain.rebuildPending(chunk: 2, deferIndexesFrom: .max)
        let deferred = try AppDatabase.open(path: try Fixture.temporaryStorePath("indexes"))
        try deferred.apply(docs, rebuild: false)
        var missingDuringRebuild: [Int] = []
        try deferred.rebuildPending(chunk: 2, deferIndexesFrom: 1) { _, _ in
            missingDuringRebuild.append(
                (try? deferred.writer.read { db in
                    try Int.fetchOne(
                        db, sql: "SELECT COUNT(*) FROM sqlite_schema WHERE name IN ('segment_end', 'event_at', 'run_cohortEnd')")
                }) ?? -1)
        }
        #expect(missingDuringRebuild == [0, 0, 0, 3], "set aside until the last chunk's commit")
        #expect(try Self.indexes(deferred) == Self.indexes(plain))
        #expect(try Self.indexes(plain).contains { $0.hasPrefix("segment_end: CREATE INDEX segment_end ON segment(") })
        #expect(try RebuildPipelineTests.derivedRows(deferred) == RebuildPipelineTests.derivedRows(plain))
    }

    @Test func indexesLeftMissingByAnInterruptedRebuildAreBuiltByTheNext() throws {
        let store = try AppDatabase.open(path: try Fixture.temporaryStorePath("indexes"))
        try store.apply(RebuildPipelineTests.documents(count: 3), rebuild: false)
        let complete = try Self.indexes(store)
        // As a rebuild interrupted after setting them aside leaves the store.
        try store.writer.write { db in try DerivedIndexes.drop(db) }
        #expect(try Self.indexes(store).count < complete.count)
        try store.rebuildPending(chunk: 2, deferIndexesFrom: .max)
        #expect(try Self.indexes(store) == complete)
        #expect(try store.pendingCount() == 0)
    }
}

/// The import's writing thread: chunks grouped into transactions.
@Suite struct ApplyStreamTests {
    struct Interrupted: Error {}

    @Test func chunksAreCommittedInGroupsAndAFailureLosesOnlyTheOpenGroup() throws {
        let store = try AppDatabase.inMemory()
        var chunks = RebuildPipelineTests.documents(count: 5).map { [$0] }
        var results: [BatchResult] = []
        #expect(throws: Interrupted.self) {
            try store.applyStream(
                documentsPerTransaction: 2,
                next: {
                    // Chunks 1–2 make the first transaction, 3–4 the second; the fourth never arrives.
                    guard chunks.count > 2 else { throw Interrupted() }
                    return chunks.removeFirst()
                }, onChunk: { results.append($0) })
        }
        #expect(results.map(\.applied) == [1, 1, 1])
        let stored = try store.writer.read { db in try String.fetchAll(db, sql: "SELECT source FROM document ORDER BY source") }
        #expect(stored == ["test:d0", "test:d1"])
        #expect(try store.pendingCount() == 2)
    }

    @Test func theLastGroupIsCommittedWhenTheStreamEnds() throws {
        let store = try AppDatabase.inMemory()
        var chunks = RebuildPipelineTests.documents(count: 5).map { [$0] }
        try store.applyStream(
            documentsPerTransaction: 2, next: { chunks.isEmpty ? nil : chunks.removeFirst() }, onChunk: { _ in })
        #expect(try store.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document") } == 5)
        #expect(try store.rebuildPending() == 5)
    }
}
