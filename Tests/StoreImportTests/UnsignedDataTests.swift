import AppStorePayloads
import Foundation
import GRDB
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

@testable import StoreImport

/// Unsigned v1 data against signed v2 data, and the store's app, on copies of the imported SampleData.
@Suite struct UnsignedDataTests {
    static let subject = "2000000000000000"
    /// SampleData's shared secret (the simulator's `password`).
    static let sharedSecret = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"

    /// A v1 DID_RENEW adding a month to `subject` after its signed history ends.
    static func forgedRenewal(password: String) -> String {
        #"{"notification_type":"DID_RENEW","password":"\#(password)","environment":"PROD","bid":"com.example.subdash","#
            + #""unified_receipt":{"environment":"Production","latest_receipt_info":[{"transaction_id":"9999000000000001","#
            + #""original_transaction_id":"\#(subject)","product_id":"com.example.pro.monthly","purchase_date_ms":"1765684867000","#
            + #""expires_date_ms":"1768363267000"}],"pending_renewal_info":[{"original_transaction_id":"\#(subject)","#
            + #""product_id":"com.example.pro.monthly","auto_renew_product_id":"com.example.pro.monthly","auto_renew_status":"1"}]}}"#
    }

    /// A writable copy of the imported SampleData (signed documents only), in a directory to remove.
    func importSample() throws -> (AppDatabase, TemporaryDirectory) {
        let directory = try TemporaryDirectory("unsigned")
        return (try SampleDataStore.copyFile(.signedOnly, to: directory.path("store.sqlite")), directory)
    }

    func importText(_ text: String, into db: AppDatabase, sharedSecret: String? = nil) throws -> (ImportSummary, [String]) {
        let directory = try TemporaryDirectory("v1")
        defer { directory.remove() }
        let file = directory.path("renewal.json")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let lines = Lines()
        let importer = Importer.appStore(
            database: db, verifier: try SampleDataStore.verifier(), sharedSecret: sharedSecret,
            report: { lines.append($0) })
        return (try importer.importPaths([file]), lines.all.map { $0.replacingOccurrences(of: file, with: "FILE") })
    }

    func figures(_ db: AppDatabase) throws -> (String?, Int, Int) {
        let analytics = SubscriberAnalytics(database: db)
        let report = try analytics.subscriber(originalTransactionId: Self.subject, asOf: Instant(parsing: "2026-01-01")!)
        return (report.state?.rawValue, report.paidPeriods, report.unverifiedDocuments)
    }

    @Test func anUnsignedRenewalDoesNotChangeASignedSubscription() throws {
        let (db, directory) = try importSample()
        defer { directory.remove() }
        let before = try figures(db)
        #expect(before.0 == "expired")

        let (summary, lines) = try importText(Self.forgedRenewal(password: "made-up"), into: db)
        #expect(lines == [])
        #expect(summary.unverified == 1)
        #expect(summary.applied == 0)
        #expect(summary.line.contains("0 applied, 0 duplicates, 0 rejected, 1 unverified, not applied to a signed subscription;"))
        let after = try figures(db)
        #expect(after.0 == before.0)
        #expect(after.1 == before.1)
        #expect(after.2 == before.2 + 1)
    }

    @Test func theSharedSecretTrustsMatchingPasswordsAndRejectsOthers() throws {
        let (db, directory) = try importSample()
        defer { directory.remove() }
        let before = try figures(db)

        let (wrong, lines) = try importText(Self.forgedRenewal(password: "made-up"), into: db, sharedSecret: Self.sharedSecret)
        #expect(wrong.rejected == 1)
        #expect(
            lines == [
                "FILE:line 1: password: does not match the shared secret (--shared-secret): not sent by the App Store for this app"
            ])
        #expect(try figures(db) == before)

        let (right, _) = try importText(
            Self.forgedRenewal(password: Self.sharedSecret), into: db, sharedSecret: Self.sharedSecret)
        #expect(right.applied == 1)
        let after = try figures(db)
        #expect(after.0 == "standard")
        #expect(after.1 == before.1 + 1)

        // The secret is not archived.
        let body = try db.writer.read { db in
            try String.fetchAll(db, sql: "SELECT sha256 FROM document WHERE format = 'v1'")
        }
        #expect(!body.isEmpty)
        for sha in body {
            let text = try db.archivedBody(sha256: sha).map { String(decoding: $0, as: UTF8.self) } ?? ""
            #expect(text.contains(#""password":"********************************""#))
            #expect(!text.contains(Self.sharedSecret))
        }
    }

    @Test func signedDataForAnotherAppIsRejectedNamingBoth() throws {
        let (db, directory) = try importSample()
        defer { directory.remove() }
        #expect(try db.storeApp()?.bundleId == "com.example.subdash")
        #expect(throws: StoreError.self) { try db.recordStoreApp(AppIdentity(bundleId: "com.other.app")) }
    }

    @Test func theFirstSignedDocumentNamesTheStoresApp() throws {
        let db = try AppDatabase.inMemory()
        func document(_ n: Int, _ app: AppIdentity) -> IncomingDocument {
            var facts = DocumentFacts(
                format: .v2Notification,
                transactions: [
                    TransactionFact(
                        transactionId: "t\(n)", originalTransactionId: "o\(n)", productId: "p",
                        purchaseDate: Instant(parsing: "2025-01-01")!, expiresDate: Instant(parsing: "2025-02-01")!,
                        signedDate: Instant(parsing: "2025-01-01")!)
                ])
            facts.app = app
            return IncomingDocument(sha256: "sha\(n)", source: "f:line \(n)", byteCount: 1, body: nil, content: .facts(facts))
        }
        let ours = AppIdentity(bundleId: "com.example.subdash", appAppleId: 1_600_000_000)
        let result = try db.apply([
            document(1, ours),
            document(2, AppIdentity(bundleId: "com.other.app", appAppleId: 42)),
            document(3, AppIdentity(bundleId: "com.example.subdash", appAppleId: 7)),
            document(4, AppIdentity(bundleId: "com.example.subdash")),
        ])
        #expect(result.applied == 2)
        #expect(
            result.rejections.map { "\($0.source): \($0.reason)" } == [
                "f:line 2: for the app com.other.app (appAppleId 42), but this store holds com.example.subdash (appAppleId 1600000000) (one app per store: use another --db)",
                "f:line 3: for the app com.example.subdash (appAppleId 7), but this store holds com.example.subdash (appAppleId 1600000000) (one app per store: use another --db)",
            ])
        #expect(try db.storeApp() == ours)
    }

    @Test func rejectedInputIsArchivedAsABoundedPrefix() throws {
        let db = try AppDatabase.inMemory()
        let junk = String(repeating: "junk ", count: 4000)
        let (summary, lines) = try importText(junk + "\n" + junk + "x\n", into: db)
        #expect(summary.rejected == 2)
        #expect(lines.count == 2)
        let rows = try db.writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT sha256, byteCount, length(body) AS kept, bodyEncoding FROM document ORDER BY byteCount")
        }
        #expect(rows.map { $0["byteCount"] as Int } == [19999, 20001])
        #expect(rows.map { $0["kept"] as Int } == [4096, 4096])
        let prefix = try db.archivedBody(sha256: rows[0]["sha256"])
        #expect(prefix == Data(junk.utf8.prefix(4096)))
    }
}
