import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TestSupport

/// Builds small stores from hand-written facts, through the same writer an import uses.
struct StoreBuilder {
    var documents: [IncomingDocument] = []
    private var counter = 0

    mutating func add(_ facts: DocumentFacts) {
        counter += 1
        let name = "doc\(counter)"
        documents.append(
            IncomingDocument(
                sha256: String(repeating: "0", count: 64 - name.count) + name, source: name,
                byteCount: 1, body: nil, content: .facts(facts)))
    }

    /// One transaction: `period("s1", "t1", "2025-01-10", "2025-02-10")`.
    mutating func period(
        _ original: String, _ id: String, _ start: String, _ end: String, product: String = "pro.monthly",
        trial: Bool = false, upgradedAt: String? = nil, revokedAt: String? = nil,
        environment: StoreEnvironment = .production
    ) {
        var t = TransactionFact(
            transactionId: id, originalTransactionId: original, productId: product,
            purchaseDate: day(start), expiresDate: day(end), environment: environment)
        if trial {
            t.offerType = 1
            t.offerDiscountType = "FREE_TRIAL"
        }
        if let upgradedAt {
            t.isUpgraded = true
            t.revocationDate = day(upgradedAt)
        }
        if let revokedAt { t.revocationDate = day(revokedAt) }
        add(DocumentFacts(format: .v2Notification, transactions: [t]))
    }

    mutating func notification(
        _ original: String, _ type: String, subtype: String? = nil, at: String, transaction: String? = nil,
        autoRenew: Bool? = nil
    ) {
        counter += 1
        add(
            DocumentFacts(
                format: .v2Notification,
                notifications: [
                    NotificationFact(
                        notificationId: "n\(counter)", format: .v2Notification, notificationType: type, subtype: subtype,
                        instant: day(at), originalTransactionId: original, transactionId: transaction,
                        autoRenewStatus: autoRenew)
                ]))
    }

    func build() throws -> SubscriberAnalytics {
        let db = try AppDatabase.inMemory()
        try db.apply(documents)
        return SubscriberAnalytics(database: db)
    }
}
