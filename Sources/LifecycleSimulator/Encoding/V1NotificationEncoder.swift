import SubscriptionModel

/// Renders a simulated notification as the v1 (`responseBodyV1`) bodies Apple sends for it:
/// string dates and booleans, `"true"/"false"` at the top level, `"1"/"0"` in
/// `pending_renewal_info`, and an unsorted `latest_receipt_info` holding the subscription's
/// transactions up to that moment (at most the latest 100).
struct V1NotificationEncoder {
    /// The shared secret Apple echoes back in `password`.
    static let sharedSecret = SimulationConfiguration.sharedSecret
    /// Kinds Apple's v1 notifications send to sandbox: no DID_FAIL_TO_RENEW, DID_RECOVER or
    /// PRICE_INCREASE_CONSENT.
    static let sandboxTypes: Set<String> = [
        "INITIAL_BUY", "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_STATUS", "DID_RENEW",
        "INTERACTIVE_RENEWAL", "CANCEL", "REFUND",
    ]

    /// The v1 `notification_type`s for a lifecycle event, in delivery order; empty when v1 has no
    /// notification for it.
    static func notificationTypes(for kind: NotificationKind) -> [String] {
        switch kind {
        case .initialBuy: return ["INITIAL_BUY"]
        case .resubscribe: return ["INTERACTIVE_RENEWAL"]
        case .renew: return ["DID_RENEW"]
        case .billingRecovery: return ["DID_RECOVER"]
        case .failToRenew, .failToRenewGracePeriod: return ["DID_FAIL_TO_RENEW"]
        case .gracePeriodExpired, .expiredVoluntary, .offerRedeemed, .priceIncreaseAccepted, .autoRenewDisabledForRefund:
            return []
        // v1 has no expiry notification; the App Store turns auto-renew off when retry or consent runs out.
        case .expiredBillingRetry, .expiredPriceIncrease: return ["DID_CHANGE_RENEWAL_STATUS"]
        case .autoRenewDisabled, .autoRenewEnabled: return ["DID_CHANGE_RENEWAL_STATUS"]
        case .upgrade: return ["CANCEL", "INTERACTIVE_RENEWAL"]
        case .downgrade: return ["DID_CHANGE_RENEWAL_PREF"]
        case .priceIncreasePending: return ["PRICE_INCREASE_CONSENT"]
        case .refund: return ["CANCEL", "DID_CHANGE_RENEWAL_STATUS"]
        case .revoke: return ["REVOKE"]
        }
    }

    /// The bodies for `notification` of `life`.
    static func bodies(for notification: SimulatedNotification, of life: SubscriberLifecycle) -> [[UInt8]] {
        var types = notificationTypes(for: notification.kind)
        if life.environment == .sandbox { types = types.filter { sandboxTypes.contains($0) } }
        return types.map { body(type: $0, notification: notification, life: life) }
    }

    private static func body(type: String, notification n: SimulatedNotification, life: SubscriberLifecycle) -> [UInt8] {
        let renewal = n.renewal
        let current = life.transactions[n.transaction]
        let isToggle = type == "DID_CHANGE_RENEWAL_STATUS"
        // After a refund the App Store turns auto-renew off, which this toggle reports.
        let autoRenew = n.kind == .refund && isToggle ? false : renewal.autoRenewStatus
        let autoRenewProduct = Catalog.products[renewal.autoRenewProduct]
        var json = JSONBuffer(capacity: 4096)
        json.beginObject()
        json.key("auto_renew_adam_id")
        json.decimalString(adamId(renewal.autoRenewProduct))
        json.field("auto_renew_product_id", autoRenewProduct.productId)
        json.field("auto_renew_status", autoRenew ? "true" : "false")
        if isToggle {
            json.v1Date(
                "auto_renew_status_change_date", "auto_renew_status_change_date_ms", "auto_renew_status_change_date_pst",
                n.instant)
        }
        json.field("bid", Catalog.bundleId)
        json.field("bvrs", Catalog.bundleVersion)
        json.field("environment", life.environment == .sandbox ? "Sandbox" : "PROD")
        if renewal.status == 2, let intent = renewal.expirationIntent { json.field("expiration_intent", intent) }
        json.field("notification_type", type)
        json.key("original_transaction_id")
        json.int(Int64(life.originalTransactionId))
        json.field("password", sharedSecret)

        json.beginObject("unified_receipt")
        json.field("environment", life.environment == .sandbox ? "Sandbox" : "Production")
        json.key("latest_receipt")
        json.rawString(latestReceipt(life: life, instant: n.instant))
        json.beginArray("latest_receipt_info")
        for index in receiptOrder(life: life, instant: n.instant) {
            row(life.transactions[index], life: life, at: n.instant, into: &json)
        }
        json.endArray()
        json.beginArray("pending_renewal_info")
        json.beginObject()
        json.field("auto_renew_product_id", autoRenewProduct.productId)
        json.field("auto_renew_status", autoRenew ? "1" : "0")
        if renewal.status == 2, let intent = renewal.expirationIntent { json.field("expiration_intent", String(intent)) }
        if renewal.isInBillingRetry, let grace = renewal.gracePeriodExpiresDate {
            json.v1Date("grace_period_expires_date", "grace_period_expires_date_ms", "grace_period_expires_date_pst", grace)
        }
        if renewal.isInBillingRetry || renewal.expirationIntent == 2 {
            json.field("is_in_billing_retry_period", renewal.isInBillingRetry ? "1" : "0")
        }
        if let offer = renewal.nextOffer, offer.kind == .offerCode, let name = offer.identifier {
            json.field("offer_code_ref_name", name)
        }
        json.key("original_transaction_id")
        json.decimalString(life.originalTransactionId)
        if let consent = renewal.priceIncreaseStatus { json.field("price_consent_status", String(consent)) }
        json.field("product_id", current.productId)
        if let offer = renewal.nextOffer, offer.kind == .promotional, let id = offer.identifier {
            json.field("promotional_offer_id", id)
        }
        json.endObject()
        json.endArray()
        json.field("status", 0)
        json.endObject()
        json.endObject()
        return json.bytes
    }

    private static func row(
        _ t: SimulatedTransaction, life: SubscriberLifecycle, at instant: Instant, into json: inout JSONBuffer
    ) {
        json.beginObject()
        if let token = life.appAccountToken { json.field("app_account_token", token) }
        // An upgraded transaction carries the upgrade time as its cancellation date, without a reason.
        if let revoked = t.revocationDate ?? t.upgradedAt, revoked <= instant {
            json.v1Date("cancellation_date", "cancellation_date_ms", "cancellation_date_pst", revoked)
            if t.upgradedAt == nil, let reason = t.revocationReason { json.field("cancellation_reason", String(reason)) }
        }
        json.v1Date("expires_date", "expires_date_ms", "expires_date_pst", t.expiresDate)
        json.field("in_app_ownership_type", life.ownership == .familyShared ? "FAMILY_SHARED" : "PURCHASED")
        let intro = t.offer?.kind == .introductory && t.offer?.discount != .freeTrial
        json.field("is_in_intro_offer_period", intro ? "true" : "false")
        json.field("is_trial_period", t.isFree ? "true" : "false")
        if let upgraded = t.upgradedAt, upgraded <= instant { json.field("is_upgraded", "true") }
        if let offer = t.offer, offer.kind == .offerCode, let name = offer.identifier { json.field("offer_code_ref_name", name) }
        json.v1Date(
            "original_purchase_date", "original_purchase_date_ms", "original_purchase_date_pst", life.originalPurchaseDate)
        json.key("original_transaction_id")
        json.decimalString(life.originalTransactionId)
        json.field("product_id", t.productId)
        if let offer = t.offer, offer.kind == .promotional || offer.kind == .winBack, let id = offer.identifier {
            json.field("promotional_offer_id", id)
        }
        json.v1Date("purchase_date", "purchase_date_ms", "purchase_date_pst", t.purchaseDate)
        json.field("quantity", "1")
        json.field("subscription_group_identifier", Catalog.subscriptionGroupIdentifier)
        json.key("transaction_id")
        json.decimalString(t.transactionId)
        json.key("web_order_line_item_id")
        json.decimalString(t.webOrderLineItemId)
        json.endObject()
    }

    /// The latest 100 transactions purchased by `instant`, newest first but not strictly: Apple's
    /// list is unsorted, so neighbours are swapped here and there (deterministically).
    private static func receiptOrder(life: SubscriberLifecycle, instant: Instant) -> [Int] {
        var indices = life.transactions.indices.filter { life.transactions[$0].purchaseDate <= instant }
        indices.reverse()
        if indices.count > 100 { indices.removeLast(indices.count - 100) }
        var rng = SplitMix64(state: UInt64(bitPattern: instant.milliseconds) ^ life.originalTransactionId)
        var i = 0
        while i + 1 < indices.count {
            if rng.chance(0.3) {
                indices.swapAt(i, i + 1)
                i += 2
            } else {
                i += 1
            }
        }
        return indices
    }

    /// A stand-in for the base64 receipt (real ones are kilobytes of PKCS #7; nothing reads them).
    private static func latestReceipt(life: SubscriberLifecycle, instant: Instant) -> [UInt8] {
        var rng = SplitMix64(state: life.originalTransactionId &* 31 &+ UInt64(bitPattern: instant.milliseconds))
        var bytes: [UInt8] = []
        for _ in 0..<6 { withUnsafeBytes(of: rng.next().bigEndian) { bytes.append(contentsOf: $0) } }
        return Base64.encode(bytes, urlSafe: false)
    }

    /// A stable 64-bit App Store id per product (`auto_renew_adam_id`).
    static func adamId(_ product: Int) -> UInt64 { 1_600_000_001 + UInt64(product) }
}
