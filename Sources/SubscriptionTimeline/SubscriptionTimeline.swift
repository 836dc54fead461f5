import SubscriptionModel

/// The derived timeline of one subscription: the rules of docs/metrics.md applied to all its stored
/// facts.
///
/// Build it with ``derive(_:)``; read it at any instant with the query helpers below. The
/// `stateIntervals`, `autoRenewIntervals`, `runs` and `billingFailures` are the rows the store
/// materialises so that population questions are plain SQL.
public struct SubscriptionTimeline: Hashable, Sendable, Codable {
    public var originalTransactionId: String
    /// The environment of the first period (of any fact when there is no period).
    public var environment: StoreEnvironment
    /// `familyShared` when the latest transaction says so (a family member's access to someone
    /// else's purchase): none of its periods is paid, and a revocation is not a refund.
    public var ownership: Ownership
    /// Sorted by start, non-overlapping, each with its class.
    public var periods: [Period]
    /// In order; `periods[i].runIndex` points here.
    public var runs: [Run]
    /// One per failed period, sorted by `at`.
    public var billingFailures: [BillingFailure]
    /// Sorted by `at`; at one instant in the order they happen: by the period they are about,
    /// then `EventType` order, then transaction.
    public var events: [TimelineEvent]
    /// Consecutive from the first period's start; the last is `expired` and open-ended.
    public var stateIntervals: [StateInterval]
    /// Consecutive from the first period's start; the last is open-ended.
    public var autoRenewIntervals: [AutoRenewInterval]
    /// Every `autoRenewProductId` reported, by instant; read one at an instant with
    /// ``autoRenewProductId(asOf:)``.
    public var autoRenewProductIds: [TimedValue<String>]
    /// Every price-increase status reported (0 pending consent, 1 accepted), by instant; read one
    /// with ``priceIncreaseStatus(asOf:)``.
    public var priceIncreaseStatuses: [TimedValue<Int>]
    /// From the latest renewal fact that carries one.
    public var autoRenewProductId: String? { autoRenewProductIds.last?.value }
    /// Latest price-increase status: nil none known, 0 pending consent, 1 accepted.
    public var priceIncreaseStatus: Int? { priceIncreaseStatuses.last?.value }
    /// From the latest transaction (by purchase date) that carries one.
    public var appAccountToken: String?
    /// The latest notification `signedDate`, renewal-fact instant, `purchaseDate` or
    /// `revocationDate` among this subscription's facts (the data horizon of docs/metrics.md,
    /// "Which data, read when", per subscription).
    public var dataHorizon: Instant?
    /// The commitments of `monthly` periods, in order (docs/metrics.md, "Billing plans and commitments").
    public var commitments: [Commitment] = []

    public init(
        originalTransactionId: String, environment: StoreEnvironment = .production,
        ownership: Ownership = .purchased, periods: [Period] = [],
        runs: [Run] = [], billingFailures: [BillingFailure] = [], events: [TimelineEvent] = [],
        stateIntervals: [StateInterval] = [], autoRenewIntervals: [AutoRenewInterval] = [],
        autoRenewProductIds: [TimedValue<String>] = [], priceIncreaseStatuses: [TimedValue<Int>] = [],
        appAccountToken: String? = nil, dataHorizon: Instant? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.environment = environment
        self.ownership = ownership
        self.periods = periods
        self.runs = runs
        self.billingFailures = billingFailures
        self.events = events
        self.stateIntervals = stateIntervals
        self.autoRenewIntervals = autoRenewIntervals
        self.autoRenewProductIds = autoRenewProductIds
        self.priceIncreaseStatuses = priceIncreaseStatuses
        self.appAccountToken = appAccountToken
        self.dataHorizon = dataHorizon
    }
}

// MARK: - Reading the timeline at an instant

extension SubscriptionTimeline {
    /// The state interval containing `t`, nil before the first period starts.
    public func stateInterval(at t: Instant) -> StateInterval? {
        let i = lastIndex(in: stateIntervals, atOrBefore: t) { $0.from }
        guard i >= 0, stateIntervals[i].contains(t) else { return nil }
        return stateIntervals[i]
    }

    /// A family member's access through someone else's purchase.
    public var isFamilyShared: Bool { ownership == .familyShared }

    /// The revocation date of the latest period when it was a sharing revocation (the family
    /// member lost access then), else nil.
    public var sharingRevokedAt: Instant? {
        guard let last = periods.last, last.isSharingRevoked else { return nil }
        return last.revocationDate
    }

    /// Whether `periods[i]` is a late refund: refunded once the next period had begun, so its
    /// run went on (docs/metrics.md, "Late refunds").
    public func isLateRefund(period i: Int) -> Bool {
        periods[i].isLateRefund(nextStart: i + 1 < periods.count ? periods[i + 1].start : nil)
    }

    /// The state at `t` (docs/metrics.md, "States"); nil before the subscription ever started.
    public func state(at t: Instant) -> SubscriptionState? { stateInterval(at: t)?.state }

    /// Every state but `billingRetry` and `expired`; false before the subscription started.
    public func isActive(at t: Instant) -> Bool { state(at: t)?.isActive ?? false }

    /// The product states are counted under at `t` (`--product`, docs/metrics.md, "Which data, read
    /// when").
    public func productId(at t: Instant) -> String? { stateInterval(at: t)?.productId }

    /// Auto-renew status at `t`: on at every run start, then the latest toggle or v2 renewal fact
    /// at or before `t`. Nil before the subscription ever started.
    public func autoRenew(at t: Instant) -> Bool? {
        let i = lastIndex(in: autoRenewIntervals, atOrBefore: t) { $0.from }
        guard i >= 0, autoRenewIntervals[i].contains(t) else { return nil }
        return autoRenewIntervals[i].isOn
    }

    /// The product the subscription was set to renew to at `t`: the latest renewal fact at or
    /// before `t` that names one. Nil before any did.
    public func autoRenewProductId(asOf t: Instant) -> String? { latestValue(in: autoRenewProductIds, atOrBefore: t) }

    /// The price-increase status known at `t` (nil none, 0 pending consent, 1 accepted).
    public func priceIncreaseStatus(asOf t: Instant) -> Int? { latestValue(in: priceIncreaseStatuses, atOrBefore: t) }

    /// The run `t` belongs to: the latest run started at or before `t`, open or ended.
    public func runIndex(at t: Instant) -> Int? {
        let i = lastIndex(in: runs, atOrBefore: t) { $0.start }
        return i >= 0 ? i : nil
    }

    /// Whether run `run` is open at `t` (see ``Run/isOpen(at:)``).
    public func isOpen(run: Int, at t: Instant) -> Bool { runs[run].isOpen(at: t) }

    /// The latest run started on or before `asOf`.
    public func latestRun(asOf: Instant) -> Run? { runIndex(at: asOf).map { runs[$0] } }

    /// `paidPeriods` of the latest run at `asOf` (0 when there is none).
    public func paidPeriods(asOf: Instant) -> Int { latestRun(asOf: asOf)?.paidPeriods(asOf: asOf) ?? 0 }

    /// Expiration reason of the latest run at `asOf`; nil while that run is open (or none started).
    public func expirationReason(asOf: Instant) -> ExpirationReason? {
        guard let run = latestRun(asOf: asOf), !run.isOpen(at: asOf) else { return nil }
        return run.expirationReason
    }

    /// Events with `at` in `range` (half-open) and at or before `asOf`.
    public func events(in range: Range<Instant>, asOf: Instant) -> [TimelineEvent] {
        let upper = min(range.upperBound, asOf.adding(milliseconds: 1))
        var i = lastIndex(in: events, atOrBefore: range.lowerBound.adding(milliseconds: -1)) { $0.at } + 1
        var result: [TimelineEvent] = []
        while i < events.count, events[i].at < upper {
            result.append(events[i])
            i += 1
        }
        return result
    }

    /// How `failure` turned out at `asOf`; nil when its T lies after `asOf`.
    public func billingFailureOutcome(_ failure: BillingFailure, asOf: Instant) -> BillingFailureOutcome? {
        failure.outcome(asOf: asOf)
    }

    /// The billing failure whose retry window contains `t`.
    public func billingFailure(at t: Instant) -> BillingFailure? {
        let i = lastIndex(in: billingFailures, atOrBefore: t) { $0.at }
        guard i >= 0, billingFailures[i].inRetryWindow(t) else { return nil }
        return billingFailures[i]
    }

    /// Inside a retry window at `t`, grace period included (Apple reports `isInBillingRetry`
    /// throughout grace).
    public func inBillingRetry(at t: Instant) -> Bool { billingFailure(at: t) != nil }

    /// The grace period expiry while `t` is in the `gracePeriod` state, else nil.
    public func gracePeriodExpires(at t: Instant) -> Instant? {
        guard let f = billingFailure(at: t), t < f.graceEnd else { return nil }
        return f.gracePeriodExpiresDate
    }

    /// Billing failures over the subscription's life with T at or before `asOf`.
    public func billingFailureCount(asOf: Instant) -> Int {
        lastIndex(in: billingFailures, atOrBefore: asOf) { $0.at } + 1
    }
}

/// Index of the last element whose key is at or before `t` in an array sorted by that key; -1 when
/// none is.
func lastIndex<Element>(in array: [Element], atOrBefore t: Instant, key: (Element) -> Instant) -> Int {
    var lo = 0
    var hi = array.count
    while lo < hi {
        let mid = (lo + hi) / 2
        if key(array[mid]) <= t { lo = mid + 1 } else { hi = mid }
    }
    return lo - 1
}
