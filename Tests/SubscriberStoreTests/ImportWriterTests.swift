import Foundation
import GRDB
import SubscriptionModel
import TestSupport
import Testing

@testable import SubscriberStore

@Suite struct ImportWriterTests {
    @Test func reimportingChangesNothing() throws {
        let db = try AppDatabase.inMemory()
        let first = try db.apply(Fixture.story)
        #expect(first.applied == 3)
        #expect(first.duplicates == 0)
        let before = try storeDump(db)
        let second = try db.apply(Fixture.story)
        #expect(second.applied == 0)
        #expect(second.duplicates == 3)
        #expect(try storeDump(db) == before)
    }

    @Test(arguments: [[0, 1, 2], [2, 1, 0], [1, 2, 0], [2, 0, 1]])
    func arrivalOrderDoesNotMatter(order: [Int]) throws {
        let clean = try AppDatabase.inMemory()
        try clean.apply(Fixture.story)
        let shuffled = try AppDatabase.inMemory()
        for i in order { try shuffled.apply([Fixture.story[i]]) }
        #expect(try storeDump(shuffled) == storeDump(clean))
        // A late renewal never resurrects the refunded version of the transaction.
        let revocation = try shuffled.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT revocationDate FROM \"transaction\" WHERE transactionId = '1001'")
        }
        #expect(revocation == day("2025-02-10").milliseconds)
    }

    @Test func duplicatesInsideOneBatchAreStoredOnce() throws {
        let db = try AppDatabase.inMemory()
        let result = try db.apply(Fixture.story + Fixture.story)
        #expect(result.applied == 3)
        #expect(result.duplicates == 3)
        let counts = try db.writer.read { db in
            try (
                Int.fetchOne(db, sql: "SELECT COUNT(*) FROM notification")!,
                Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"transaction\"")!,
                Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document")!
            )
        }
        #expect(counts == (3, 2, 3))
    }

    @Test func redeliveredNotificationWithOtherBytesIsADuplicate() throws {
        let db = try AppDatabase.inMemory()
        try db.apply(Fixture.story)
        var again = Fixture.story[1]
        again.sha256 = String(repeating: "f", count: 64)
        let result = try db.apply([again])
        #expect(result.duplicates == 1)
        let outcome = try db.writer.read { db in
            try String.fetchOne(db, sql: "SELECT outcome FROM document WHERE sha256 = ?", arguments: [again.sha256])
        }
        #expect(outcome == "duplicate")
    }

    @Test func rejectedDocumentsAreArchivedWithTheirReason() throws {
        let db = try AppDatabase.inMemory()
        let bad = IncomingDocument(
            sha256: String(repeating: "b", count: 64), source: "bad.json:line 3", byteCount: 5,
            body: Data("{nope".utf8), content: .rejected(reason: "invalid JSON at byte 1"))
        let result = try db.apply([bad])
        #expect(result.rejected == 1)
        let row = try db.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT source, outcome, reason FROM document")
        }
        #expect(row?["source"] == "bad.json:line 3")
        #expect(row?["outcome"] == "rejected")
        #expect(row?["reason"] == "invalid JSON at byte 1")
    }

    @Test func everyIdAnAgentMayPasteFindsTheSubscription() throws {
        let db = try AppDatabase.inMemory()
        var docs = Fixture.story
        docs.append(
            Fixture.document(
                "c1",
                DocumentFacts(
                    format: .customersCSV,
                    customers: [
                        CustomerFact(userId: "user-42", email: "Ann@Example.com", originalTransactionId: "1000")
                    ])))
        docs.append(
            Fixture.document(
                "c2",
                DocumentFacts(
                    format: .v2Notification,
                    transactions: [
                        Fixture.transaction("2000", of: "2000", start: "2025-01-05", end: "2025-02-05", token: "tok-7")
                    ])))
        docs.append(
            Fixture.document(
                "c3",
                DocumentFacts(
                    format: .customersCSV,
                    customers: [
                        CustomerFact(userId: "user-7", appAccountToken: "tok-7")
                    ])))
        try db.apply(docs)
        for id in ["1000", "1001", "w1001", "user-42", "ann@example.com", " 1000 "] {
            #expect(try db.subscriptions(matching: id) == ["1000"], "\(id)")
        }
        for id in ["tok-7", "user-7", "2000"] {
            #expect(try db.subscriptions(matching: id) == ["2000"], "\(id)")
        }
        #expect(try db.subscriptions(matching: "nobody").isEmpty)
        #expect(try db.subscriptions(matching: "").isEmpty)
        let customer = try db.customer(of: "2000")
        #expect(customer.userId == "user-7")
        #expect(customer.appAccountToken == "tok-7")
    }
}
