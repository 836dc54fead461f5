import AppStoreServerAPI
import Crypto
import Foundation
import GRDB
import NotificationListener
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

@testable import subdash

/// What `GET /offers/…` decides, at a chosen instant: a win-back flag waits until the
/// subscription has ended, and an offer redeemed since the flag is not served again.
@Suite struct OfferServiceTests {
    static func service(_ db: AppDatabase, _ catalogue: String) throws -> OfferService {
        let bundleId = try #require(try db.storeApp()).bundleId
        let credentials = AppStoreCredentials(
            issuerId: "i", keyId: "2X9R4HXF34", bundleId: bundleId, privateKey: P256.Signing.PrivateKey())
        let file = try ConfigFile(parsing: catalogue, name: "c.toml")
        return OfferService(database: db, credentials: credentials, catalogue: try OfferCatalogue(file, path: "c.toml"))
    }

    static func request(_ id: String) -> OffersEndpoint.Request {
        .init(id: id, format: "signature", username: "", client: "127.0.0.1")
    }

    @Test func aWinBackFlagOnAnActiveSubscriptionServesNothingUntilItEnds() throws {
        let db = try SampleDataStore.copy()
        let (id, expires) = try db.writer.read { db in
            let row = try #require(
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT t.originalTransactionId, t.expiresDate FROM "transaction" t
                        WHERE t.inAppOwnershipType = 'PURCHASED' AND t.revocationDate IS NULL AND t.expiresDate IS NOT NULL
                            AND t.purchaseDate = (SELECT MAX(purchaseDate) FROM "transaction" x
                                WHERE x.originalTransactionId = t.originalTransactionId)
                        ORDER BY 1 LIMIT 1
                        """))
            return (row[0] as String, Instant(milliseconds: row[1]))
        }
        try db.setFlags(.init(offer: .winBackOffer, ids: [id], operatorName: "ana"), at: Instant(milliseconds: 0))
        let service = try Self.service(db, "[offers.winBack]\n\"*\" = \"promotional:wb-30\"")
        let before = Date(timeIntervalSince1970: Double(expires.milliseconds) / 1000 - 86_400)
        guard case .nothing(let reason) = try service.decide(Self.request(id), now: before) else {
            Issue.record("served to an active subscription")
            return
        }
        #expect(reason == "winBack flag on an active subscription")
        let after = Date(timeIntervalSince1970: Double(expires.milliseconds) / 1000 + 86_400)
        guard case .offer(let json) = try service.decide(Self.request(id), now: after) else {
            Issue.record("nothing served after the end")
            return
        }
        #expect(json.contains("\"offerIdentifier\":\"wb-30\""))
        #expect(try db.servedOffers(originalTransactionId: id).count == 1)
    }

    @Test func anOfferRedeemedSinceTheFlagIsNotServedAgain() throws {
        let db = try SampleDataStore.copy()
        let (id, offer, purchased) = try db.writer.read { db in
            let row = try #require(
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT originalTransactionId, offerIdentifier, purchaseDate FROM "transaction"
                        WHERE offerType = 2 AND offerIdentifier IS NOT NULL AND inAppOwnershipType = 'PURCHASED'
                        ORDER BY purchaseDate DESC LIMIT 1
                        """))
            return (row[0] as String, row[1] as String, row[2] as Int64)
        }
        let service = try Self.service(db, "[offers.retention]\n\"*\" = \"promotional:\(offer)\"")
        // A time after everything, so that no other rule applies.
        let now = Date(timeIntervalSince1970: 4_000_000_000)
        try db.setFlags(.init(offer: .retention, ids: [id], operatorName: "ana"), at: Instant(milliseconds: purchased - 1))
        guard case .nothing(let reason) = try service.decide(Self.request(id), now: now) else {
            Issue.record("served an offer redeemed since the flag")
            return
        }
        #expect(reason == "already redeemed")
        // Flagged again after that redemption: the offer is served.
        try db.setFlags(
            .init(offer: .retention, ids: [id], operatorName: "bo", note: "again", replace: true),
            at: Instant(milliseconds: purchased + 1))
        guard case .offer = try service.decide(Self.request(id), now: now) else {
            Issue.record("nothing served after a new flag")
            return
        }
    }
}
