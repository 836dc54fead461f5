import AppStorePayloads
import Foundation
import GRDB
import StoreImport
import SubscriberStore
import TestSupport
import Testing

/// What the listener answers for each thing the store can make of a document: the status Apple
/// (or a stranger) sees, its body, and the request log's line.
@Suite(.serialized) struct AnswerTests {
    static func logLines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// A store holding every signed (v2) document of SampleData: most of its v1 documents are
    /// about subscriptions that have signed data.
    static func storeWithSignedData() throws -> String {
        let path = ListenTests.temporaryPath("signed") + ".sqlite"
        let database = try AppDatabase.open(path: path)
        _ = try Importer.appStore(database: database, verifier: SampleDataStore.verifier(), report: { _ in })
            .importPaths([ListenTests.generated + "/v2"])
        return path
    }

    @Test func eachOutcomeHasItsStatusAndSaysItselfInTheAnswerAndTheLog() throws {
        let binary = try ListenTests.binary()
        let store = try Self.storeWithSignedData()
        let log = ListenTests.temporaryPath("answers") + ".ndjson"
        defer { ListenTests.remove(store, log) }
        // No --shared-secret: v1 notifications are unverified.
        let listener = try ListenerProcess(
            binary: binary, store: store, extra: ["--trust-root", ListenTests.trustRoot, "--log", log])
        let http = listener.http

        // Stored before: the import above holds every v2 document.
        let v2 = try ListenTests.v2.get()[0]
        let again = try http.post("/notifications", v2)
        #expect(again.status == 200 && again.body == "duplicate\n")

        // Unsigned v1 about subscriptions with signed data: kept in the archive, not applied. A
        // success for Apple (202 is one), and the answer says what it was.
        var notApplied: [Data] = []
        for body in try ListenTests.documents("v1", count: 200) {
            let answer = try http.post("/notifications", body)
            #expect(answer.status == 200 || answer.status == 202, "\(answer.status) \(answer.body)")
            if answer.status == 202 {
                #expect(
                    answer.body
                        == "stored, not applied: an unsigned v1 notification about a subscription that has signed data "
                        + "(start the listener with --shared-secret to verify v1 notifications)\n")
                notApplied.append(body)
            }
        }
        try #require(!notApplied.isEmpty, "SampleData's first v1 documents include some about signed subscriptions")
        // Listed as unverified for their subscription, as the import lists them.
        let sha = Importer.sha256Hex(notApplied[0])
        let listed = try AppDatabase.open(path: store).writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM unverifiedDocument WHERE documentSha256 = ?", arguments: [sha])
        }
        #expect(listed ?? 0 > 0)

        // Not decodable: rejected.
        let junk = try http.post("/notifications", Data("{\"hello\": 1}".utf8))
        #expect(junk.status == 400 && junk.body.hasPrefix("rejected: "))
        #expect(listener.stop().status == 0)

        let lines = try Self.logLines(log)
        let byOutcome = Dictionary(grouping: lines) { $0["outcome"] as? String ?? "" }
        #expect(byOutcome["duplicate"]?.first?["status"] as? Int == 200)
        let unverified = try #require(byOutcome["not applied"]?.first)
        #expect(unverified["status"] as? Int == 202)
        #expect((unverified["reason"] as? String)?.hasPrefix("an unsigned v1 notification about a subscription") == true)
        #expect(byOutcome["not applied"]?.count == notApplied.count)
        #expect(byOutcome["rejected"]?.first?["status"] as? Int == 400)
    }

    @Test func aSignedDocumentForAnotherAppIsRejectedWith400AndItsReason() throws {
        let binary = try ListenTests.binary()
        let store = ListenTests.temporaryPath("other-app") + ".sqlite"
        defer { ListenTests.remove(store) }
        // The store holds another app than SampleData's.
        let listener = try ListenerProcess(
            binary: binary, store: store, extra: ["--trust-root", ListenTests.trustRoot, "--bundle-id", "com.other.app"])
        let body = try ListenTests.v2.get()[0]
        for _ in 0..<2 {
            // Again: a retry is rejected again, never "duplicate".
            let answer = try listener.http.post("/notifications", body)
            #expect(answer.status == 400, "\(answer.body)")
            #expect(answer.body.hasPrefix("rejected: for the app "), "\(answer.body)")
            #expect(answer.body.contains("but this store holds com.other.app"))
        }
        #expect(try ListenTests.outcome(of: body, in: store) == "rejected")
        #expect(listener.stop().status == 0)
        #expect(listener.stderr.contains(#""outcome":"rejected""#))
        #expect(!listener.stderr.contains(#""outcome":"duplicate""#))
    }

    /// A compact JWS that is not signed, for a listener started with `--no-verify`.
    static func unsignedJWS(_ payload: String) -> String {
        func base64url(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return base64url(#"{"alg":"ES256","x5c":[]}"#) + "." + base64url(payload) + "."
    }

    /// A v2 notification of `type` about `transactionId`, under the notificationUUID `uuid`.
    static func notification(uuid: String, type: String, transactionId: String) -> Data {
        let transaction = unsignedJWS(
            #"{"transactionId":"\#(transactionId)","originalTransactionId":"\#(transactionId)","#
                + #""productId":"com.example.pro.monthly","purchaseDate":1735689600000,"expiresDate":1738368000000,"#
                + #""signedDate":1735689600000,"environment":"Production","bundleId":"com.example.app"}"#)
        let payload = unsignedJWS(
            #"{"notificationType":"\#(type)","notificationUUID":"\#(uuid)","signedDate":1735689600000,"#
                + #""data":{"bundleId":"com.example.app","environment":"Production","signedTransactionInfo":"\#(transaction)"}}"#)
        return Data(#"{"signedPayload":"\#(payload)"}"#.utf8)
    }

    @Test func aNotificationUUIDStoredWithOtherContentIsAConflictAnswered409() throws {
        let binary = try ListenTests.binary()
        let store = ListenTests.temporaryPath("conflict") + ".sqlite"
        defer { ListenTests.remove(store) }
        let listener = try ListenerProcess(binary: binary, store: store, extra: ["--no-verify"])
        let first = Self.notification(uuid: "same-uuid", type: "DID_RENEW", transactionId: "400")
        let other = Self.notification(uuid: "same-uuid", type: "REFUND", transactionId: "401")
        #expect(try listener.http.post("/notifications", first).status == 200)
        #expect(try listener.http.post("/notifications", first).body == "duplicate\n")
        for _ in 0..<2 {
            // Again: a conflict stays a conflict, never "duplicate".
            let answer = try listener.http.post("/notifications", other)
            #expect(answer.status == 409, "\(answer.status) \(answer.body)")
            #expect(
                answer.body.hasPrefix("conflict: notificationUUID same-uuid is stored already as DID_RENEW"), "\(answer.body)")
        }
        #expect(listener.stop().status == 0)
        #expect(listener.stderr.contains(#""outcome":"conflict""#))
        // The first is kept; the second's facts are not applied.
        let kept = try AppDatabase.open(path: store).writer.read { db in
            try String.fetchAll(db, sql: "SELECT notificationType FROM notification")
        }
        #expect(kept == ["DID_RENEW"])
    }
}
