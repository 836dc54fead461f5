import AppStorePayloads
import Foundation
import GRDB
import ReportOutputs
import StoreImport
import SubscriptionModel
import TestSupport
import Testing

@testable import LifecycleSimulator
@testable import SubscriberAnalytics
@testable import SubscriberStore

/// Apple's renewal details (docs/metrics.md, "Renewal details from Apple"), hand-computed.
///
/// One Apple Account (app download 704000000000001) holds two subscriptions: A, a monthly product
/// bought 2025-01-05 10:00 at 7.99 USD and renewed on 02-05 at 7.99 (to 03-05), whose renewal info
/// of 02-20 says the next renewal charges 9.99 USD (a price increase); and B, a yearly product
/// bought 2025-02-01 (to 2026-02-01). C (another account) had one month from 2024-12-01 to
/// 2025-01-01 and turned auto-renew off: its renewal info (expired, intent 1 voluntary) lists the
/// win-back offers winback.half, winback.month. All documents are signed 2025-02-20 12:00.
@Suite struct RenewalDetailsTests {
    static let account = "704000000000001"
    static let a = "6000000000000001"
    static let b = "6000000000000101"
    static let c = "6000000000000201"
    static let signed = Wire.at("2025-02-20T12:00:00Z")

    static func transaction(
        _ id: String, _ original: String, _ product: String, _ start: String, _ end: String, price: Int64,
        renewal: Bool, account: String? = RenewalDetailsTests.account
    ) -> WireTransaction {
        var t = WireTransaction(
            transactionId: id, originalTransactionId: original, webOrderLineItemId: id + "9", productId: product,
            purchaseDate: Wire.at(start), originalPurchaseDate: Wire.at(start), expiresDate: Wire.at(end), price: price)
        t.isRenewal = renewal
        t.appTransactionId = account
        return t
    }

    static var transactions: [WireTransaction] {
        var a2 = transaction(
            "6000000000000002", a, "pro.monthly", "2025-02-05T10:00:00Z", "2025-03-05T10:00:00Z", price: 7990, renewal: true)
        a2.originalPurchaseDate = Wire.at("2025-01-05T10:00:00Z")
        return [
            transaction(
                "6000000000000001", a, "pro.monthly", "2025-01-05T10:00:00Z", "2025-02-05T10:00:00Z", price: 7990, renewal: false),
            a2,
            transaction(
                "6000000000000101", b, "pro.yearly", "2025-02-01T10:00:00Z", "2026-02-01T10:00:00Z", price: 49990, renewal: false),
            transaction(
                "6000000000000201", c, "pro.monthly", "2024-12-01T10:00:00Z", "2025-01-01T10:00:00Z", price: 7990, renewal: false,
                account: "704000000000777"),
        ]
    }

    static func documents(_ jws: CompactJWS) -> [String] {
        let t = transactions
        var renewA = WireRenewal(productId: "pro.monthly", autoRenewProductId: "pro.monthly")
        renewA.renewalPrice = 9990
        renewA.currency = "USD"
        renewA.appTransactionId = account
        var renewB = WireRenewal(productId: "pro.yearly", autoRenewProductId: "pro.yearly")
        renewB.renewalPrice = 49990
        renewB.currency = "USD"
        renewB.appTransactionId = account
        var renewC = WireRenewal(productId: "pro.monthly", autoRenewProductId: "pro.monthly", autoRenewStatus: false)
        renewC.expirationIntent = 1
        renewC.eligibleWinBackOfferIds = ["winback.half", "winback.month"]
        renewC.appTransactionId = "704000000000777"
        return [
            Wire.transactionHistory(t, signedDate: signed, jws: jws),
            Wire.statusResponse([(1, t[1], renewA), (1, t[2], renewB), (2, t[3], renewC)], signedDate: signed, jws: jws),
        ]
    }

    static func store() throws -> (AppDatabase, SubscriberAnalytics) {
        let chain = try Wire.chain()
        let db = try AppDatabase.inMemory()
        #expect(try Wire.importDocuments(documents(try CompactJWS(chain: chain)), into: db, chain: chain) == [])
        return (db, SubscriberAnalytics(database: db))
    }

    static func report(_ analytics: SubscriberAnalytics, _ id: String) throws -> SubscriberReport {
        guard case .found(let r) = try analytics.subscriber(id, asOf: signed) else {
            throw StoreError("\(id) not found")
        }
        return r
    }

    @Test func nextChargeAccountAndPeriods() throws {
        let (_, analytics) = try Self.store()
        let r = try Self.report(analytics, Self.a)
        #expect(r.renewal.renewalPrice == 9990 && r.renewal.renewalCurrency == "USD")
        #expect(r.renewal.sameAccount == [Self.a, Self.b])
        // Renews on 03-05 (its period's end); the last charge was 7.99: a price increase.
        #expect(RenewalText.nextCharge(r) == "Next charge 9.99 USD on 2025-03-05 (last charge 7.99 USD: price increase)")
        #expect(RenewalText.appleAccount(r) == "704000000000001 · 2 subscriptions of this Apple Account: also \(Self.b)")
        #expect(r.renewal.periods["6000000000000001"]?.initiatedBy == "customer")
        #expect(r.renewal.periods["6000000000000002"]?.initiatedBy == "Apple")

        let json = SubscriberOutput(r).json
        for member in [
            #""renewalPrice":9.99"#, #""renewalCurrency":"USD""#, #""eligibleWinBackOfferIds":[]"#,
            #""appTransactionId":"704000000000001""#,
            #""appTransactionSubscriptions":["6000000000000001","6000000000000101"]"#,
        ] {
            #expect(json.contains(member), "no \(member) in \(json)")
        }

        // The same price as the last charge says only when.
        let yearly = try Self.report(analytics, Self.b)
        #expect(RenewalText.nextCharge(yearly) == "Next charge 49.99 USD on 2026-02-01")
        // Lapsed: no renewal ahead.
        let lapsed = try Self.report(analytics, Self.c)
        #expect(lapsed.renewal.renewalPrice == nil && RenewalText.nextCharge(lapsed) == nil)
        #expect(lapsed.renewal.eligibleWinBackOfferIds == ["winback.half", "winback.month"])
        #expect(RenewalText.appleAccount(lapsed) == "704000000000777 (no other subscription)")
    }

    @Test func searchFindsEverySubscriptionOfTheAccount() throws {
        let (db, analytics) = try Self.store()
        #expect(try db.subscriptions(matching: Self.account) == [Self.a, Self.b])
        #expect(try db.subscriptions(searching: Self.account) == [Self.a, Self.b])
        #expect(try analytics.subscriber(Self.account, asOf: Self.signed) == .ambiguous(Self.account, [Self.a, Self.b]))
        guard case .found(let c) = try analytics.subscriber("704000000000777", asOf: Self.signed) else {
            Issue.record("C not found by its app download")
            return
        }
        #expect(c.originalTransactionId == Self.c)
    }

    @Test func winBackCarriesApplesOfferIds() throws {
        let (_, analytics) = try Self.store()
        let rows = try analytics.eligibility(asOf: Self.signed, offer: .winBackOffer)
        #expect(rows.map(\.originalTransactionId) == [Self.c])
        #expect(rows.first?.appleOfferIds == ["winback.half", "winback.month"])
        let json = EligibilityOutput(rows, asOf: Self.signed).json
        #expect(json.contains(#""offer":"winBack","originalTransactionId":"6000000000000201""#))
        #expect(json.contains(#""appleOfferIds":["winback.half","winback.month"]}"#), "\(json)")
    }

    /// A store made before v23/v24: the renewal details were not kept, and a Consumable in a
    /// history was stored as a transaction (a phantom "not started" subscription). Opening it
    /// migrates: the archive is read again, the details filled in, the phantom removed (its
    /// transaction kept aside, the archive untouched).
    @Test func oldStoreReadsItsArchiveAgain() throws {
        let chain = try Wire.chain()
        let jws = try CompactJWS(chain: chain)
        var coins = Self.transaction(
            "6000000000000901", "6000000000000901", "coins.100", "2025-02-10T09:00:00Z", "2025-02-10T09:00:00Z", price: 1990,
            renewal: false)
        coins.type = "Consumable"
        let queue = try DatabaseQueue()
        let db = try AppDatabase(queue)
        let docs =
            [Wire.transactionHistory(Self.transactions + [coins], signedDate: Self.signed, jws: jws)]
            + Array(Self.documents(jws).dropFirst())
        #expect(try Wire.importDocuments(docs, into: db, chain: chain) == [])
        let before = try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM subscription") }
        #expect(before == 3)
        // What the code before v24 stored for the consumable, derived as it was: a fourth subscription.
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO "transaction" (transactionId, originalTransactionId, webOrderLineItemId, productId,
                        purchaseDate, originalPurchaseDate, isUpgraded, environment, price, currency, inAppOwnershipType,
                        signedDate, rank)
                    VALUES ('6000000000000901', '6000000000000901', '60000000000009019', 'coins.100', ?1, ?1, 0, 'Production',
                        1990, 'USD', 'PURCHASED', ?2, 'v2')
                    """, arguments: [Wire.at("2025-02-10T09:00:00Z").milliseconds, Self.signed.milliseconds])
            try db.execute(sql: "INSERT INTO pendingSubscription VALUES ('6000000000000901')")
        }
        try db.rebuildPending()
        // No period (a consumable has no expiresDate), but found by its id: "not started".
        guard case .found(let phantom) = try SubscriberAnalytics(database: db).subscriber("6000000000000901", asOf: Self.signed)
        else {
            Issue.record("the phantom is not there to remove")
            return
        }
        #expect(phantom.state == nil && phantom.timeline.periods.isEmpty)
        // Back to the schema before v23: the new columns and tables gone, the migrations not applied.
        try queue.writeWithoutTransaction { db in
            try db.execute(
                sql: """
                    DROP INDEX transaction_appTransactionId;
                    DROP INDEX renewalFact_appTransactionId;
                    ALTER TABLE "transaction" DROP COLUMN appTransactionId;
                    ALTER TABLE "transaction" DROP COLUMN offerPeriod;
                    ALTER TABLE "transaction" DROP COLUMN transactionReason;
                    ALTER TABLE renewalFact DROP COLUMN renewalPrice;
                    ALTER TABLE renewalFact DROP COLUMN renewalCurrency;
                    ALTER TABLE renewalFact DROP COLUMN eligibleWinBackOfferIds;
                    ALTER TABLE renewalFact DROP COLUMN appTransactionId;
                    ALTER TABLE renewalFact DROP COLUMN offerPeriod;
                    DROP TABLE pendingArchiveDocument;
                    DROP TABLE nonSubscriptionTransaction;
                    DELETE FROM grdb_migrations
                        WHERE identifier IN ('v23 renewal details', 'v24 no subscriptions from other product types');
                    """)
        }
        let documents = try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document") }

        AppDatabase.archiveDecoder = ArchiveRereading.decoder
        defer { AppDatabase.archiveDecoder = nil }
        let migrated = try AppDatabase(queue)
        let after = try queue.read { db in
            (
                subscriptions: try String.fetchAll(db, sql: "SELECT originalTransactionId FROM subscription ORDER BY 1"),
                setAside: try String.fetchAll(db, sql: "SELECT transactionId FROM nonSubscriptionTransaction"),
                documents: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document"),
                queued: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pendingArchiveDocument")
            )
        }
        #expect(after.subscriptions == [Self.a, Self.b, Self.c])
        #expect(after.setAside == ["6000000000000901"] && after.documents == documents && after.queued == 0)
        let analytics = SubscriberAnalytics(database: migrated)
        #expect(try analytics.subscriber("6000000000000901", asOf: Self.signed) == .notFound("6000000000000901"))
        let r = try Self.report(analytics, Self.a)
        #expect(RenewalText.nextCharge(r) == "Next charge 9.99 USD on 2025-03-05 (last charge 7.99 USD: price increase)")
        #expect(r.renewal.sameAccount == [Self.a, Self.b])
        #expect(
            try analytics.eligibility(asOf: Self.signed, offer: .winBackOffer).first?.appleOfferIds == [
                "winback.half", "winback.month",
            ])
    }
}
