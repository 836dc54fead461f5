import Foundation
import GRDB
import LifecycleSimulator
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

/// `subdash generate-redemptions`: simulated customers redeem served offers, and importing what it
/// writes moves `report campaigns` (README, "Offers that reach the customer").
@Suite struct OfferRedemptionsTests {
    static func subject(_ id: String, offer: String, kind: String = "promotional", servedAt: String) -> ServedOfferSubject {
        ServedOfferSubject(
            originalTransactionId: id, offerKind: kind, offerIdentifier: offer, servedAt: day(servedAt),
            productId: "pro.monthly", subscriptionGroupIdentifier: "g1", bundleId: "com.example.app", appAppleId: nil,
            environment: "Production", appAccountToken: nil, appTransactionId: nil, latestPurchase: day("2025-01-01"),
            latestExpires: day("2025-02-01"), originalPurchaseDate: day("2024-06-01"))
    }

    /// The middle segment of a compact JWS, decoded as a JSON object.
    static func payload(_ jws: String) throws -> [String: Any] {
        var text = String(try #require(jws.split(separator: ".").dropFirst().first))
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        let data = try #require(Data(base64Encoded: text))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func redemptionsReferenceTheServedOffersAfterTheyWereServed() throws {
        // Ten subscriptions, each served its own offer (a win-back one for the last); 7 was served twice.
        var served = (0..<10).map { n in
            Self.subject(
                "10\(n)", offer: "offer-\(n)", kind: n == 9 ? "winBack" : "promotional",
                servedAt: "2025-03-0\(1 + n % 5)T12:00:00Z")
        }
        served.append(Self.subject("107", offer: "offer-7-again", servedAt: "2025-03-08T12:00:00Z"))
        let generator = ServedOfferRedemptions(seed: 7, share: 0.5, convertedShare: 1, until: day("2025-06-01"))
        let (considered, chosen) = generator.plan(served)
        #expect(considered == 10)
        // A deterministic share: the same choices every time, some but not all redeemed.
        #expect(chosen.map(\.1) == generator.plan(served).chosen.map(\.1))
        #expect((1...9).contains(chosen.count), "\(chosen.count)")
        for (subject, redemption) in chosen {
            // Each redeems its subscription's latest served offer, within a day of the serving.
            let latest = try #require(
                served.filter { $0.originalTransactionId == redemption.originalTransactionId }.max { $0.servedAt < $1.servedAt })
            #expect(subject == latest)
            #expect(redemption.offerIdentifier == latest.offerIdentifier)
            #expect(redemption.offerType == (latest.offerKind == "winBack" ? 4 : 2))
            #expect(redemption.at > latest.servedAt && redemption.at <= latest.servedAt.adding(days: 1))
            // Then monthly paid periods up to June: 2 or 3.
            #expect((2...3).contains(redemption.paidPeriods), "\(redemption)")
        }

        // The documents: one OFFER_REDEEMED per redemption whose signed transaction carries the
        // served offer, then DID_RENEW without an offer.
        let directory = try TemporaryDirectory("redemptions")
        defer { directory.remove() }
        let summary = try generator.write(served, into: URL(fileURLWithPath: directory.path("out")))
        #expect(summary.redemptions == chosen.map(\.1))
        let text = try String(contentsOfFile: directory.path("out/v2/notifications-0001.ndjson"), encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.count == summary.documents)
        #expect(summary.documents == chosen.count + chosen.map(\.1.paidPeriods).reduce(0, +))
        var redeemed: [String: String] = [:]
        for line in lines {
            let body = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            let notification = try Self.payload(try #require(body["signedPayload"]))
            let data = try #require(notification["data"] as? [String: Any])
            let transaction = try Self.payload(try #require(data["signedTransactionInfo"] as? String))
            let id = try #require(transaction["originalTransactionId"] as? String)
            if notification["notificationType"] as? String == "OFFER_REDEEMED" {
                redeemed[id] = transaction["offerIdentifier"] as? String
                #expect(transaction["offerType"] as? Int == (id == "109" ? 4 : 2))
            } else {
                #expect(notification["notificationType"] as? String == "DID_RENEW")
                #expect(transaction["offerType"] == nil)
            }
        }
        #expect(redeemed == Dictionary(uniqueKeysWithValues: chosen.map { ($0.1.originalTransactionId, $0.1.offerIdentifier) }))
        #expect(FileManager.default.fileExists(atPath: directory.path("out/test-root.pem")))
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.path("out/v2/notifications-0001.ndjson"))
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func importedRedemptionsMoveReportCampaigns() throws {
        let setup = try OfferCommandTests.setUp(catalogue: "[offers.retention]\n\"*\" = \"promotional:save-30\"")
        defer { setup.directory.remove() }
        let ids = try setup.db.writer.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT originalTransactionId FROM "transaction" WHERE inAppOwnershipType = 'PURCHASED'
                    ORDER BY 1 LIMIT 3
                    """)
        }
        #expect(ids.count == 3)
        let flagged = day("2026-02-01T09:00:00Z")
        try setup.db.setFlags(.init(offer: .retention, ids: ids, operatorName: "ana"), at: flagged)
        for id in ids {
            let product = try #require(try setup.db.offerSubject(originalTransactionId: id)).productId
            try setup.db.recordServed(
                ServedOffer(
                    originalTransactionId: id, flag: .retention, flagAt: flagged, offerKind: "promotional",
                    offerIdentifier: "save-30", productId: product, format: "signature", nonce: "nonce-\(id)",
                    client: "127.0.0.1", at: day("2026-02-01T10:00:00Z")))
        }
        let report = [
            "report", "campaigns", "--from", "2026-01-01", "--to", "2026-03-01", "--as-of", "2026-06-01", "--format", "csv",
        ]
        let before = try setup.run(report)
        #expect(before.status == 0, "\(before.stderr)")
        #expect(
            before.stdout.split(separator: "\n").last?.hasPrefix("retention,promotional,save-30,3,3,0,0,0,") == true,
            "\(before.stdout)")

        let out = setup.directory.path("redemptions")
        let generated = try Subdash.run([
            "generate-redemptions", "--db", setup.storePath, "--share", "1", "--converted-share", "1", "--until", "2026-06-01",
            "--out", out,
        ])
        #expect(generated.status == 0, "\(generated.stderr)")
        #expect(
            generated.stdout.hasPrefix("3 of 3 subscriptions with a served offer redeem it (3 then pay"), "\(generated.stdout)")
        let imported = try Subdash.run(["import", "--db", setup.storePath, "--trust-root", out + "/test-root.pem", out])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect((imported.stdout + imported.stderr).contains(" 0 rejected"), "\(imported.stderr)")

        let after = try setup.run(report)
        #expect(after.status == 0, "\(after.stderr)")
        // Flagged 3, served 3, redeemed 3, converted 3, lapsed 0, pending 0.
        #expect(
            after.stdout.split(separator: "\n").last?.hasPrefix("retention,promotional,save-30,3,3,3,3,0,0,") == true,
            "\(after.stdout)")
    }
}
