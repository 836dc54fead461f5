import SubscriptionModel

/// One period (one transaction) after deduplication and overlap cutting (docs/metrics.md, "Periods").
public struct Period: Hashable, Sendable, Codable {
    public var transactionId: String
    public var webOrderLineItemId: String?
    public var productId: String
    /// `purchaseDate`.
    public var start: Instant
    /// `min(expiresDate, revocationDate)`, then cut to the next period's start when they overlap.
    /// Never before `start`: a revocation (or expiry) dated before the purchase leaves an empty
    /// period `[start, start)` that covers no instant.
    public var end: Instant
    /// `expiresDate` as Apple sent it (before any cut).
    public var expiresDate: Instant
    /// `revocationDate` as Apple sent it.
    public var revocationDate: Instant?
    public var offerKind: OfferKind
    public var isFree: Bool
    /// A revoked period of a purchased subscription that was not cut short by an upgrade, or that
    /// Apple reports as refunded even though an upgrade cut it (`TransactionFact.isReportedRefund`).
    public var isRefunded: Bool
    /// A revoked period of a family-shared subscription that was not cut short by an upgrade: the
    /// family member lost access (sharing turned off, left the family, purchaser refunded); nobody
    /// was refunded.
    public var isSharingRevoked: Bool
    /// Not free, not refunded and not family-shared (the purchaser pays, not the member).
    public var isPaid: Bool
    /// `isUpgraded`, or the next period starts more than 24 h before this one's uncut end.
    public var isCutByUpgrade: Bool
    public var periodClass: PeriodClass
    /// Index into `SubscriptionTimeline.runs`.
    public var runIndex: Int
    /// As the transaction reported them (v2 only); see ``PeriodMoney`` for what was charged.
    public var price: Int64?
    public var currency: String?
    /// v2 `storefront` (3-letter code); nil for v1.
    public var storefront: String?
    /// v2 `revocationType` and `revocationPercentage` (thousandths of a percent).
    public var revocationType: String?
    public var revocationPercentage: Int?
    /// v2 `offerIdentifier`; v1 `promotional_offer_id` or `offer_code_ref_name`.
    public var offerIdentifier: String?
    /// `monthly` for one payment of a 12-month commitment (docs/metrics.md, "Billing plans and
    /// commitments"), with its payment number k of n; `upfront` (k and n nil) otherwise.
    public var billingPlan: BillingPlan = .upfront
    public var commitmentPeriod: Int? = nil
    public var commitmentPeriods: Int? = nil

    public init(
        transactionId: String, webOrderLineItemId: String? = nil, productId: String, start: Instant, end: Instant,
        expiresDate: Instant, revocationDate: Instant? = nil, offerKind: OfferKind, isFree: Bool, isRefunded: Bool,
        isPaid: Bool, isCutByUpgrade: Bool, periodClass: PeriodClass, runIndex: Int, price: Int64? = nil,
        currency: String? = nil, storefront: String? = nil, revocationType: String? = nil,
        revocationPercentage: Int? = nil, offerIdentifier: String? = nil, isSharingRevoked: Bool = false
    ) {
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
        self.isSharingRevoked = isSharingRevoked
        self.isPaid = isPaid
        self.isCutByUpgrade = isCutByUpgrade
        self.periodClass = periodClass
        self.runIndex = runIndex
        self.price = price
        self.currency = currency
        self.storefront = storefront
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
        self.offerIdentifier = offerIdentifier
    }

    /// Paid and not cut by an upgrade: a paid period as retention counts it (docs/metrics.md,
    /// "Retention cohorts"). A run's `paidPeriodStarts` and the store's `countsForRetention`
    /// column are both this.
    public var countsForRetention: Bool { isPaid && !isCutByUpgrade }

    /// A refund or a sharing revocation.
    public var isRevoked: Bool { isRefunded || isSharingRevoked }

    /// A refund that does not end its run (docs/metrics.md, "Late refunds"): the next period of the
    /// subscription, starting at `nextStart`, had begun at or before the `revocationDate`. Apple
    /// returned an earlier charge (a past month, while the subscription goes on) or refunded a
    /// period an upgrade replaced. It returns the money, the period is not paid and its `refund`
    /// event counts, but the classes and the expiration reason treat the period as not refunded.
    /// Any other refund ends its run, the last period's always.
    public func isLateRefund(nextStart: Instant?) -> Bool {
        guard isRefunded, let r = revocationDate, let next = nextStart else { return false }
        return next <= r
    }

    /// A `monthly` payment k of n with k < n: a billing failure of it has no grace period and a
    /// 90-day retry that a toggle does not end (the payments are owed).
    public var isOwedCommitmentPayment: Bool {
        guard billingPlan == .monthly, let k = commitmentPeriod, let n = commitmentPeriods else { return false }
        return k < n
    }

    /// Whether `t` lies in `[start, end)`.
    public func covers(_ t: Instant) -> Bool { start <= t && t < end }
}
