import AppStorePayloads
import Foundation
import GRDB
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

@testable import StoreImport

/// What the store makes of documents that try to change what it holds: the app named by unsigned
/// fields or by one signed part among others, a notificationUUID reused for other content,
/// unsigned v1 data set aside, formats Apple's own fixtures use.
@Suite struct DocumentIntegrityTests {
    // MARK: - Documents

    static func base64url(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// A compact JWS that is not signed: these tests import with verification off (the app
    /// check does not depend on it).
    static func jws(_ payload: String) -> String {
        base64url(#"{"alg":"ES256","x5c":[]}"#) + "." + base64url(payload) + "."
    }

    static func transaction(_ id: String, bundleId: String) -> String {
        jws(
            #"{"transactionId":"\#(id)","originalTransactionId":"\#(id)","productId":"com.example.pro.monthly","#
                + #""purchaseDate":1735689600000,"expiresDate":1738368000000,"signedDate":1735689600000,"#
                + #""environment":"Production","bundleId":"\#(bundleId)"}"#)
    }

    static func notification(
        _ uuid: String, type: String = "DID_RENEW", bundleId: String, appAppleId: Int64? = nil, transaction: String? = nil
    ) -> String {
        let apple = appAppleId.map { #","appAppleId":\#($0)"# } ?? ""
        let signed = transaction.map { #","signedTransactionInfo":"\#($0)""# } ?? ""
        return jws(
            #"{"notificationType":"\#(type)","notificationUUID":"\#(uuid)","signedDate":1735689600000,"#
                + #""data":{"bundleId":"\#(bundleId)","environment":"Production"\#(apple)\#(signed)}}"#)
    }

    /// The three App Store Server API shapes, each with `top` as its unsigned top level and one
    /// signed transaction for `bundleId`.
    static func shapes(top: String, bundleId: String, id: String) -> [String: String] {
        let t = transaction(id, bundleId: bundleId)
        return [
            "transaction history": #"{\#(top)"hasMore":false,"signedTransactions":["\#(t)"]}"#,
            "status response":
                #"{\#(top)"data":[{"subscriptionGroupIdentifier":"g","lastTransactions":[{"status":1,"originalTransactionId":"\#(id)","signedTransactionInfo":"\#(t)"}]}]}"#,
            "notification history":
                #"{\#(top)"hasMore":false,"notificationHistory":[{"signedPayload":"\#(notification("n-" + id, bundleId: bundleId, transaction: t))"}]}"#,
        ]
    }

    static func importText(_ text: String, into db: AppDatabase) throws -> (ImportSummary, [String]) {
        let directory = try TemporaryDirectory("integrity")
        defer { directory.remove() }
        let file = directory.path("document.json")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let lines = Lines()
        let importer = Importer.appStore(database: db, verifier: UnverifiedJWS(), report: { lines.append($0) })
        return (try importer.importPaths([file]), lines.all.map { $0.replacingOccurrences(of: file, with: "FILE") })
    }

    // MARK: - The app of App Store Server API documents

    @Test(arguments: ["transaction history", "status response", "notification history"])
    func anotherAppsSignedPartsAreRejectedWhateverTheTopLevelSays(shape: String) throws {
        let db = try AppDatabase.inMemory()
        try db.recordStoreApp(AppIdentity(bundleId: "com.victim.app"))
        for top in [#""bundleId":"com.victim.app","environment":"Production","#, ""] {
            let document = try #require(Self.shapes(top: top, bundleId: "com.other.app", id: "100")[shape])
            let (summary, lines) = try Self.importText(document, into: db)
            #expect(summary.rejected == 1, "\(shape) under \(top)")
            #expect(
                lines == [
                    "FILE:line 1: for the app com.other.app, but this store holds com.victim.app (one app per store: use another --db)"
                ])
        }
        #expect(try db.writer.read { db in try Int.fetchOne(db, sql: #"SELECT COUNT(*) FROM "transaction""#) } == 0)
    }

    @Test(arguments: ["transaction history", "status response", "notification history"])
    func aForgedTopLevelCannotNameAFreshStoresApp(shape: String) throws {
        let db = try AppDatabase.inMemory()
        let forged = try #require(
            Self.shapes(top: #""bundleId":"com.evil.app","appAppleId":666,"#, bundleId: "com.victim.app", id: "100")[shape])
        #expect(try Self.importText(forged, into: db).0.applied == 1)
        #expect(try db.storeApp() == AppIdentity(bundleId: "com.victim.app"))
        // Genuine documents for the app are still taken.
        let genuine = try #require(Self.shapes(top: "", bundleId: "com.victim.app", id: "200")[shape])
        let (summary, lines) = try Self.importText(genuine, into: db)
        #expect(lines == [])
        #expect(summary.applied == 1)
    }

    @Test func anExternalPurchaseTokenRecordsTheAppleIdAndHistoriesForAnotherAreRejected() throws {
        let db = try AppDatabase.inMemory()
        let token = String(
            decoding: try Data(
                contentsOf: URL(fileURLWithPath: SampleData.examples + "/v2/EXTERNAL_PURCHASE_TOKEN-CREATED.json")),
            as: UTF8.self)
        #expect(try Self.importText(token, into: db).0.applied == 1)
        #expect(try db.storeApp() == AppIdentity(bundleId: "com.example.app", appAppleId: 1_234_567_890))
        let other =
            #"{"hasMore":false,"notificationHistory":[{"signedPayload":"\#(Self.notification("u-other", bundleId: "com.example.app", appAppleId: 42))"}]}"#
        let (summary, lines) = try Self.importText(other, into: db)
        #expect(summary.rejected == 1)
        #expect(
            lines == [
                "FILE:line 1: for the app com.example.app (appAppleId 42), but this store holds com.example.app (appAppleId 1234567890) (one app per store: use another --db)"
            ])
    }

    // MARK: - Transaction info and bare signed parts

    @Test func aTransactionInfoResponseAndABareTransactionAreApplied() throws {
        let db = try AppDatabase.inMemory()
        let (info, infoLines) = try Self.importText(
            #"{"signedTransactionInfo":"\#(Self.transaction("300", bundleId: "com.a"))"}"#, into: db)
        #expect(infoLines == [])
        #expect(info.applied == 1)
        let (bare, bareLines) = try Self.importText(Self.transaction("301", bundleId: "com.a"), into: db)
        #expect(bareLines == [])
        #expect(bare.applied == 1)
        let formats = try db.writer.read { db in try String.fetchAll(db, sql: "SELECT format FROM document ORDER BY id") }
        #expect(formats == ["transactionInfo", "transactionInfo"])
        #expect(try db.subscriptions(matching: "300") == ["300"])
        #expect(try db.subscriptions(matching: "301") == ["301"])
        #expect(try db.storeApp() == AppIdentity(bundleId: "com.a"))
    }

    // MARK: - A notificationUUID reused for other content

    @Test func aNotificationUUIDStoredWithOtherContentIsAConflictNotADuplicate() throws {
        let db = try AppDatabase.inMemory()
        let first =
            #"{"signedPayload":"\#(Self.notification("same-uuid", type: "DID_RENEW", bundleId: "com.a", transaction: Self.transaction("400", bundleId: "com.a")))"}"#
        let second =
            #"{"signedPayload":"\#(Self.notification("same-uuid", type: "REFUND", bundleId: "com.a", transaction: Self.transaction("401", bundleId: "com.a")))"}"#
        #expect(try Self.importText(first, into: db).0.applied == 1)
        // The same notification again is a duplicate.
        let (again, againLines) = try Self.importText(first, into: db)
        #expect(again.duplicates == 1 && again.conflicts == 0 && againLines == [])

        let (summary, lines) = try Self.importText(second, into: db)
        #expect(summary.duplicates == 0)
        #expect(summary.applied == 0)
        #expect(summary.conflicts == 1)
        #expect(summary.line.contains(", 1 in conflict (a notificationUUID stored already with other content: the first kept);"))
        let sha = try db.writer.read { db in
            try String.fetchOne(db, sql: "SELECT documentSha256 FROM notification WHERE notificationId = 'same-uuid'")
        }
        let expected =
            "FILE:line 1: conflict: notificationUUID same-uuid is stored already as DID_RENEW for 400 (Production) (document \(sha!.prefix(12))…); this one, REFUND for 401 (Production), is archived, not applied"
        #expect(lines == [expected])
        // The first is kept; the second is archived, its facts not applied.
        let kept = try db.writer.read { db in
            try String.fetchAll(db, sql: "SELECT notificationType FROM notification")
        }
        #expect(kept == ["DID_RENEW"])
        #expect(try db.subscriptions(matching: "401") == [])
        let outcomes = try db.writer.read { db in
            try String.fetchAll(db, sql: "SELECT outcome || ': ' || COALESCE(reason, '') FROM document ORDER BY id")
        }
        #expect(outcomes.count == 2)
        #expect(outcomes.last?.hasPrefix("rejected: conflict: notificationUUID same-uuid is stored already as DID_RENEW") == true)
    }

    @Test func aHistoryHoldingTwoNotificationsUnderOneUUIDReportsTheSecond() throws {
        let db = try AppDatabase.inMemory()
        let history =
            #"{"hasMore":false,"notificationHistory":[{"signedPayload":"\#(Self.notification("u1", type: "DID_RENEW", bundleId: "com.a"))"},"#
            + #"{"signedPayload":"\#(Self.notification("u1", type: "TEST", bundleId: "com.a"))"}]}"#
        let (summary, lines) = try Self.importText(history, into: db)
        #expect(summary.applied == 1)
        #expect(summary.conflicts == 1)
        #expect(lines.count == 1)
        let first = "FILE:line 1: conflict: notificationUUID u1 is stored already as DID_RENEW (Production)"
        #expect(lines.first?.hasPrefix(first) == true)
    }

    // MARK: - Unsigned v1 data set aside

    /// Without `--shared-secret` SampleData's v1 documents about subscriptions that also have
    /// signed data are set aside: the summary counts all of them (not only those whose signed data
    /// happened to be stored first), and says what they lack and what to pass.
    @Test func theSummaryCountsEveryUnverifiedDocumentSetAsideAndSaysWhatToPass() throws {
        let summary = try SampleDataStore.summary(.signedOnly)
        let db = try SampleDataStore.shared(.signedOnly)
        let (documents, subscriptions) = try db.writer.read { db -> (Int, Int) in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(DISTINCT documentSha256), COUNT(DISTINCT originalTransactionId) FROM unverifiedDocument u
                    WHERE EXISTS (SELECT 1 FROM renewalFact r WHERE r.originalTransactionId = u.originalTransactionId AND r.isV1 = 0)
                       OR EXISTS (SELECT 1 FROM "transaction" t WHERE t.originalTransactionId = u.originalTransactionId
                                  AND t.signedDate IS NOT NULL)
                    """)!
            return (row[0], row[1])
        }
        #expect(documents > 80)
        #expect(summary.unverified == documents)
        #expect(summary.subscriptionsMissingUnverifiedFacts == subscriptions)
        #expect(summary.documents == summary.applied + summary.duplicates + summary.unverified)
        #expect(
            summary.line.contains(
                "\(subscriptions) subscriptions with signed data lack the facts of unverified v1 documents: import them again with --shared-secret (the app's App Store shared secret) to apply them;"
            ))
        // With the shared secret nothing is set aside.
        let trusted = try SampleDataStore.summary(.sharedSecret)
        #expect(trusted.unverified == 0)
        #expect(!trusted.line.contains("--shared-secret"))
    }

    /// `subdash generate` prints the import that stores everything it wrote: with the shared
    /// secret of its v1 documents. The import the hint named before (the trust root alone) sets
    /// v1 data aside, and its summary now says so and what to pass.
    @Test func generatePrintsAnImportThatStoresEverythingItWrote() throws {
        let directory = try TemporaryDirectory("generate")
        defer { directory.remove() }
        let out = directory.path("sim")
        let generated = try Subdash.run(["generate", "--subscribers", "100", "--versions", "both", "--out", out])
        #expect(generated.status == 0, "\(generated.stderr)")
        let line = try #require(generated.stdout.split(separator: "\n").first { $0.hasPrefix("Import with: subdash import ") })
        let words = line.dropFirst("Import with: subdash ".count).split(separator: " ").map(String.init)
        #expect(words.contains("--shared-secret"))
        let imported = try Subdash.run(words + ["--db", directory.path("store.sqlite")])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains(" 0 rejected; "), "\(imported.stderr)")
        #expect(!imported.stderr.contains("unverified"), "\(imported.stderr)")

        let bare = try Subdash.run(["import", "--trust-root", out + "/test-root.pem", out, "--db", directory.path("bare.sqlite")])
        #expect(bare.stderr.contains(" unverified, not applied to a signed subscription; "), "\(bare.stderr)")
        #expect(
            bare.stderr.contains(
                "with signed data lack the facts of unverified v1 documents: import them again with --shared-secret"),
            "\(bare.stderr)")

        // A range into the future would generate purchases no import takes.
        let future = try Subdash.run(["generate", "--subscribers", "3", "--start", "2030-01", "--out", directory.path("future")])
        #expect(future.status != 0)
        #expect(future.stderr.contains("--start 2030-01 with --months 24 ends on 2032-01-01, in the future"), "\(future.stderr)")
    }
}
