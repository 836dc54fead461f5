import Crypto
import Foundation
import GRDB
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

@testable import AppStoreServerAPI

/// `subdash offer sign` and `subdash offer intro-eligibility` as a user runs them, on a copy of
/// SampleData, with a key and a catalogue in a configuration file.
@Suite struct OfferCommandTests {
    struct Setup {
        var directory: TemporaryDirectory
        var db: AppDatabase
        var storePath: String
        var configPath: String
        var key: P256.Signing.PrivateKey
        /// The store's app, which the configuration signs for.
        var bundleId: String

        func run(_ arguments: [String]) throws -> Subdash.Run {
            try Subdash.run(
                arguments + ["--db", storePath, "--config", configPath],
                removing: ["SUBDASH_ISSUER_ID", "SUBDASH_KEY_ID", "SUBDASH_BUNDLE_ID", "SUBDASH_PRIVATE_KEY"])
        }
    }

    static func setUp(catalogue: String) throws -> Setup {
        let directory = try TemporaryDirectory("offer-command")
        let storePath = directory.path("store.sqlite")
        let db = try SampleDataStore.copyFile(to: storePath)
        let key = P256.Signing.PrivateKey()
        let keyPath = directory.path("AuthKey.p8")
        try key.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
        chmod(keyPath, 0o600)
        let configPath = directory.path("config.toml")
        let bundleId = try #require(try db.storeApp()).bundleId
        try """
        [appstore]
        issuer_id = "57246542-96fe"
        key_id = "2X9R4HXF34"
        bundle_id = "\(bundleId)"
        private_key = "AuthKey.p8"

        \(catalogue)
        """.write(toFile: configPath, atomically: true, encoding: .utf8)
        return Setup(
            directory: directory, db: db, storePath: storePath, configPath: configPath, key: key, bundleId: bundleId)
    }

    /// A subscription of `ownership` (the latest transaction's), and its latest transaction's id and product.
    static func subscription(_ db: AppDatabase, ownership: String, hadIntro: Bool? = nil) throws -> (String, String, String) {
        try db.writer.read { db in
            var sql = """
                SELECT t.originalTransactionId, t.transactionId, t.productId FROM "transaction" t
                WHERE t.inAppOwnershipType = ? AND t.purchaseDate = (SELECT MAX(purchaseDate) FROM "transaction" x
                    WHERE x.originalTransactionId = t.originalTransactionId)
                """
            if let hadIntro {
                sql += " AND \(hadIntro ? "" : "NOT ")EXISTS (SELECT 1 FROM \"transaction\" i "
                sql += "WHERE i.originalTransactionId = t.originalTransactionId AND i.offerType = 1)"
                sql += " AND t.appAccountToken IS NULL"
            }
            sql += " ORDER BY t.originalTransactionId LIMIT 1"
            let row = try #require(try Row.fetchOne(db, sql: sql, arguments: [ownership]))
            return (row[0], row[1], row[2])
        }
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func theFlagsOfferIsSignedVerifiablyWithAFreshNonceEachTimeAndRecorded() throws {
        let setup = try Self.setUp(catalogue: "[offers.retention]\n\"*\" = \"promotional:save-30\"")
        defer { setup.directory.remove() }
        let (id, _, product) = try Self.subscription(setup.db, ownership: "PURCHASED")
        try setup.db.setFlags(.init(offer: .retention, ids: [id], operatorName: "ana"), at: Instant(Date()))

        let first = try setup.run(["offer", "sign", id, "--username", "Alice@Example.COM", "--operator", "bo"])
        #expect(first.status == 0, "\(first.stderr)")
        let json = try Self.object(first.stdout)
        #expect(Set(json.keys) == ["productId", "offerIdentifier", "keyIdentifier", "nonce", "timestamp", "signature"])
        #expect(json["productId"] as? String == product)
        #expect(json["offerIdentifier"] as? String == "save-30")
        #expect(json["keyIdentifier"] as? String == "2X9R4HXF34")
        let nonce = try #require(json["nonce"] as? String)
        let timestamp = try #require((json["timestamp"] as? NSNumber)?.int64Value)
        let payload = [setup.bundleId, "2X9R4HXF34", product, "save-30", "alice@example.com", nonce, String(timestamp)]
            .joined(separator: "\u{2063}")
        let signatureText = try #require(json["signature"] as? String)
        let der = try #require(Data(base64Encoded: signatureText))
        #expect(
            setup.key.publicKey.isValidSignature(
                try P256.Signing.ECDSASignature(derRepresentation: der), for: Data(payload.utf8)))

        let second = try setup.run(["offer", "sign", id, "--format", "jws", "--operator", "bo"])
        #expect(second.status == 0, "\(second.stderr)")
        let jwsJSON = try Self.object(second.stdout)
        #expect(Set(jwsJSON.keys) == ["productId", "offerIdentifier", "jws"])
        let served = try setup.db.servedOffers(originalTransactionId: id)
        #expect(served.map(\.format) == ["signature", "jws"])
        #expect(served.map(\.offerIdentifier) == ["save-30", "save-30"])
        #expect(served.map(\.client) == ["bo", "bo"])
        #expect(served.allSatisfy { $0.flag == .retention })
        #expect(served[0].nonce == nonce)
        #expect(served[1].nonce != nonce)

        let listed = try Subdash.run(["offers", "served", "--format", "csv", "--db", setup.storePath])
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "at,originalTransactionId,flag,offerKind,offerIdentifier,productId,format,client")
        #expect(
            lines.dropFirst().map { $0.split(separator: ",").dropFirst().joined(separator: ",") } == [
                "\(id),retention,promotional,save-30,\(product),signature,bo",
                "\(id),retention,promotional,save-30,\(product),jws,bo",
            ])
    }

    @Test func theCampaignsReportCountsFlagsAndServedOffers() throws {
        let setup = try Self.setUp(catalogue: "[offers.retention]\n\"*\" = \"promotional:save-30\"")
        defer { setup.directory.remove() }
        let ids = try setup.db.writer.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT originalTransactionId FROM "transaction" WHERE inAppOwnershipType = 'PURCHASED'
                    ORDER BY 1 LIMIT 3
                    """)
        }
        try setup.db.setFlags(.init(offer: .retention, ids: ids, operatorName: "ana"), at: Instant(Date()))
        #expect(try setup.run(["offer", "sign", ids[0], "--operator", "bo"]).status == 0)
        let run = try setup.run([
            "report", "campaigns", "--from", "2026-01-01", "--to", "2100-01-01", "--as-of", "2100-01-01", "--format", "json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout.contains(
                """
                "campaigns":[{"flag":"retention","offerKind":"promotional","offerIdentifier":"save-30","flagged":3,"served":1,\
                "redeemed":0,"converted":0,"lapsed":0,"pending":0,
                """))
        let table = try setup.run(["report", "campaigns", "--from", "2026-01-01", "--to", "2100-01-01", "--as-of", "2100-01-01"])
        #expect(table.stdout.contains("retention  promotional:save-30"), "\(table.stdout)")
        let served = try setup.run([
            "report", "campaigns", "--from", "2026-01-01", "--to", "2100-01-01", "--as-of", "2100-01-01", "--members", "served",
            "--format", "csv",
        ])
        let customer = try setup.db.customer(of: ids[0])
        #expect(
            served.stdout
                == "flag,offer,originalTransactionId,email,userId,appAccountToken\n"
                + "retention,promotional:save-30,\(ids[0]),\(customer.email ?? ""),\(customer.userId ?? ""),\(customer.appAccountToken ?? "")\n"
        )
    }

    /// The claims of the JWS `offer sign --format jws` prints for `id`.
    static func jwsClaims(_ setup: Setup, _ id: String) throws -> [String: Any] {
        let run = try setup.run(["offer", "sign", id, "--offer-id", "by-hand", "--format", "jws", "--operator", "bo"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try Self.object(run.stdout)
        let jws = try #require(json["jws"] as? String)
        let parts = jws.split(separator: ".")
        let claimsData = try #require(OfferSignerTests.fromBase64URL(parts[1]))
        return try #require(try JSONSerialization.jsonObject(with: claimsData) as? [String: Any])
    }

    @Test func theJWSNamesTheLatestTransactionWhenTheStoreKnowsNoAppTransactionId() throws {
        let setup = try Self.setUp(catalogue: "")
        defer { setup.directory.remove() }
        let (id, latest, product) = try Self.subscription(setup.db, ownership: "PURCHASED")
        try setup.db.writer.write { db in
            try db.execute(
                sql: #"UPDATE "transaction" SET appTransactionId = NULL WHERE originalTransactionId = ?"#, arguments: [id])
            try db.execute(sql: "UPDATE renewalFact SET appTransactionId = NULL WHERE originalTransactionId = ?", arguments: [id])
        }
        let claims = try Self.jwsClaims(setup, id)
        #expect(claims["transactionId"] as? String == latest)
        #expect(claims["productId"] as? String == product)
        #expect(claims["offerIdentifier"] as? String == "by-hand")
        #expect(claims["aud"] as? String == "promotional-offer")
        #expect(try setup.db.servedOffers(originalTransactionId: id).map(\.flag) == [nil])
    }

    @Test func theJWSNamesTheAppTransactionIdFromRenewalInfoElseFromATransaction() throws {
        let setup = try Self.setUp(catalogue: "")
        defer { setup.directory.remove() }
        let (id, latest, _) = try Self.subscription(setup.db, ownership: "PURCHASED")
        // Apple's appTransactionId on the first transaction only (not the latest one): it names the customer.
        try setup.db.writer.write { db in
            try db.execute(sql: "UPDATE renewalFact SET appTransactionId = NULL WHERE originalTransactionId = ?", arguments: [id])
            try db.execute(
                sql: #"UPDATE "transaction" SET appTransactionId = NULL WHERE originalTransactionId = ?"#, arguments: [id])
            try db.execute(
                sql: """
                    UPDATE "transaction" SET appTransactionId = '704289572938475123' WHERE transactionId =
                        (SELECT transactionId FROM "transaction" WHERE originalTransactionId = ? ORDER BY purchaseDate LIMIT 1)
                    """, arguments: [id])
        }
        #expect(try Self.jwsClaims(setup, id)["transactionId"] as? String == "704289572938475123")
        #expect(latest != "704289572938475123")

        // The latest renewal info carrying one wins over the transactions'.
        try setup.db.writer.write { db in
            try db.execute(
                sql: """
                    UPDATE renewalFact SET appTransactionId = '704289572938475999' WHERE originalTransactionId = ?1
                        AND instant = (SELECT MAX(instant) FROM renewalFact WHERE originalTransactionId = ?1)
                    """, arguments: [id])
            #expect(db.changesCount == 1)
        }
        #expect(try Self.jwsClaims(setup, id)["transactionId"] as? String == "704289572938475999")
    }

    @Test func nothingIsSignedWithoutAnOfferForTheFlagOrForAFamilyMember() throws {
        let setup = try Self.setUp(catalogue: "[offers.winBack]\n\"*\" = \"winBack:wb-50\"")
        defer { setup.directory.remove() }
        let (id, _, product) = try Self.subscription(setup.db, ownership: "PURCHASED")
        let none = try setup.run(["offer", "sign", id, "--operator", "bo"])
        #expect(none.status == 1)
        #expect(none.stderr.contains("subdash: \(id) has no offer flag: give --offer-id, or flag it first"))

        try setup.db.setFlags(.init(offer: .loyalty, ids: [id], operatorName: "ana"), at: Instant(Date()))
        let noOffer = try setup.run(["offer", "sign", id, "--operator", "bo"])
        #expect(
            noOffer.stderr.contains(
                "the catalogue has no offer for loyalty on \(product): add one under [offers.loyalty] in the configuration file, or give --offer-id"
            ))

        try setup.db.setFlags(.init(offer: .loyalty, ids: [id], clear: true, operatorName: "ana"), at: Instant(Date()))
        try setup.db.setFlags(.init(offer: .winBackOffer, ids: [id], operatorName: "ana"), at: Instant(Date()))
        let winBack = try setup.run(["offer", "sign", id, "--operator", "bo"])
        #expect(
            winBack.stderr.contains(
                "winBack on \(product) means winBack:wb-50: StoreKit presents a win-back offer without a signature"))

        let (shared, _, _) = try Self.subscription(setup.db, ownership: "FAMILY_SHARED")
        let family = try setup.run(["offer", "sign", shared, "--offer-id", "x", "--operator", "bo"])
        #expect(family.status == 1)
        #expect(family.stderr.contains("\(shared) is family-shared: only the family organizer who pays can redeem an offer"))
        #expect(try setup.db.servedOffers().isEmpty)
    }

    @Test func nothingIsSignedForAnotherAppThanTheStoreHolds() throws {
        let setup = try Self.setUp(catalogue: "")
        defer { setup.directory.remove() }
        let (id, _, _) = try Self.subscription(setup.db, ownership: "PURCHASED")
        let app = try #require(try setup.db.storeApp()).bundleId
        let run = try setup.run(["offer", "sign", id, "--offer-id", "x", "--bundle-id", "com.example.other", "--operator", "bo"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("the store holds \(app); the key signs for com.example.other: nothing signed"))
        #expect(try setup.db.servedOffers().isEmpty)
    }

    @Test func introductoryEligibilityFollowsTheGroupsHistory() throws {
        let setup = try Self.setUp(catalogue: "")
        defer { setup.directory.remove() }
        for hadIntro in [true, false] {
            let (id, latest, product) = try Self.subscription(setup.db, ownership: "PURCHASED", hadIntro: hadIntro)
            let run = try setup.run(["offer", "intro-eligibility", id])
            #expect(run.status == 0, "\(run.stderr)")
            let json = try Self.object(run.stdout)
            #expect(json["allowIntroductoryOffer"] as? Bool == !hadIntro)
            #expect(json["transactionId"] as? String == latest)
            #expect(json["productId"] as? String == product)
            let jws = try #require(json["jws"] as? String)
            let (_, claims) = try OfferSignerTests.decode(jws, key: setup.key)
            #expect(claims["allowIntroductoryOffer"] as? Bool == !hadIntro)
            #expect(claims["aud"] as? String == "introductory-offer-eligibility")
        }
    }
}

/// The catalogue against the store, and what a flag will mean.
@Suite struct OfferCatalogueCommandTests {
    @Test func anOfferNeverRedeemedIsAWarningAndTheOthersShowTheirRedemptions() throws {
        let probe = try SampleDataStore.shared()
        let (seenId, seenCount) = try probe.writer.read { db in
            let row = try #require(
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT offerIdentifier, COUNT(*) FROM "transaction" WHERE offerType = 2 AND offerIdentifier IS NOT NULL
                        GROUP BY 1 ORDER BY 1 LIMIT 1
                        """))
            return (row[0] as String, row[1] as Int)
        }
        let setup = try OfferCommandTests.setUp(
            catalogue: """
                [offers.retention]
                "*" = "promotional:\(seenId)"
                [offers.winBack]
                "com.example.monthly" = "winBack:brand-new"
                """)
        defer { setup.directory.remove() }
        let run = try setup.run(["offers", "catalogue", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr
                == "warning: winBack com.example.monthly: no stored transaction redeemed winBack:brand-new (offerType 4); "
                + "right for a new offer, else check the id\n")
        let json = try OfferCommandTests.object(run.stdout)
        let offers = try #require(json["offers"] as? [[String: Any]])
        #expect(offers.map { $0["flag"] as? String } == ["retention", "winBack"])
        #expect(offers.map { $0["offerIdentifier"] as? String } == [seenId, "brand-new"])
        #expect(offers.map { ($0["redemptions"] as? NSNumber)?.intValue } == [seenCount, 0])
    }

    @Test func flaggingSaysWhichOfferTheFlagMeansAndRequireOfferRefusesWithoutOne() throws {
        let setup = try OfferCommandTests.setUp(catalogue: "[offers.retention]\n\"*\" = \"promotional:save-30\"")
        defer { setup.directory.remove() }
        let (id, _, product) = try OfferCommandTests.subscription(setup.db, ownership: "PURCHASED")
        let refused = try setup.run(["flag", id, "--offer", "loyalty", "--require-offer", "--operator", "ana"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains(
                "--require-offer: the catalogue (\(setup.configPath)) has no offer for loyalty on \(product) (1 subscription); nobody was flagged"
            ))
        #expect(try setup.db.flags(originalTransactionId: id).isEmpty)

        let flagged = try setup.run(["flag", id, "--offer", "retention", "--require-offer", "--operator", "ana"])
        #expect(flagged.status == 0, "\(flagged.stderr)")
        #expect(
            flagged.stdout
                == "flagged for retention: 1 subscription as ana\nretention on \(product) means promotional:save-30 (1 subscription)\n"
        )
        #expect(try setup.db.flags(originalTransactionId: id).map(\.offer) == [.retention])

        // Without --require-offer a flag with no offer is set, and says so.
        let loose = try setup.run(["flag", id, "--offer", "loyalty", "--operator", "ana"])
        #expect(loose.status == 0)
        #expect(loose.stdout.contains("loyalty on \(product) means no offer yet: the catalogue has none (1 subscription)"))
    }
}
