import GRDB
import SubscriptionModel

/// Reads the stored facts of subscriptions back into `SubscriptionFacts`.
struct FactReader {
    let db: Database

    init(_ db: Database) { self.db = db }

    func facts(of originalTransactionId: String) throws -> SubscriptionFacts {
        var facts = SubscriptionFacts(originalTransactionId: originalTransactionId)
        let transactions = try db.cachedStatement(sql: """
            SELECT transactionId, originalTransactionId, webOrderLineItemId, productId, subscriptionGroupIdentifier,
                   purchaseDate, originalPurchaseDate, expiresDate, revocationDate, revocationReason, isUpgraded,
                   offerType, offerDiscountType, offerIdentifier, appAccountToken, environment, price, currency,
                   inAppOwnershipType, signedDate
            FROM "transaction" WHERE originalTransactionId = ? ORDER BY purchaseDate, transactionId
            """)
        let rows = try Row.fetchCursor(transactions, arguments: [originalTransactionId])
        while let row = try rows.next() {
            facts.transactions.append(TransactionFact(
                transactionId: row[0], originalTransactionId: row[1], webOrderLineItemId: row[2], productId: row[3],
                subscriptionGroupIdentifier: row[4], purchaseDate: Instant(milliseconds: row[5]),
                originalPurchaseDate: (row[6] as Int64?).map(Instant.init(milliseconds:)),
                expiresDate: (row[7] as Int64?).map(Instant.init(milliseconds:)),
                revocationDate: (row[8] as Int64?).map(Instant.init(milliseconds:)), revocationReason: row[9],
                isUpgraded: row[10], offerType: row[11], offerDiscountType: row[12], offerIdentifier: row[13],
                appAccountToken: row[14], environment: StoreEnvironment(rawValue: row[15]) ?? .production,
                price: row[16], currency: row[17], inAppOwnershipType: row[18],
                signedDate: (row[19] as Int64?).map(Instant.init(milliseconds:))))
        }
        let renewals = try db.cachedStatement(sql: """
            SELECT instant, productId, autoRenewProductId, autoRenewStatus, isInBillingRetryPeriod, gracePeriodExpiresDate,
                   expirationIntent, priceIncreaseStatus, transactionId, environment, isV1
            FROM renewalFact WHERE originalTransactionId = ? ORDER BY instant, contentHash
            """)
        let renewalRows = try Row.fetchCursor(renewals, arguments: [originalTransactionId])
        while let row = try renewalRows.next() {
            facts.renewals.append(RenewalFact(
                originalTransactionId: originalTransactionId, instant: Instant(milliseconds: row[0]), productId: row[1],
                autoRenewProductId: row[2], autoRenewStatus: row[3], isInBillingRetryPeriod: row[4],
                gracePeriodExpiresDate: (row[5] as Int64?).map(Instant.init(milliseconds:)), expirationIntent: row[6],
                priceIncreaseStatus: row[7], transactionId: row[8],
                environment: StoreEnvironment(rawValue: row[9]) ?? .production, isV1: row[10]))
        }
        let notifications = try db.cachedStatement(sql: """
            SELECT notificationId, format, notificationType, subtype, instant, transactionId, environment, status,
                   autoRenewStatus, bundleId
            FROM notification WHERE originalTransactionId = ? ORDER BY instant, notificationId
            """)
        let notificationRows = try Row.fetchCursor(notifications, arguments: [originalTransactionId])
        while let row = try notificationRows.next() {
            facts.notifications.append(NotificationFact(
                notificationId: row[0], format: PayloadFormat(rawValue: row[1]) ?? .v2Notification,
                notificationType: row[2], subtype: row[3], instant: Instant(milliseconds: row[4]),
                originalTransactionId: originalTransactionId, transactionId: row[5],
                environment: StoreEnvironment(rawValue: row[6]) ?? .production, status: row[7],
                autoRenewStatus: row[8], bundleId: row[9]))
        }
        return facts
    }
}

extension AppDatabase {
    /// Every stored fact of one subscription.
    public func facts(of originalTransactionId: String) throws -> SubscriptionFacts {
        try writer.read { db in try FactReader(db).facts(of: originalTransactionId) }
    }
}
