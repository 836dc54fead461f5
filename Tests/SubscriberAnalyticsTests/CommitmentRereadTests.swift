import AppStorePayloads
import Foundation
import GRDB
import StoreImport
import SubscriptionModel
import TestSupport
import Testing

@testable import LifecycleSimulator
@testable import SubscriberAnalytics
@testable import SubscriberStore

/// A store made before billing plans were kept (migration v22) holds a monthly payment of an
/// annual product as an upfront period. Reading the archive again (docs/metrics.md, "Commitment
/// data in stores from before billing plans") fills the plan and the commitment in, and the
/// subscriber reads as paying 10.99 USD a month, payment 2 of 12, MRR 10.99 rather than 10.99/12.
@Suite struct CommitmentRereadTests {
    static let signed = Wire.at("2026-04-10T12:00:00Z")
    static let original = "7000000000000001"

    static func payment(_ k: Int, _ start: String, _ end: String) -> WireTransaction {
        var t = WireTransaction(
            transactionId: "700000000000000\(k)", originalTransactionId: original, webOrderLineItemId: "70000000000000\(k)9",
            productId: "pro.annual", purchaseDate: Wire.at(start), originalPurchaseDate: Wire.at("2026-03-02T00:00:00Z"),
            expiresDate: Wire.at(end), price: 10_990)
        t.isRenewal = k > 1
        t.billingPlanType = "MONTHLY"
        t.commitmentInfo =
            #"{"billingPeriodNumber":\#(k),"totalBillingPeriods":12,"commitmentExpiresDate":\#(Wire.at("2027-03-02T00:00:00Z").milliseconds),"commitmentPrice":131880}"#
        return t
    }

    @Test func anOldStoreReadsItsCommitmentsFromTheArchive() throws {
        let chain = try Wire.chain()
        let jws = try CompactJWS(chain: chain)
        let history = [
            Self.payment(1, "2026-03-02T00:00:00Z", "2026-04-02T00:00:00Z"),
            Self.payment(2, "2026-04-02T00:00:00Z", "2026-05-02T00:00:00Z"),
        ]
        let queue = try DatabaseQueue()
        let db = try AppDatabase(queue)
        #expect(
            try Wire.importDocuments(
                [Wire.transactionHistory(history, signedDate: Self.signed, jws: jws)], into: db, chain: chain) == [])
        func summary() throws -> String? {
            guard case .found(let r) = try SubscriberAnalytics(database: db).subscriber(Self.original, asOf: Self.signed)
            else { return "not found" }
            return r.commitment?.summary
        }
        let imported = try summary()
        #expect(imported?.hasPrefix("monthly payments, 12-month commitment — payment 2 of 12") == true, "\(imported ?? "none")")

        // What the code before v22 stored: no plan, no commitment, the rank of a fact without them.
        try queue.write { db in
            for t in history {
                var fact = try #require(
                    try FactReader(db).facts(of: Self.original).transactions.first { $0.transactionId == t.transactionId })
                (fact.billingPlanType, fact.commitment) = (nil, nil)
                try db.execute(
                    sql: """
                        UPDATE "transaction" SET billingPlanType = NULL, commitmentPeriod = NULL, commitmentPeriods = NULL,
                            commitmentExpiresDate = NULL, commitmentPrice = NULL, rank = ? WHERE transactionId = ?
                        """, arguments: [FactRank.rank(of: fact), t.transactionId])
            }
            try db.execute(sql: "INSERT INTO pendingSubscription VALUES (?)", arguments: [Self.original])
        }
        try db.rebuildPending()
        #expect(try summary() == nil)

        // The pass v23 queues on an upgraded store.
        try queue.write { db in
            try db.execute(sql: "INSERT INTO pendingArchiveDocument (sha256) SELECT sha256 FROM document")
        }
        #expect(try db.rereadArchive(decode: ArchiveRereading.decoder) == 1)
        #expect(try summary() == imported)
        let ranks = try queue.read { db in
            try String.fetchAll(db, sql: #"SELECT rank FROM "transaction" ORDER BY transactionId"#)
        }
        let stored = try queue.read { db in try FactReader(db).facts(of: Self.original).transactions }
        #expect(ranks == stored.map { FactRank.rank(of: $0) })
        // Apple sending the same history again adds nothing.
        #expect(
            try Wire.importDocuments(
                [Wire.transactionHistory(history, signedDate: Self.signed, jws: jws)], into: db, chain: chain) == [])
        #expect(try summary() == imported)
    }
}
