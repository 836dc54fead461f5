import Foundation
import SubscriberStore
import SubscriptionModel
import TestSupport

/// Small hand-made documents for store tests.
enum Fixture {
    /// `store.sqlite` in a new temporary directory of its own (0700).
    static func temporaryStorePath(_ label: String) throws -> String {
        try TemporaryDirectory(label).path("store.sqlite")
    }

    static func transaction(
        _ id: String, of original: String = "1000", product: String = "pro.monthly", start: String,
        end: String, revoked: String? = nil, signed: String? = nil, token: String? = nil
    ) -> TransactionFact {
        TransactionFact(
            transactionId: id, originalTransactionId: original, webOrderLineItemId: "w" + id, productId: product,
            purchaseDate: day(start), expiresDate: day(end), revocationDate: revoked.map(day),
            appAccountToken: token, signedDate: signed.map(day))
    }

    static func document(_ name: String, _ facts: DocumentFacts) -> IncomingDocument {
        IncomingDocument(
            sha256: String(repeating: "0", count: 64 - name.count) + name, source: "test:\(name)",
            byteCount: name.count, body: Data(name.utf8), content: .facts(facts))
    }

    static func notification(
        _ uuid: String, _ type: String, subtype: String? = nil, at: String, original: String = "1000",
        transaction: String? = nil
    ) -> NotificationFact {
        NotificationFact(
            notificationId: uuid, format: .v2Notification, notificationType: type, subtype: subtype,
            instant: day(at), originalTransactionId: original, transactionId: transaction)
    }

    /// A subscription bought, renewed, then refunded; told by three v2 notifications.
    static var story: [IncomingDocument] {
        let t1 = transaction("1000", start: "2025-01-01", end: "2025-02-01", signed: "2025-01-01")
        let t2 = transaction("1001", start: "2025-02-01", end: "2025-03-01", signed: "2025-02-01")
        let t2refunded = transaction("1001", start: "2025-02-01", end: "2025-03-01", revoked: "2025-02-10", signed: "2025-02-10")
        return [
            document(
                "a1",
                DocumentFacts(
                    format: .v2Notification,
                    notifications: [
                        notification("n1", "SUBSCRIBED", subtype: "INITIAL_BUY", at: "2025-01-01", transaction: "1000")
                    ],
                    transactions: [t1],
                    renewals: [
                        RenewalFact(
                            originalTransactionId: "1000", instant: day("2025-01-01"), autoRenewStatus: true,
                            transactionId: "1000")
                    ])),
            document(
                "a2",
                DocumentFacts(
                    format: .v2Notification,
                    notifications: [notification("n2", "DID_RENEW", at: "2025-02-01", transaction: "1001")],
                    transactions: [t2])),
            document(
                "a3",
                DocumentFacts(
                    format: .v2Notification,
                    notifications: [notification("n3", "REFUND", at: "2025-02-10", transaction: "1001")],
                    transactions: [t2refunded])),
        ]
    }
}
