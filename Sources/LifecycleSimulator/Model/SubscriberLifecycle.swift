import SubscriptionModel

/// One billing period (one transaction) of a simulated subscription.
public struct SimulatedTransaction: Sendable, Equatable {
    public let transactionId: UInt64
    public let webOrderLineItemId: UInt64
    public let product: Int
    public let purchaseDate: Instant
    public let expiresDate: Instant
    public let offer: SimulatedOffer?
    /// Milliunits; 0 for free periods.
    public let price: Int64
    /// `RENEWAL` (auto-renewed, recovered) or `PURCHASE` (bought by the customer).
    public let isRenewal: Bool
    /// Index of the run (activation = 0, each reactivation + 1).
    public let run: Int
    public internal(set) var revocationDate: Instant?
    public internal(set) var revocationReason: Int?
    /// When an immediate upgrade cut this period short.
    public internal(set) var upgradedAt: Instant?

    public var productId: String { Catalog.products[product].productId }
    public var isFree: Bool { offer?.isFree ?? false }
    /// Paid unless free or refunded (docs/metrics.md, "Periods") (a cut period is paid but not
    /// counted for retention).
    public var isRefunded: Bool { revocationDate != nil && upgradedAt == nil }
}

/// What the App Store would report as pending renewal info at a notification's instant.
public struct RenewalSnapshot: Sendable, Equatable {
    public var autoRenewStatus = true
    public var autoRenewProduct: Int
    public var isInBillingRetry = false
    public var gracePeriodExpiresDate: Instant?
    public var expirationIntent: Int?
    /// nil: never notified of a price increase; 0 pending; 1 consented.
    public var priceIncreaseStatus: Int?
    /// Offer redeemed for the next renewal.
    public var nextOffer: SimulatedOffer?
    /// Start of the current run (v2 `recentSubscriptionStartDate`).
    public var recentSubscriptionStartDate: Instant
    /// Where the subscription stands: v2 `status` 1 active, 2 expired, 3 billing retry, 4 grace, 5 revoked.
    public var status = 1
}

/// A lifecycle event that the App Store reports. The encoders map each one to the v1 and v2
/// notifications Apple sends for it (v1 `notification_type`, v2 `notificationType` and `subtype`).
public enum NotificationKind: String, Sendable, CaseIterable {
    case initialBuy, resubscribe, renew, billingRecovery, failToRenew, failToRenewGracePeriod, gracePeriodExpired
    case expiredVoluntary, expiredBillingRetry, expiredPriceIncrease
    case autoRenewDisabled, autoRenewEnabled
    /// The App Store turned auto-renew off after a refund request (v2 only).
    case autoRenewDisabledForRefund
    case upgrade, downgrade, offerRedeemed, priceIncreasePending, priceIncreaseAccepted, refund
    /// A family member lost access to the purchaser's subscription (Family Sharing).
    case revoke
}

/// One notification-worthy event of a subscription.
public struct SimulatedNotification: Sendable, Equatable {
    public let kind: NotificationKind
    public let instant: Instant
    /// The transaction the notification is about (index into `transactions`).
    public let transaction: Int
    public let renewal: RenewalSnapshot
    /// v2 `notificationUUID`.
    public let notificationUUID: String
}

/// What happened, in the words of the brief, for coverage checks and the manifest.
public enum ScenarioEvent: String, Sendable, CaseIterable, Codable {
    case activation, freeTrial, introPayAsYouGo, introPayUpFront, promotionalOffer, offerCode, winBack
    case renewal, earlyRenewal, autoRenewOff, autoRenewOn
    case billingFailureWithGrace, billingFailureWithoutGrace, gracePeriodExpired
    case recoveryInGracePeriod, recoveryWithNewAnniversary, billingRetryExpired, canceledDuringBillingRetry
    case voluntaryExpiration, priceIncreaseNotice, priceIncreaseConsent, priceIncreaseExpiration
    case refund, upgrade, downgrade, reactivation, appAccountToken, sandbox
    /// A family member's subscription through the purchaser's Family Sharing, and its revocations.
    case familyMember, sharingRevokedAfterRefund, sharingRevoked
}

/// One run of consecutive periods (docs/metrics.md, "Classes of periods and runs"), as the model
/// decided it.
public struct SimulatedRun: Sendable, Equatable {
    public let start: Instant
    /// Start of the first paid period (nil when the run never paid: an unconverted trial).
    public var firstPaidStart: Instant?
    /// Paid periods counted like App Store Connect: not free, not refunded, not cut by an upgrade.
    public var paidPeriods = 0
    /// When the run ended (after retry, refund or expiry); nil while open at the horizon.
    public var end: Instant?
    public var reason: ExpirationReason?
}

/// Everything one simulated subscriber did, in time order.
public struct SubscriberLifecycle: Sendable {
    public let index: Int
    public let environment: StoreEnvironment
    public let appAccountToken: String?
    /// `familyShared` for a family member's access to a purchaser's subscription.
    public let ownership: Ownership
    public internal(set) var transactions: [SimulatedTransaction] = []
    public internal(set) var notifications: [SimulatedNotification] = []
    public internal(set) var runs: [SimulatedRun] = []
    public internal(set) var scenarios: [ScenarioEvent] = []

    init(index: Int, environment: StoreEnvironment, appAccountToken: String?, ownership: Ownership = .purchased) {
        self.index = index
        self.environment = environment
        self.appAccountToken = appAccountToken
        self.ownership = ownership
    }

    public var originalTransactionId: UInt64 { transactions[0].transactionId }
    public var originalPurchaseDate: Instant { transactions[0].purchaseDate }
}
