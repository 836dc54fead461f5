import SubscriptionModel

/// A maximal chain of periods joined by the classes billingRecovery, productChange, conversion and
/// renewal (docs/metrics.md, "Classes of periods and runs"). One row per run is what the store
/// materialises for cohorts.
public struct Run: Hashable, Sendable, Codable {
    /// Indexes into `SubscriptionTimeline.periods` (inclusive).
    public var firstPeriod: Int
    public var lastPeriod: Int
    public var start: Instant
    /// The later of the last period's end and the retry end of a billing failure at that end.
    /// The run is open on `[start, endedAt)` and ended from `endedAt` on; this may lie after the
    /// data horizon (a run that has not ended yet).
    public var endedAt: Instant
    /// Why the run ends (or will end at `endedAt` unless new facts arrive), from the facts of the
    /// run. Read it through `SubscriptionTimeline.expirationReason(asOf:)`, which is nil while open.
    public var expirationReason: ExpirationReason
    /// Start of the first paid period, nil when the run has none. A run is a cohort member at
    /// as-of when this is on or before as-of.
    public var firstPaidStart: Instant?
    /// Product of the first paid period (the run's product for cohorts).
    public var firstPaidProductId: String?
    /// Starts of the paid periods from the first paid one on, not counting periods cut by an
    /// upgrade (sorted). May be empty while `firstPaidStart` is set, when the only paid period so
    /// far was cut by an upgrade.
    public var paidPeriodStarts: [Instant]

    public init(
        firstPeriod: Int, lastPeriod: Int, start: Instant, endedAt: Instant, expirationReason: ExpirationReason,
        firstPaidStart: Instant?, firstPaidProductId: String?, paidPeriodStarts: [Instant]
    ) {
        self.firstPeriod = firstPeriod
        self.lastPeriod = lastPeriod
        self.start = start
        self.endedAt = endedAt
        self.expirationReason = expirationReason
        self.firstPaidStart = firstPaidStart
        self.firstPaidProductId = firstPaidProductId
        self.paidPeriodStarts = paidPeriodStarts
    }

    /// UTC month of the first paid period's start: the run's retention cohort.
    public var cohortMonth: Month? { firstPaidStart?.month }

    /// Open at `t`: inside one of its periods, a gap of at most 24 h its next period closes, or
    /// the retry window of its last period; all of which is exactly `[start, endedAt)`.
    public func isOpen(at t: Instant) -> Bool { start <= t && t < endedAt }

    /// Paid periods started on or before `asOf` (`paidPeriods` of docs/metrics.md, "Retention
    /// cohorts").
    public func paidPeriods(asOf: Instant) -> Int {
        var lo = 0
        var hi = paidPeriodStarts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if paidPeriodStarts[mid] <= asOf { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
