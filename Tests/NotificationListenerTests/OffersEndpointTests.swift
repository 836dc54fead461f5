import Crypto
import Foundation
import GRDB
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

/// `subdash listen --offers` over real loopback sockets: the token, 204 when nothing applies, a
/// fresh nonce each time, the record of what was served, the rate limit.
@Suite(.serialized) struct OffersEndpointTests {
    static let token = String(repeating: "7f3a", count: 10)

    struct Setup {
        var directory: TemporaryDirectory
        var db: AppDatabase
        var store: String
        var key: P256.Signing.PrivateKey
        var bundleId: String

        /// A configuration file signing for `bundleId` (the store's app unless another is given).
        func config(bundleId: String? = nil) throws -> String {
            let path = directory.path("config-\(UUID().uuidString).toml")
            try """
            [appstore]
            issuer_id = "57246542-96fe"
            key_id = "2X9R4HXF34"
            bundle_id = "\(bundleId ?? self.bundleId)"
            private_key = "AuthKey.p8"
            [listen]
            offers_token = "\(OffersEndpointTests.token)"
            [offers.retention]
            "*" = "promotional:save-30"
            [offers.service]
            "*" = "promotional:on-us"
            """.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
    }

    static func setUp() throws -> Setup {
        let directory = try TemporaryDirectory("offers-endpoint")
        let store = directory.path("store.sqlite")
        let db = try SampleDataStore.copyFile(to: store)
        let key = P256.Signing.PrivateKey()
        let keyPath = directory.path("AuthKey.p8")
        try key.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
        chmod(keyPath, 0o600)
        let bundleId = try #require(try db.storeApp()).bundleId
        return Setup(directory: directory, db: db, store: store, key: key, bundleId: bundleId)
    }

    /// Subscriptions whose latest transaction has `ownership`, by originalTransactionId.
    static func subscriptions(_ db: AppDatabase, ownership: String, count: Int) throws -> [(id: String, product: String)] {
        try db.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT t.originalTransactionId, t.productId FROM "transaction" t
                    WHERE t.inAppOwnershipType = ? AND t.purchaseDate = (SELECT MAX(purchaseDate) FROM "transaction" x
                        WHERE x.originalTransactionId = t.originalTransactionId)
                    ORDER BY t.originalTransactionId LIMIT ?
                    """, arguments: [ownership, count]
            ).map { ($0[0], $0[1]) }
        }
    }

    static func get(_ listener: ListenerProcess, _ path: String, token: String? = OffersEndpointTests.token) throws
        -> LoopbackHTTP.Response
    {
        let auth = token.map { "\r\nAuthorization: Bearer \($0)" } ?? ""
        return try listener.http.raw("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\(auth)")
    }

    @Test func theFlaggedOfferIsServedSignedOnlyWithTheTokenAndNothingWhenNoneApplies() throws {
        let setup = try Self.setUp()
        defer { setup.directory.remove() }
        let purchased = try Self.subscriptions(setup.db, ownership: "PURCHASED", count: 2)
        let (flagged, product) = purchased[0]
        let unflagged = purchased[1].id
        let shared = try #require(try Self.subscriptions(setup.db, ownership: "FAMILY_SHARED", count: 1).first).id
        try setup.db.setFlags(.init(offer: .retention, ids: [flagged, shared], operatorName: "ana"), at: Instant(Date()))

        let listener = try ListenerProcess(
            binary: try Subdash.binary(), store: setup.store,
            extra: ["--no-verify", "--offers", "--config", try setup.config(), "--offers-rate", "8"])
        defer { listener.stop() }

        #expect(try Self.get(listener, "/offers/\(flagged)", token: nil).status == 401)
        #expect(try Self.get(listener, "/offers/\(flagged)", token: Self.token + "0").status == 401)
        #expect(try Self.get(listener, "/offers/\(flagged)", token: "2X9R4HXF34").status == 401)

        var nonces: [String] = []
        for _ in 0..<2 {
            let answer = try Self.get(listener, "/offers/\(flagged)?username=Bob%40Example.com")
            #expect(answer.status == 200, "\(answer.body)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
            #expect(json["productId"] as? String == product)
            #expect(json["offerIdentifier"] as? String == "save-30")
            let nonce = try #require(json["nonce"] as? String)
            let timestamp = try #require((json["timestamp"] as? NSNumber)?.int64Value)
            let payload = [setup.bundleId, "2X9R4HXF34", product, "save-30", "bob@example.com", nonce, String(timestamp)]
                .joined(separator: "\u{2063}")
            let signatureText = try #require(json["signature"] as? String)
            let der = try #require(Data(base64Encoded: signatureText))
            #expect(
                setup.key.publicKey.isValidSignature(
                    try P256.Signing.ECDSASignature(derRepresentation: der), for: Data(payload.utf8)))
            nonces.append(nonce)
        }
        #expect(Set(nonces).count == 2)
        let jws = try Self.get(listener, "/offers/\(flagged)?format=jws")
        #expect(jws.status == 200)
        #expect(jws.body.hasPrefix("{\"productId\":\"\(product)\",\"offerIdentifier\":\"save-30\",\"jws\":\"eyJ"))

        // Nothing applies: no flag, a family member, an unknown id. Each is an authorized request.
        #expect(try Self.get(listener, "/offers/\(unflagged)").status == 204)
        #expect(try Self.get(listener, "/offers/\(shared)").status == 204)
        #expect(try Self.get(listener, "/offers/no-such-subscriber").status == 204)
        let served = try setup.db.servedOffers()
        #expect(served.count == 3)
        #expect(served.allSatisfy { $0.originalTransactionId == flagged && $0.client == "127.0.0.1" && $0.flag == .retention })
        #expect(served.map(\.format) == ["signature", "signature", "jws"])
        #expect(Set(served.map(\.nonce)).count == 3)

        // 6 authorized requests so far; the limit is 8 a minute per client (unless the minute
        // turned meanwhile: then up to 8 more pass).
        var passed = 0
        var limited = 0
        for _ in 0..<20 {
            let status = try Self.get(listener, "/offers/\(unflagged)").status
            if status == 429 { limited += 1 } else { passed += 1 }
        }
        #expect(limited > 0)
        #expect(passed == 2 || (passed > 2 && passed <= 10))
        #expect(waitUntil(timeout: 10) { listener.stderr.contains("\"outcome\":\"rate limited\"") })
        #expect(!listener.stderr.contains(Self.token))
    }

    @Test func nothingIsServedForASubscriptionOfAnotherApp() throws {
        let setup = try Self.setUp()
        defer { setup.directory.remove() }
        let flagged = try #require(try Self.subscriptions(setup.db, ownership: "PURCHASED", count: 1).first).id
        try setup.db.setFlags(.init(offer: .service, ids: [flagged], operatorName: "ana"), at: Instant(Date()))
        let listener = try ListenerProcess(
            binary: try Subdash.binary(), store: setup.store,
            extra: ["--no-verify", "--offers", "--config", try setup.config(bundleId: "com.example.other")])
        defer { listener.stop() }
        #expect(try Self.get(listener, "/offers/\(flagged)").status == 204)
        #expect(try setup.db.servedOffers().isEmpty)
        // The request log reaches stderr through a pipe: it may trail the answer.
        #expect(waitUntil(timeout: 10) { listener.stderr.contains("the key signs for com.example.other") })
    }
}
