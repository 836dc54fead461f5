import SubscriptionModel

/// The `latest_receipt_info` and `pending_renewal_info` rows that v1 notifications and
/// verifyReceipt responses share, read into facts.
struct ReceiptRows {
    /// One fact per `transaction_id`, in order of first appearance.
    private(set) var transactions: [TransactionFact] = []
    /// The latest `purchase_date_ms` or `cancellation_date_ms` per `original_transaction_id`:
    /// the instant a v1 document speaks at (docs/metrics.md, "Fact instants").
    private(set) var latestInstant: [String: Instant] = [:]
    /// The latest row per `original_transaction_id` (by purchase date, then expiry). Rows are
    /// not sorted on the wire, so this is computed, never taken from the array's end.
    private(set) var latestRow: [String: TransactionFact] = [:]
    private var seen: Set<String> = []

    let environment: StoreEnvironment

    init(environment: StoreEnvironment) { self.environment = environment }

    /// Reads a row of `latest_receipt_info` (or `in_app`, or a legacy `latest_expired_receipt_info`).
    mutating func add(_ row: FieldReader) throws(PayloadError) {
        let fact = try Self.transaction(row, environment: environment)
        noteInstant(fact.purchaseDate, for: fact.originalTransactionId)
        if let revoked = fact.revocationDate { noteInstant(revoked, for: fact.originalTransactionId) }
        if let current = latestRow[fact.originalTransactionId] {
            if Self.isLater(fact, than: current) { latestRow[fact.originalTransactionId] = fact }
        } else {
            latestRow[fact.originalTransactionId] = fact
        }
        if seen.insert(fact.transactionId).inserted { transactions.append(fact) }
    }

    mutating func noteInstant(_ instant: Instant, for originalTransactionId: String) {
        if let current = latestInstant[originalTransactionId], current >= instant { return }
        latestInstant[originalTransactionId] = instant
    }

    /// The latest instant of any row, whatever its subscription.
    var latestInstantOverall: Instant? { latestInstant.values.max() }

    /// The row a document is "about" when it names no subscription: the latest of all.
    var latestOverall: TransactionFact? {
        latestRow.values.max { Self.isLater($1, than: $0) }
    }

    private static func isLater(_ a: TransactionFact, than b: TransactionFact) -> Bool {
        if a.purchaseDate != b.purchaseDate { return a.purchaseDate > b.purchaseDate }
        // Same instant: an upgrade's new row beats the row it cancelled.
        if a.isUpgraded != b.isUpgraded { return !a.isUpgraded }
        let ae = a.expiresDate ?? a.purchaseDate
        let be = b.expiresDate ?? b.purchaseDate
        if ae != be { return ae > be }
        return a.transactionId > b.transactionId
    }

    // MARK: - Rows

    /// A `latest_receipt_info` row. Offers follow the `TransactionFact` doc comment: offer code
    /// beats promotional offer beats introductory; a trial is `FREE_TRIAL` whatever the offer.
    static func transaction(_ row: FieldReader, environment: StoreEnvironment) throws(PayloadError) -> TransactionFact {
        // Read in alphabetical order, the order rows are written in, so each lookup is one comparison.
        let appAccountToken = try row.v1String("app_account_token")
        let revocationDate = try row.v1Milliseconds("cancellation_date_ms")
        let revocationReason = try row.v1Int("cancellation_reason")
        let currency = try row.v1String("currency")
        var expiresDate = try row.v1Milliseconds("expires_date_ms", .scheduled)
        let ownership = try row.v1String("in_app_ownership_type")
        let isIntro = try row.v1Bool("is_in_intro_offer_period") ?? false
        let isTrial = try row.v1Bool("is_trial_period") ?? false
        let isUpgraded = try row.v1Bool("is_upgraded") ?? false
        let offerCode = try row.v1String("offer_code_ref_name")
        let originalPurchaseDate = try row.v1Milliseconds("original_purchase_date_ms")
        let originalTransactionId = try row.v1String("original_transaction_id")
        let price = try row.v1Int("price").map(Int64.init)
        let productId = try row.requiredV1String("product_id")
        let promotionalOffer = try row.v1String("promotional_offer_id")
        let purchaseDate = try row.v1Milliseconds("purchase_date_ms")
        let groupIdentifier = try row.v1String("subscription_group_identifier")
        let transactionId = try row.requiredV1String("transaction_id")
        let webOrderLineItemId = try row.v1String("web_order_line_item_id")

        guard let purchaseDate else { throw row.missing("purchase_date_ms") }
        if expiresDate == nil, case .string(let legacy)? = row.value("expires_date"), let ms = FieldReader.decimal(legacy) {
            // Receipts from before iOS 7 put milliseconds in `expires_date` itself.
            expiresDate = Instant(milliseconds: ms)
        }
        let offerType: Int? = offerCode != nil ? 3 : promotionalOffer != nil ? 2 : (isTrial || isIntro) ? 1 : nil
        return TransactionFact(
            transactionId: transactionId,
            originalTransactionId: originalTransactionId ?? transactionId,
            webOrderLineItemId: webOrderLineItemId,
            productId: productId,
            subscriptionGroupIdentifier: groupIdentifier,
            purchaseDate: purchaseDate,
            originalPurchaseDate: originalPurchaseDate,
            expiresDate: expiresDate,
            revocationDate: revocationDate,
            revocationReason: revocationReason,
            isUpgraded: isUpgraded,
            offerType: offerType,
            offerDiscountType: isTrial ? "FREE_TRIAL" : nil,
            offerIdentifier: offerCode ?? promotionalOffer,
            appAccountToken: appAccountToken,
            environment: environment,
            price: price,
            currency: currency,
            inAppOwnershipType: ownership)
    }

    /// A `pending_renewal_info` row at the document's instant. `"1"`/`"0"` booleans.
    static func renewal(
        _ row: FieldReader, instant: Instant, transactionId: String?,
        environment: StoreEnvironment
    ) throws(PayloadError) -> RenewalFact {
        let originalTransactionId = try row.requiredV1String("original_transaction_id")
        let digit = "\"1\" or \"0\""
        var consent = try row.v1Int("price_consent_status")
        if consent == nil { consent = try row.v1Int("price_increase_status") }
        return RenewalFact(
            originalTransactionId: originalTransactionId,
            instant: instant,
            productId: try row.v1String("product_id"),
            autoRenewProductId: try row.v1String("auto_renew_product_id"),
            autoRenewStatus: try row.v1Bool("auto_renew_status", expected: digit),
            isInBillingRetryPeriod: try row.v1Bool("is_in_billing_retry_period", expected: digit),
            gracePeriodExpiresDate: try row.v1Milliseconds("grace_period_expires_date_ms", .scheduled),
            expirationIntent: try row.v1Int("expiration_intent"),
            priceIncreaseStatus: consent,
            transactionId: transactionId,
            environment: environment,
            isV1: true)
    }

    /// v1 environments: `PROD` at the notification top level, `Production` elsewhere, `Sandbox`.
    static func environment(_ reader: FieldReader, _ key: String) throws(PayloadError) -> StoreEnvironment? {
        guard let text = try reader.v1String(key) else { return nil }
        return StoreEnvironment(wire: text)
    }
}
