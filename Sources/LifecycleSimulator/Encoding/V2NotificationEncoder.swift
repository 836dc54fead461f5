import SubscriptionModel

/// Renders a simulated notification as the v2 body Apple posts: `{"signedPayload":"<JWS>"}`,
/// whose payload carries a signed transaction and a signed renewal info, all three signed
/// with the test chain's leaf and `signedDate` = the notification's instant.
struct V2NotificationEncoder: Sendable {
    let jws: CompactJWS
    let priceIncreaseDate: Instant

    /// v2 (`notificationType`, `subtype`) for a lifecycle event, as Apple sends them.
    static func notificationType(for kind: NotificationKind) -> (type: String, subtype: String?) {
        switch kind {
        case .initialBuy: return ("SUBSCRIBED", "INITIAL_BUY")
        case .resubscribe: return ("SUBSCRIBED", "RESUBSCRIBE")
        case .renew: return ("DID_RENEW", nil)
        case .billingRecovery: return ("DID_RENEW", "BILLING_RECOVERY")
        case .failToRenew: return ("DID_FAIL_TO_RENEW", nil)
        case .failToRenewGracePeriod: return ("DID_FAIL_TO_RENEW", "GRACE_PERIOD")
        case .gracePeriodExpired: return ("GRACE_PERIOD_EXPIRED", nil)
        case .expiredVoluntary: return ("EXPIRED", "VOLUNTARY")
        case .expiredBillingRetry: return ("EXPIRED", "BILLING_RETRY")
        case .expiredPriceIncrease: return ("EXPIRED", "PRICE_INCREASE")
        case .autoRenewDisabled, .autoRenewDisabledForRefund: return ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED")
        case .autoRenewEnabled: return ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED")
        case .upgrade: return ("DID_CHANGE_RENEWAL_PREF", "UPGRADE")
        case .downgrade: return ("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE")
        case .offerRedeemed: return ("OFFER_REDEEMED", nil)
        case .priceIncreasePending: return ("PRICE_INCREASE", "PENDING")
        case .priceIncreaseAccepted: return ("PRICE_INCREASE", "ACCEPTED")
        case .refund: return ("REFUND", nil)
        case .revoke: return ("REVOKE", nil)
        }
    }

    func body(for n: SimulatedNotification, of life: SubscriberLifecycle) -> [UInt8] {
        let environment = life.environment.rawValue
        let (type, subtype) = Self.notificationType(for: n.kind)
        var payload = JSONBuffer(capacity: 8192)
        payload.beginObject()
        payload.field("notificationType", type)
        if let subtype { payload.field("subtype", subtype) }
        payload.field("notificationUUID", n.notificationUUID)
        payload.beginObject("data")
        payload.field("appAppleId", Catalog.appAppleId)
        payload.field("bundleId", Catalog.bundleId)
        payload.field("bundleVersion", Catalog.bundleVersion)
        payload.field("environment", environment)
        payload.key("signedTransactionInfo")
        payload.rawString(jws.sign(transaction(n, life)))
        payload.key("signedRenewalInfo")
        payload.rawString(jws.sign(renewalInfo(n, life)))
        payload.field("status", n.renewal.status)
        payload.endObject()
        payload.field("version", "2.0")
        payload.field("signedDate", n.instant.milliseconds)
        payload.endObject()

        var body = JSONBuffer(capacity: 16384)
        body.beginObject()
        body.key("signedPayload")
        body.rawString(jws.sign(payload.bytes))
        body.endObject()
        return body.bytes
    }

    private func transaction(_ n: SimulatedNotification, _ life: SubscriberLifecycle) -> [UInt8] {
        let t = life.transactions[n.transaction]
        var json = JSONBuffer(capacity: 1024)
        json.beginObject()
        json.key("transactionId")
        json.decimalString(t.transactionId)
        json.key("originalTransactionId")
        json.decimalString(life.originalTransactionId)
        json.key("webOrderLineItemId")
        json.decimalString(t.webOrderLineItemId)
        json.field("bundleId", Catalog.bundleId)
        json.field("productId", t.productId)
        json.field("subscriptionGroupIdentifier", Catalog.subscriptionGroupIdentifier)
        json.field("purchaseDate", t.purchaseDate.milliseconds)
        json.field("originalPurchaseDate", life.originalPurchaseDate.milliseconds)
        json.field("expiresDate", t.expiresDate.milliseconds)
        json.field("quantity", 1)
        json.field("type", "Auto-Renewable Subscription")
        if let token = life.appAccountToken { json.field("appAccountToken", token) }
        let shared = life.ownership == .familyShared
        json.field("inAppOwnershipType", shared ? "FAMILY_SHARED" : "PURCHASED")
        json.field("signedDate", n.instant.milliseconds)
        if let revoked = t.revocationDate, revoked <= n.instant {
            if shared {
                json.field("revocationDate", revoked.milliseconds)
                json.field("revocationType", "FAMILY_REVOKE")
            } else {
                json.field("revocationReason", t.revocationReason ?? 0)
                json.field("revocationDate", revoked.milliseconds)
                json.field("revocationType", "REFUND_FULL")
                json.field("revocationPercentage", 100_000)
            }
        }
        if let offer = t.offer {
            json.field("offerType", offer.kind.rawValue)
            if let id = offer.identifier { json.field("offerIdentifier", id) }
        }
        json.field("environment", life.environment.rawValue)
        json.field("transactionReason", t.isRenewal ? "RENEWAL" : "PURCHASE")
        let storefront = SimulatedStorefront.of(subscriber: life.index)
        json.field("storefront", storefront.code)
        json.field("storefrontId", storefront.storefrontId)
        json.field("price", storefront.localPrice(t.price))
        json.field("currency", storefront.currency)
        if let offer = t.offer {
            json.field("offerDiscountType", offer.discount.rawValue)
            json.field("offerPeriod", offer.period)
        }
        if let commitment = t.commitment {
            // One monthly payment of a 12-month commitment; `price` above is this payment's.
            json.field("billingPlanType", "MONTHLY")
            json.beginObject("commitmentInfo")
            json.field("billingPeriodNumber", commitment.period)
            json.field("totalBillingPeriods", commitment.periods)
            json.field("commitmentExpiresDate", commitment.expires.milliseconds)
            json.field("commitmentPrice", Self.commitmentPrice(commitment, storefront))
            json.endObject()
        }
        json.key("appTransactionId")
        json.decimalString(Self.appTransactionId(life))
        json.endObject()
        return json.bytes
    }

    private func renewalInfo(_ n: SimulatedNotification, _ life: SubscriberLifecycle) -> [UInt8] {
        let r = n.renewal
        let t = life.transactions[n.transaction]
        let next = Catalog.products[r.autoRenewProduct]
        var json = JSONBuffer(capacity: 768)
        json.beginObject()
        if r.status == 2, let intent = r.expirationIntent { json.field("expirationIntent", intent) }
        json.key("originalTransactionId")
        json.decimalString(life.originalTransactionId)
        json.field("autoRenewProductId", next.productId)
        json.field("productId", t.productId)
        json.field("autoRenewStatus", r.autoRenewStatus ? 1 : 0)
        if r.isInBillingRetry || r.expirationIntent == 2 { json.field("isInBillingRetryPeriod", r.isInBillingRetry) }
        if let consent = r.priceIncreaseStatus { json.field("priceIncreaseStatus", consent) }
        if r.isInBillingRetry, let grace = r.gracePeriodExpiresDate { json.field("gracePeriodExpiresDate", grace.milliseconds) }
        if let offer = r.nextOffer {
            json.field("offerType", offer.kind.rawValue)
            if let id = offer.identifier { json.field("offerIdentifier", id) }
        }
        json.field("signedDate", n.instant.milliseconds)
        json.field("environment", life.environment.rawValue)
        json.field("recentSubscriptionStartDate", r.recentSubscriptionStartDate.milliseconds)
        if r.status == 1 || r.status == 3 || r.status == 4 {
            json.field("renewalDate", t.expiresDate.milliseconds)
            let increased = next.increasedPrice.flatMap {
                r.priceIncreaseStatus != nil || t.purchaseDate >= priceIncreaseDate ? $0 : nil
            }
            let storefront = SimulatedStorefront.of(subscriber: life.index)
            let nextCharge =
                r.commitmentAutoRenew != nil ? Catalog.commitmentMonthlyPrice : (r.nextOffer?.price ?? increased ?? next.price)
            json.field("renewalPrice", storefront.localPrice(nextCharge))
            json.field("currency", storefront.currency)
        }
        // While a commitment runs: the next payment is monthly, and what follows the commitment.
        if let commitment = t.commitment, let renews = r.commitmentAutoRenew, r.status != 2, r.status != 5 {
            let storefront = SimulatedStorefront.of(subscriber: life.index)
            json.field("renewalBillingPlanType", "MONTHLY")
            json.beginObject("commitmentInfo")
            json.field("commitmentAutoRenewStatus", renews ? 1 : 0)
            json.field("commitmentAutoRenewProductId", Catalog.products[Catalog.commitmentProduct].productId)
            json.field("commitmentRenewalBillingPlanType", "MONTHLY")
            json.field("commitmentRenewalDate", commitment.expires.milliseconds)
            json.field("commitmentRenewalPrice", storefront.localPrice(Catalog.commitmentMonthlyPrice))
            json.endObject()
        }
        if let offer = r.nextOffer {
            json.field("offerDiscountType", offer.discount.rawValue)
            json.field("offerPeriod", offer.period)
        }
        if r.status == 2, r.expirationIntent == 1 || r.expirationIntent == 3 {
            json.beginArray("eligibleWinBackOfferIds")
            json.string(Catalog.winBack(for: r.autoRenewProduct).identifier ?? "")
            json.endArray()
        }
        if let token = life.appAccountToken { json.field("appAccountToken", token) }
        json.key("appTransactionId")
        json.decimalString(Self.appTransactionId(life))
        json.endObject()
        return json.bytes
    }

    /// `commitmentPrice` in the storefront's currency: its local monthly payment times the payments.
    static func commitmentPrice(_ commitment: CommitmentPayment, _ storefront: SimulatedStorefront) -> Int64 {
        storefront.localPrice(commitment.price / Int64(commitment.periods)) * Int64(commitment.periods)
    }

    /// The app download behind the purchase: every 40th subscriber (index 1, 41, 81, …) has the
    /// Apple Account of the one before it, so the demo has accounts with two subscriptions.
    static func appTransactionId(_ life: SubscriberLifecycle) -> UInt64 {
        704_000_000_000_000 + UInt64(life.index % 40 == 1 ? life.index - 1 : life.index)
    }
}
