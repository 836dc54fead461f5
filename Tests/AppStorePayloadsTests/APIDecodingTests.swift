import AppStorePayloads
import Foundation
import SubscriptionModel
import TestSupport
import Testing

/// verifyReceipt responses and App Store Server API responses.
@Suite struct APIDecodingTests {
    @Test func verifyReceiptResponse() throws {
        let facts = try Examples.decode("api/verifyReceipt.json")
        #expect(facts.format == .verifyReceipt)
        #expect(facts.notifications.isEmpty)
        // latest_receipt_info wins over receipt.in_app, in its own (unsorted) order.
        #expect(
            facts.transactions.map(\.transactionId) == [
                "1000000900000102", "1000000900000103", "1000000900000001", "1000000900000101",
            ])
        let r = try #require(facts.renewals.first)
        // A response has no instant: its renewal facts speak at the latest purchase of the subscription.
        #expect(r.instant == utc(2024, 3, 12, 9, 28))
        #expect(r.transactionId == "1000000900000103")
        #expect(r.autoRenewStatus == true)
        #expect(r.isV1)
    }

    @Test func verifyReceiptFallsBackToInApp() throws {
        let facts = try decode(
            #"""
            {"status":0,"environment":"Sandbox","receipt":{"in_app":[{"transaction_id":"5","original_transaction_id":"5",
             "product_id":"p","purchase_date_ms":"1700000000000","expires_date_ms":"1700600000000"}]}}
            """#)
        #expect(facts.transactions.map(\.transactionId) == ["5"])
        #expect(facts.transactions[0].environment == .sandbox)
    }

    @Test(arguments: [
        (
            21007,
            "verifyReceipt status 21007: this receipt is from the sandbox but was sent to production for verification (verify it against the sandbox); the response holds no receipt to import"
        ),
        (
            21004,
            "verifyReceipt status 21004: the shared secret does not match the one on file for the account; the response holds no receipt to import"
        ),
        (
            21150,
            "verifyReceipt status 21150: internal data access error at the App Store (try again later); the response holds no receipt to import"
        ),
    ])
    func verifyReceiptErrorStatus(status: Int, message: String) {
        #expect(rejection(#"{"status":\#(status)}"#) == message)
        #expect(rejection(#"{"status":\#(status),"environment":"Production","receipt":{}}"#) == message)
    }

    @Test func statusResponse() throws {
        let facts = try Examples.decode("api/StatusResponse.json")
        #expect(facts.format == .statusResponse)
        #expect(facts.transactions.map(\.transactionId) == ["2000000900000103"])
        let r = try #require(facts.renewals.first)
        #expect(r.instant == utc(2024, 5, 30, 10))
        #expect(r.transactionId == "2000000900000103")
        #expect(r.autoRenewStatus == true)
    }

    @Test func transactionHistory() throws {
        let facts = try Examples.decode("api/TransactionHistory.json")
        #expect(facts.format == .transactionHistory)
        #expect(facts.transactions.map(\.transactionId) == ["2000000900000101", "2000000900000102", "2000000900000103"])
        #expect(facts.transactions.allSatisfy { $0.price == 9990 && $0.environment == .production })
    }

    @Test func notificationHistoryKeepsV2NotificationIds() throws {
        let facts = try Examples.decode("api/NotificationHistory.json")
        #expect(facts.format == .notificationHistory)
        #expect(facts.notifications.map(\.notificationType) == ["DID_RENEW", "DID_CHANGE_RENEWAL_STATUS"])
        #expect(facts.notifications.allSatisfy { $0.format == .v2Notification })
        let direct = try Examples.decode("v2/DID_RENEW.json")
        #expect(facts.notifications[0] == direct.notifications[0])
        #expect(facts.transactions.count == 2 && facts.renewals.count == 2)
    }

    @Test func everySignedPartGoesThroughTheVerifier() {
        struct Refusing: SignatureVerifier {
            var verifiesSignatures: Bool { true }
            func payload(ofJWS jws: String) throws(PayloadError) -> Data {
                throw PayloadError("signature does not chain to a trusted root")
            }
        }
        for file in [
            "api/StatusResponse.json", "api/TransactionHistory.json", "api/NotificationHistory.json", "v2/DID_RENEW.json",
        ] {
            #expect(throws: PayloadError.self) { try Examples.decode(file, verifier: Refusing()) }
        }
        #expect(
            rejection(#"{"signedTransactions":["a.b.c"]}"#, verifier: Refusing())
                == "signedTransactions[0]: signature does not chain to a trusted root")
        #expect(
            rejection(#"{"notificationHistory":[{"signedPayload":"a.b.c"}]}"#, verifier: Refusing())
                == "notificationHistory[0].signedPayload: signature does not chain to a trusted root")
    }
}
