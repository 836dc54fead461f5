/// One transaction (one billing period) as Apple reported it. Normalised from v1 and v2:
/// v1 `is_trial_period` becomes `offerDiscountType = "FREE_TRIAL"`, v1 `offer_code_ref_name`
/// becomes offer type 3, `promotional_offer_id` type 2, `is_in_intro_offer_period` type 1.
public struct TransactionFact: Hashable, Sendable, Codable {
    public var transactionId: String
    public var originalTransactionId: String
    public var webOrderLineItemId: String?
    public var productId: String
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Instant
    public var originalPurchaseDate: Instant?
    public var expiresDate: Instant?
    public var revocationDate: Instant?
    public var revocationReason: Int?
    /// v2 `revocationType`: `REFUND_FULL`, `REFUND_PRORATED` or `FAMILY_REVOKE`; nil for v1 rows.
    public var revocationType: String?
    public var isUpgraded: Bool
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Int?
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`, `ONE_TIME`.
    public var offerDiscountType: String?
    public var offerIdentifier: String?
    public var appAccountToken: String?
    public var environment: StoreEnvironment
    /// Milliunits of `currency` (10990 = 10.99).
    public var price: Int64?
    public var currency: String?
    public var inAppOwnershipType: String?
    /// v2 only; nil for v1 rows.
    public var signedDate: Instant?
    /// v2 `storefront`, the App Store country as a 3-letter code (`FRA`); nil for v1 rows.
    public var storefront: String?
    /// v2 `revocationPercentage` in thousandths of a percent (50000 = 50 %), with `REFUND_PRORATED`.
    public var revocationPercentage: Int?
    // Renewal details (docs/metrics.md, "Renewal details from Apple"): set after `init`, v2 only.
    /// v2 `appTransactionId`: the app download behind the purchase, shared by every subscription
    /// of one Apple Account in the app.
    public var appTransactionId: String?
    /// v2 `offerPeriod`, an ISO 8601 duration (`P1M`, `P3D`): the length of the offer.
    public var offerPeriod: String?
    /// v2 `transactionReason`: `PURCHASE` (the customer bought) or `RENEWAL` (Apple renewed).
    public var transactionReason: String?
    /// v2 `billingPlanType` and `commitmentInfo` (docs/metrics.md, "Billing plans and commitments").
    public var billingPlanType: String? = nil
    public var commitment: TransactionCommitment? = nil

    public init(
        transactionId: String, originalTransactionId: String, webOrderLineItemId: String? = nil,
        productId: String, subscriptionGroupIdentifier: String? = nil, purchaseDate: Instant,
        originalPurchaseDate: Instant? = nil, expiresDate: Instant?, revocationDate: Instant? = nil,
        revocationReason: Int? = nil, revocationType: String? = nil, isUpgraded: Bool = false, offerType: Int? = nil,
        offerDiscountType: String? = nil, offerIdentifier: String? = nil, appAccountToken: String? = nil,
        environment: StoreEnvironment = .production, price: Int64? = nil, currency: String? = nil,
        inAppOwnershipType: String? = nil, signedDate: Instant? = nil, storefront: String? = nil,
        revocationPercentage: Int? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.revocationType = revocationType
        self.isUpgraded = isUpgraded
        self.offerType = offerType
        self.offerDiscountType = offerDiscountType
        self.offerIdentifier = offerIdentifier
        self.appAccountToken = appAccountToken
        self.environment = environment
        self.price = price
        self.currency = currency
        self.inAppOwnershipType = inAppOwnershipType
        self.signedDate = signedDate
        self.storefront = storefront
        self.revocationPercentage = revocationPercentage
    }

    /// The offer kind, first match wins (docs/metrics.md, "Periods").
    public var offerKind: OfferKind {
        switch offerType {
        case 3: return .offerCode
        case 2: return .promotional
        case 4: return .winBack
        case 1: return offerDiscountType == "FREE_TRIAL" ? .freeTrial : .introductory
        default: return .standard
        }
    }

    /// A family member's access to someone else's purchase: `inAppOwnershipType` `FAMILY_SHARED`,
    /// or, when a transaction does not say, a `FAMILY_REVOKE` revocation (only family access is
    /// revoked that way).
    public var isFamilyShared: Bool {
        if let ownership = inAppOwnershipType { return ownership == "FAMILY_SHARED" }
        return revocationType == "FAMILY_REVOKE"
    }

    /// Free when the discount is a free trial, whatever the offer type.
    public var isFree: Bool { offerDiscountType == "FREE_TRIAL" }
}

/// A statement of the subscription's renewal state at an instant: v2 `JWSRenewalInfo`, v1
/// `pending_renewal_info` (instant = the document's instant, docs/metrics.md, "Fact instants").
public struct RenewalFact: Hashable, Sendable, Codable {
    public var originalTransactionId: String
    /// v2 `signedDate`; v1 the document's instant.
    public var instant: Instant
    public var productId: String?
    public var autoRenewProductId: String?
    public var autoRenewStatus: Bool?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDate: Instant?
    public var expirationIntent: Int?
    /// 0 not yet responded, 1 consented (v1 `price_consent_status` maps here too).
    public var priceIncreaseStatus: Int?
    /// The transaction this fact speaks about: the transaction of the v2 notification, or the
    /// latest `latest_receipt_info` row of the v1 document for this subscription.
    public var transactionId: String?
    public var environment: StoreEnvironment
    /// `true` for v1 facts: their auto-renew status is "as sent", not "as of the instant".
    public var isV1: Bool
    // Renewal details (docs/metrics.md, "Renewal details from Apple"): set after `init`, v2 only.
    /// v2 `renewalPrice` in milliunits of `renewalCurrency`: what the next renewal charges, offers included.
    public var renewalPrice: Int64?
    /// v2 `currency`, the currency of `renewalPrice`.
    public var renewalCurrency: String?
    /// v2 `eligibleWinBackOfferIds`, best first (nil when the fact does not carry the list).
    public var eligibleWinBackOfferIds: [String]?
    /// v2 `appTransactionId`.
    public var appTransactionId: String?
    /// v2 `offerPeriod` of the offer the next renewal applies.
    public var offerPeriod: String?
    /// v2 `renewalBillingPlanType` and `commitmentInfo` (docs/metrics.md, "Billing plans and commitments").
    public var renewalBillingPlanType: String? = nil
    public var commitment: RenewalCommitment? = nil

    public init(
        originalTransactionId: String, instant: Instant, productId: String? = nil,
        autoRenewProductId: String? = nil, autoRenewStatus: Bool? = nil, isInBillingRetryPeriod: Bool? = nil,
        gracePeriodExpiresDate: Instant? = nil, expirationIntent: Int? = nil, priceIncreaseStatus: Int? = nil,
        transactionId: String? = nil, environment: StoreEnvironment = .production, isV1: Bool = false
    ) {
        self.originalTransactionId = originalTransactionId
        self.instant = instant
        self.productId = productId
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewStatus = autoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.expirationIntent = expirationIntent
        self.priceIncreaseStatus = priceIncreaseStatus
        self.transactionId = transactionId
        self.environment = environment
        self.isV1 = isV1
    }
}

/// One server notification (v1 or v2), reduced to what the timeline needs. Unknown types and
/// subtypes are kept as their raw strings.
public struct NotificationFact: Hashable, Sendable, Codable {
    /// v2 `notificationUUID`; v1 `sha256:` + the hex digest of the body.
    public var notificationId: String
    public var format: PayloadFormat
    public var notificationType: String
    public var subtype: String?
    /// v2 `signedDate`; v1 the document's instant (docs/metrics.md, "Fact instants").
    public var instant: Instant
    public var originalTransactionId: String?
    public var transactionId: String?
    public var environment: StoreEnvironment
    /// v2 `data.status` (1 active, 2 expired, 3 billing retry, 4 grace, 5 revoked).
    public var status: Int?
    /// For toggles: the new auto-renew value (v2 subtype, v1 top-level `auto_renew_status`).
    public var autoRenewStatus: Bool?
    public var bundleId: String?

    public init(
        notificationId: String, format: PayloadFormat, notificationType: String, subtype: String? = nil,
        instant: Instant, originalTransactionId: String? = nil, transactionId: String? = nil,
        environment: StoreEnvironment = .production, status: Int? = nil, autoRenewStatus: Bool? = nil,
        bundleId: String? = nil
    ) {
        self.notificationId = notificationId
        self.format = format
        self.notificationType = notificationType
        self.subtype = subtype
        self.instant = instant
        self.originalTransactionId = originalTransactionId
        self.transactionId = transactionId
        self.environment = environment
        self.status = status
        self.autoRenewStatus = autoRenewStatus
        self.bundleId = bundleId
    }

    /// `DID_CHANGE_RENEWAL_STATUS` with a known new value.
    public var isToggle: Bool { notificationType == "DID_CHANGE_RENEWAL_STATUS" && autoRenewStatus != nil }
}

/// A customer record from a CSV (or an `appAccountToken` seen in a transaction).
public struct CustomerFact: Hashable, Sendable, Codable {
    public var userId: String?
    public var email: String?
    public var appAccountToken: String?
    public var originalTransactionId: String?

    public init(userId: String? = nil, email: String? = nil, appAccountToken: String? = nil, originalTransactionId: String? = nil)
    {
        self.userId = userId
        self.email = email
        self.appAccountToken = appAccountToken
        self.originalTransactionId = originalTransactionId
    }
}

/// Everything one accepted document says.
public struct DocumentFacts: Hashable, Sendable, Codable {
    public var format: PayloadFormat
    public var notifications: [NotificationFact]
    public var transactions: [TransactionFact]
    public var renewals: [RenewalFact]
    public var customers: [CustomerFact]
    /// The app a signed document is for (its `bundleId` and `appAppleId`), when it says.
    public var app: AppIdentity?
    /// An unsigned v1 notification whose `password` matched the app's shared secret: trusted
    /// as Apple's like signed data.
    public var sharedSecretMatched = false
    /// Transactions of another `type` than `Auto-Renewable Subscription` (consumables,
    /// non-consumables, non-renewing subscriptions) the document holds: archived with it, kept out
    /// of `transactions`, so they make no subscription and count in no figure.
    public var nonSubscriptionTransactions = 0
    /// The `transactionId`s of those transactions (a store made before they were kept aside finds
    /// the ones it holds by them when it reads its archive again).
    public var nonSubscriptionTransactionIds: [String] = []

    public init(
        format: PayloadFormat, notifications: [NotificationFact] = [], transactions: [TransactionFact] = [],
        renewals: [RenewalFact] = [], customers: [CustomerFact] = []
    ) {
        self.format = format
        self.notifications = notifications
        self.transactions = transactions
        self.renewals = renewals
        self.customers = customers
    }

    /// Whether the facts come from JWS signed by Apple (v2 notifications, App Store Server API
    /// responses) rather than from an unsigned v1 notification or `/verifyReceipt` response.
    public var isSigned: Bool {
        switch format {
        case .v2Notification, .statusResponse, .transactionHistory, .notificationHistory, .transactionInfo, .renewalInfo: true
        case .v1Notification, .verifyReceipt, .customersCSV: false
        }
    }

    /// Facts about subscriptions from a v1 notification the shared secret did not vouch for: they
    /// may not change a subscription that has signed data. (A `/verifyReceipt` response is the
    /// answer of Apple's server to the app's own request, made with the shared secret; it is
    /// trusted as such.)
    public var isUnverifiedSubscriptionData: Bool {
        format == .v1Notification && !sharedSecretMatched && (!transactions.isEmpty || !renewals.isEmpty)
    }

    /// The environments its facts come from that Apple does not document (raw values, sorted):
    /// kept, and counted only with `--environment all`.
    public var unknownEnvironments: [String] {
        var found = Set<String>()
        for n in notifications where !n.environment.isKnown { found.insert(n.environment.rawValue) }
        for t in transactions where !t.environment.isKnown { found.insert(t.environment.rawValue) }
        for r in renewals where !r.environment.isKnown { found.insert(r.environment.rawValue) }
        return found.sorted()
    }

    /// Every subscription this document speaks about, sorted.
    public var originalTransactionIds: [String] {
        var ids = Set<String>()
        for n in notifications { if let o = n.originalTransactionId { ids.insert(o) } }
        for t in transactions { ids.insert(t.originalTransactionId) }
        for r in renewals { ids.insert(r.originalTransactionId) }
        return ids.sorted()
    }
}

/// All stored facts of one subscription: the input of the timeline derivation.
public struct SubscriptionFacts: Hashable, Sendable {
    public var originalTransactionId: String
    public var transactions: [TransactionFact]
    public var renewals: [RenewalFact]
    public var notifications: [NotificationFact]

    public init(
        originalTransactionId: String, transactions: [TransactionFact] = [], renewals: [RenewalFact] = [],
        notifications: [NotificationFact] = []
    ) {
        self.originalTransactionId = originalTransactionId
        self.transactions = transactions
        self.renewals = renewals
        self.notifications = notifications
    }
}

/// Which app a document is for: the store holds one app's subscriptions.
public struct AppIdentity: Hashable, Sendable, Codable, CustomStringConvertible {
    public var bundleId: String
    public var appAppleId: Int64?

    public init(bundleId: String, appAppleId: Int64? = nil) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
    }

    /// Whether two identities can be the same app: the bundle ids match, and the Apple ids
    /// too when both are known (sandbox and Xcode data have none).
    public func matches(_ other: AppIdentity) -> Bool {
        bundleId == other.bundleId && (appAppleId == nil || other.appAppleId == nil || appAppleId == other.appAppleId)
    }

    /// `com.example.app (appAppleId 1234)`.
    public var description: String { bundleId + (appAppleId.map { " (appAppleId \($0))" } ?? "") }
}
