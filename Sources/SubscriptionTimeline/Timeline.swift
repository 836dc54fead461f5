import SubscriptionModel

/// DESIGN §3 class of a period.
public enum PeriodClass: String, Sendable, Codable, CaseIterable, Hashable {
    case activation, billingRecovery, productChange, conversion, renewal, reactivation
}

/// DESIGN §3 state of a subscription at an instant.
public enum SubscriptionState: String, Sendable, Codable, CaseIterable, Hashable {
    case standard, freeTrial, introductory, promotional, offerCode, winBack, gracePeriod, billingRetry, expired

    public init(_ kind: OfferKind) { self = SubscriptionState(rawValue: kind.rawValue)! }

    /// Every state but `billingRetry` and `expired`.
    public var isActive: Bool { self != .billingRetry && self != .expired }
}

/// DESIGN §3 event types, in the order reports list them.
public enum EventType: String, Sendable, Codable, CaseIterable, Hashable {
    case activation, reactivation, renewal, conversion, billingRecovery, productChange
    case billingIssue, autoRenewOff, autoRenewOn, refund, expiration

    public init(_ c: PeriodClass) { self = EventType(rawValue: c.rawValue)! }
}

/// One period (one transaction) after overlap cutting.
public struct Period: Hashable, Sendable, Codable {
    public var transactionId: String
    public var webOrderLineItemId: String?
    public var productId: String
    /// `purchaseDate`.
    public var start: Instant
    /// `min(expiresDate, revocationDate)`, then cut to the next period's start when they overlap.
    public var end: Instant
    /// `expiresDate` as Apple sent it (before any cut).
    public var expiresDate: Instant
    public var revocationDate: Instant?
    public var offerKind: OfferKind
    public var isFree: Bool
    /// A revoked period that was not cut short by an upgrade.
    public var isRefunded: Bool
    /// Not free and not refunded.
    public var isPaid: Bool
    public var isCutByUpgrade: Bool
    public var periodClass: PeriodClass
    /// Index into `Timeline.runs`.
    public var runIndex: Int
    public var price: Int64?
    public var currency: String?

    public init(transactionId: String, webOrderLineItemId: String? = nil, productId: String, start: Instant, end: Instant,
                expiresDate: Instant, revocationDate: Instant? = nil, offerKind: OfferKind, isFree: Bool, isRefunded: Bool,
                isPaid: Bool, isCutByUpgrade: Bool, periodClass: PeriodClass, runIndex: Int, price: Int64? = nil,
                currency: String? = nil) {
        self.transactionId = transactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.productId = productId
        self.start = start
        self.end = end
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.offerKind = offerKind
        self.isFree = isFree
        self.isRefunded = isRefunded
        self.isPaid = isPaid
        self.isCutByUpgrade = isCutByUpgrade
        self.periodClass = periodClass
        self.runIndex = runIndex
        self.price = price
        self.currency = currency
    }
}

/// A billing failure at T = the end of the period that failed to renew.
public struct BillingFailure: Hashable, Sendable, Codable {
    /// T.
    public var at: Instant
    /// The period that failed to renew.
    public var transactionId: String
    public var productId: String
    public var gracePeriodExpiresDate: Instant?
    /// Earliest of v2 EXPIRED, the first auto-renew-off toggle after T, and T + 60 days.
    public var retryEnd: Instant
    /// `min(retryEnd, start of the next period)`: the retry window is `[at, windowEnd)`.
    public var windowEnd: Instant
    /// The `billingRecovery` period that followed, if any.
    public var recoveryTransactionId: String?
    public var recoveryStart: Instant?

    public init(at: Instant, transactionId: String, productId: String, gracePeriodExpiresDate: Instant?, retryEnd: Instant,
                windowEnd: Instant, recoveryTransactionId: String? = nil, recoveryStart: Instant? = nil) {
        self.at = at
        self.transactionId = transactionId
        self.productId = productId
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.retryEnd = retryEnd
        self.windowEnd = windowEnd
        self.recoveryTransactionId = recoveryTransactionId
        self.recoveryStart = recoveryStart
    }
}

/// A maximal chain of periods joined by classes billingRecovery, productChange, conversion, renewal.
public struct Run: Hashable, Sendable, Codable {
    /// Indexes into `Timeline.periods` (inclusive range).
    public var firstPeriod: Int
    public var lastPeriod: Int
    public var start: Instant
    /// The later of the last period's end and the retry end of a billing failure at that end.
    /// The run is ended at t when t ≥ endedAt; this may lie after the data horizon.
    public var endedAt: Instant
    /// The reason the run ends (or would end at `endedAt`), from the facts of the run.
    public var expirationReason: ExpirationReason
    /// Start of the first paid period, nil when the run has none.
    public var firstPaidStart: Instant?
    /// Product of the first paid period.
    public var firstPaidProductId: String?
    /// Starts of the paid periods from the first paid one, not counting periods cut by an upgrade (sorted).
    public var paidPeriodStarts: [Instant]

    public init(firstPeriod: Int, lastPeriod: Int, start: Instant, endedAt: Instant, expirationReason: ExpirationReason,
                firstPaidStart: Instant?, firstPaidProductId: String?, paidPeriodStarts: [Instant]) {
        self.firstPeriod = firstPeriod
        self.lastPeriod = lastPeriod
        self.start = start
        self.endedAt = endedAt
        self.expirationReason = expirationReason
        self.firstPaidStart = firstPaidStart
        self.firstPaidProductId = firstPaidProductId
        self.paidPeriodStarts = paidPeriodStarts
    }

    /// Paid periods started on or before `asOf`.
    public func paidPeriods(asOf: Instant) -> Int {
        var n = 0
        for s in paidPeriodStarts where s <= asOf { n += 1 }
        return n
    }
}

/// One event of DESIGN §3, at its instant (which may lie after the data horizon, e.g. a future expiration).
public struct TimelineEvent: Hashable, Sendable, Codable {
    public var at: Instant
    public var type: EventType
    /// The product the event belongs to (DESIGN §3 `--product`).
    public var productId: String
    /// For `expiration`.
    public var expirationReason: ExpirationReason?
    public var transactionId: String?

    public init(at: Instant, type: EventType, productId: String, expirationReason: ExpirationReason? = nil, transactionId: String? = nil) {
        self.at = at
        self.type = type
        self.productId = productId
        self.expirationReason = expirationReason
        self.transactionId = transactionId
    }
}

/// An auto-renew toggle (`DID_CHANGE_RENEWAL_STATUS`) or v2 renewal fact that sets the status.
public struct AutoRenewChange: Hashable, Sendable, Codable {
    public var at: Instant
    public var isOn: Bool
    /// True for `DID_CHANGE_RENEWAL_STATUS` toggles (events when they change the status).
    public var isToggle: Bool

    public init(at: Instant, isOn: Bool, isToggle: Bool) {
        self.at = at
        self.isOn = isOn
        self.isToggle = isToggle
    }
}
