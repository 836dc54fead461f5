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
    /// Set for one monthly payment of a 12-month commitment (`billingPlanType` `MONTHLY`, v2 only).
    public internal(set) var commitment: CommitmentPayment? = nil
    /// Refunded after the next period started: the money returns and the run goes on
    /// (docs/metrics.md, "Late refunds").
    public internal(set) var isLateRefund = false

    public var productId: String { Catalog.products[product].productId }
    public var isFree: Bool { offer?.isFree ?? false }
    /// Paid unless free or refunded (docs/metrics.md, "Periods") (a cut period is paid but not
    /// counted for retention).
    public var isRefunded: Bool { revocationDate != nil && upgradedAt == nil }
}

/// The transaction's `commitmentInfo`: payment `period` of `periods`, the commitment's end and
/// its total price.
public struct CommitmentPayment: Sendable, Equatable {
    /// `billingPeriodNumber`, 1…`periods`.
    public let period: Int
    /// `totalBillingPeriods`.
    public let periods: Int
    /// `commitmentExpiresDate`; it moves after a billing recovery.
    public let expires: Instant
    /// `commitmentPrice` in milliunits of USD (the encoder converts it with the storefront).
    public let price: Int64
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
    /// While a 12-month commitment runs: whether the commitment renews at its end (the renewal
    /// info's `commitmentInfo.commitmentAutoRenewStatus`); nil otherwise.
    public var commitmentAutoRenew: Bool? = nil
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
    /// A refund of last month's charge of an upfront subscription while it goes on (v2 only).
    case lateRefund
    /// Monthly payments with a 12-month commitment (v2 only, outside the US and Singapore): a
    /// commitment started, a full term renewed into the next one, commitment auto-renew turned
    /// off mid-term (payments go on to the last), the voluntary expiration after that last
    /// payment, a billing failure recovered (the end date moves), one expiring after 90 days, a
    /// refund of an earlier payment (the commitment goes on), a refund of the current payment
    /// (it ends), and an upgrade ending the term.
    case commitment, commitmentRenewed, commitmentCanceled, commitmentExpiredAfterCancel
    case commitmentBillingRecovery, commitmentBillingExpired
    case commitmentEarlierPaymentRefunded, commitmentCurrentPaymentRefunded, commitmentUpgrade
}

/// One run of consecutive periods (docs/metrics.md, "Classes of periods and runs"), as the model
/// decided it.
public struct SimulatedRun: Sendable, Equatable {
    public let start: Instant
    /// Start of the first paid period (nil when the run never paid: an unconverted trial).
    public var firstPaidStart: Instant?
    /// Paid periods counted like App Store Connect: not free, not refunded, not cut by an upgrade
    /// (a late refund's period stays counted: the model draws the next renewal from it).
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
