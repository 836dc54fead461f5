import Foundation
import GRDB
import SubscriptionModel
import Testing

@testable import SubscriberStore

@Suite struct OfferFlagTests {
    @Test func flagsAreSetClearedAndLogged() throws {
        let db = try AppDatabase.inMemory()
        let t0 = Instant(parsing: "2025-03-01")!
        #expect(
            try db.setFlags(
                OfferFlagWrite(offer: .winBackOffer, ids: ["1", "2", "2"], operatorName: "ann", note: "spring"), at: t0) == 2)
        // Setting the same flag again changes nothing and logs nothing.
        #expect(
            try db.setFlags(
                OfferFlagWrite(offer: .winBackOffer, ids: ["1"], operatorName: "bob", note: "spring"), at: t0.adding(days: 1))
                == 0)
        #expect(
            try db.setFlags(
                OfferFlagWrite(offer: .winBackOffer, ids: ["1"], clear: true, operatorName: "bob"), at: t0.adding(days: 2)) == 1)
        let flags = try db.flags()
        #expect(flags.map(\.originalTransactionId) == ["2"])
        #expect(flags.first?.operatorName == "ann")
        #expect(flags.first?.note == "spring")
        let log = try db.flagLog()
        #expect(
            log.map { "\($0.originalTransactionId) \($0.action.rawValue) \($0.operatorName)" } == [
                "1 set ann", "2 set ann", "1 clear bob",
            ])
    }

    @Test func theAuditLogCannotBeRewritten() throws {
        let db = try AppDatabase.inMemory()
        try db.setFlags(OfferFlagWrite(offer: .service, ids: ["9"], operatorName: "ann"), at: Instant(milliseconds: 0))
        #expect(throws: DatabaseError.self) {
            try db.writer.write { db in try db.execute(sql: "UPDATE offerFlagLog SET operator = 'eve'") }
        }
        #expect(throws: DatabaseError.self) {
            try db.writer.write { db in try db.execute(sql: "DELETE FROM offerFlagLog") }
        }
        #expect(try db.flagLog().count == 1)
    }

    /// SQL in ids, notes, operator names and searches is data: it is stored and matched as text
    /// and runs nothing.
    @Test func sqlInIdsNotesAndSearchesDoesNothing() throws {
        let db = try AppDatabase.inMemory()
        let hostile = "1'; DROP TABLE offerFlag; --"
        #expect(
            try db.setFlags(
                OfferFlagWrite(
                    offer: .winBackOffer, ids: [hostile], operatorName: "' OR 1=1 --", note: "x'); DELETE FROM offerFlagLog; --"),
                at: Instant(milliseconds: 0)) == 1)
        #expect(try db.subscriptions(matching: "' OR '1'='1").isEmpty)
        #expect(try db.subscriptions(matching: "1\" OR 1=1 --").isEmpty)
        let flags = try db.flags()
        #expect(flags.map(\.originalTransactionId) == [hostile])
        #expect(flags.first?.note == "x'); DELETE FROM offerFlagLog; --")
        #expect(flags.first?.operatorName == "' OR 1=1 --")
        #expect(try db.flagLog().count == 1)
    }
}
