import GRDB
import SubscriptionModel

/// Reads the stored facts of subscriptions back into `SubscriptionFacts`.
struct FactReader {
    let db: Database

    init(_ db: Database) { self.db = db }

    /// A subscription with signed facts is derived from its verified facts only: unsigned v1
    /// data (not vouched for by the shared secret) cannot add a period to it or change its state.
    func facts(of originalTransactionId: String) throws -> SubscriptionFacts {
        var facts = SubscriptionFacts(originalTransactionId: originalTransactionId)
        let signed = try db.cachedStatement(sql: "SELECT \(SignedData.exists("?1"))")
        let hasSigned = try Bool.fetchOne(signed, arguments: [originalTransactionId]) ?? false
        let verifiedOnly = hasSigned ? 1 : 2
        let transactions = try db.cachedStatement(
            sql: """
                SELECT transactionId, originalTransactionId, webOrderLineItemId, productId, subscriptionGroupIdentifier,
                       purchaseDate, originalPurchaseDate, expiresDate, revocationDate, revocationReason, isUpgraded,
                       offerType, offerDiscountType, offerIdentifier, appAccountToken, environment, price, currency,
                       inAppOwnershipType, signedDate, storefront, revocationType, revocationPercentage,
                       appTransactionId, offerPeriod, transactionReason,
                       billingPlanType, commitmentPeriod, commitmentPeriods, commitmentExpiresDate, commitmentPrice
                FROM "transaction" WHERE originalTransactionId = ? AND unverified < ? ORDER BY purchaseDate, transactionId
                """)
        try transactions.forEachRow(db, originalTransactionId, verifiedOnly) { c in
            var t =
                TransactionFact(
                    transactionId: c.text(0), originalTransactionId: c.text(1), webOrderLineItemId: c.optionalText(2),
                    productId: c.text(3), subscriptionGroupIdentifier: c.optionalText(4),
                    purchaseDate: Instant(milliseconds: c.int64(5)),
                    originalPurchaseDate: c.optionalInt64(6).map(Instant.init(milliseconds:)),
                    expiresDate: c.optionalInt64(7).map(Instant.init(milliseconds:)),
                    revocationDate: c.optionalInt64(8).map(Instant.init(milliseconds:)), revocationReason: c.optionalInt(9),
                    revocationType: c.optionalText(21), isUpgraded: c.bool(10), offerType: c.optionalInt(11),
                    offerDiscountType: c.optionalText(12),
                    offerIdentifier: c.optionalText(13), appAccountToken: c.optionalText(14),
                    environment: StoreEnvironment(rawValue: c.text(15)), price: c.optionalInt64(16),
                    currency: c.optionalText(17), inAppOwnershipType: c.optionalText(18),
                    signedDate: c.optionalInt64(19).map(Instant.init(milliseconds:)), storefront: c.optionalText(20),
                    revocationPercentage: c.optionalInt(22))
            t.appTransactionId = c.optionalText(23)
            t.offerPeriod = c.optionalText(24)
            t.transactionReason = c.optionalText(25)
            t.billingPlanType = c.optionalText(26)
            if c.optionalInt(27) != nil || c.optionalInt(28) != nil || c.optionalInt64(29) != nil || c.optionalInt64(30) != nil {
                t.commitment = TransactionCommitment(
                    billingPeriodNumber: c.optionalInt(27), totalBillingPeriods: c.optionalInt(28),
                    commitmentExpiresDate: c.optionalInt64(29).map(Instant.init(milliseconds:)),
                    commitmentPrice: c.optionalInt64(30))
            }
            facts.transactions.append(t)
        }
        let renewals = try db.cachedStatement(
            sql: """
                SELECT instant, productId, autoRenewProductId, autoRenewStatus, isInBillingRetryPeriod, gracePeriodExpiresDate,
                       expirationIntent, priceIncreaseStatus, transactionId, environment, isV1,
                       renewalPrice, renewalCurrency, eligibleWinBackOfferIds, appTransactionId, offerPeriod,
                       renewalBillingPlanType, commitmentInfo, commitmentAutoRenewStatus, commitmentAutoRenewProductId,
                       commitmentRenewalBillingPlanType, commitmentRenewalDate, commitmentRenewalPrice
                FROM renewalFact WHERE originalTransactionId = ? AND unverified < ? ORDER BY instant, contentHash
                """)
        try renewals.forEachRow(db, originalTransactionId, verifiedOnly) { c in
            var r =
                RenewalFact(
                    originalTransactionId: originalTransactionId, instant: Instant(milliseconds: c.int64(0)),
                    productId: c.optionalText(1), autoRenewProductId: c.optionalText(2), autoRenewStatus: c.optionalBool(3),
                    isInBillingRetryPeriod: c.optionalBool(4),
                    gracePeriodExpiresDate: c.optionalInt64(5).map(Instant.init(milliseconds:)),
                    expirationIntent: c.optionalInt(6),
                    priceIncreaseStatus: c.optionalInt(7), transactionId: c.optionalText(8),
                    environment: StoreEnvironment(rawValue: c.text(9)), isV1: c.bool(10))
            r.renewalPrice = c.optionalInt64(11)
            r.renewalCurrency = c.optionalText(12)
            r.eligibleWinBackOfferIds = RenewalDetailColumns.offerIds(c.optionalText(13))
            r.appTransactionId = c.optionalText(14)
            r.offerPeriod = c.optionalText(15)
            r.renewalBillingPlanType = c.optionalText(16)
            if c.bool(17) {
                r.commitment = RenewalCommitment(
                    commitmentAutoRenewStatus: c.optionalBool(18), commitmentAutoRenewProductId: c.optionalText(19),
                    commitmentRenewalBillingPlanType: c.optionalText(20),
                    commitmentRenewalDate: c.optionalInt64(21).map(Instant.init(milliseconds:)),
                    commitmentRenewalPrice: c.optionalInt64(22))
            }
            facts.renewals.append(r)
        }
        let notifications = try db.cachedStatement(
            sql: """
                SELECT notificationId, format, notificationType, subtype, instant, transactionId, environment, status,
                       autoRenewStatus, bundleId
                FROM notification WHERE originalTransactionId = ? AND unverified < ? ORDER BY instant, notificationId
                """)
        try notifications.forEachRow(db, originalTransactionId, verifiedOnly) { c in
            facts.notifications.append(
                NotificationFact(
                    notificationId: c.text(0), format: PayloadFormat(rawValue: c.text(1)) ?? .v2Notification,
                    notificationType: c.text(2), subtype: c.optionalText(3), instant: Instant(milliseconds: c.int64(4)),
                    originalTransactionId: originalTransactionId, transactionId: c.optionalText(5),
                    environment: StoreEnvironment(rawValue: c.text(6)), status: c.optionalInt(7),
                    autoRenewStatus: c.optionalBool(8), bundleId: c.optionalText(9)))
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
