import SubscriptionModel

/// A billing failure at T = the `end` of the period that failed to renew (docs/metrics.md, "Billing
/// failures, grace and retry"). One row per failed period; this is what the store materialises for
/// `report recovery`.
public struct BillingFailure: Hashable, Sendable, Codable {
    /// T.
    public var at: Instant
    /// Index into `SubscriptionTimeline.periods` of the period that failed to renew.
    public var periodIndex: Int
    public var transactionId: String
    public var productId: String
    /// As reported (the latest renewal fact about the failed period that carries one, and only
    /// when it lies after T). The grace state is further bounded by `windowEnd`.
    public var gracePeriodExpiresDate: Instant?
    /// Earliest of a v2 `EXPIRED`/`BILLING_RETRY` at or after T, the first auto-renew-off toggle
    /// at or after T, and T + 60 days.
    public var retryEnd: Instant
    /// `min(retryEnd, start of the next period)`: the retry window is `[at, windowEnd)`.
    public var windowEnd: Instant
    /// The `billingRecovery` period that followed, if any.
    public var recoveryTransactionId: String?
    public var recoveryStart: Instant?

    public init(
        at: Instant, periodIndex: Int, transactionId: String, productId: String, gracePeriodExpiresDate: Instant?,
        retryEnd: Instant, windowEnd: Instant, recoveryTransactionId: String? = nil, recoveryStart: Instant? = nil
    ) {
        self.at = at
        self.periodIndex = periodIndex
        self.transactionId = transactionId
        self.productId = productId
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.retryEnd = retryEnd
        self.windowEnd = windowEnd
        self.recoveryTransactionId = recoveryTransactionId
        self.recoveryStart = recoveryStart
    }

    /// End of the grace state: `gracePeriodExpiresDate` bounded to `[at, windowEnd]`, or `at` when
    /// there is no grace period.
    public var graceEnd: Instant {
        guard let g = gracePeriodExpiresDate else { return at }
        return min(max(g, at), windowEnd)
    }

    /// Whether `t` lies in the retry window `[at, windowEnd)`.
    public func inRetryWindow(_ t: Instant) -> Bool { at <= t && t < windowEnd }

    /// The billing recovery outcome (docs/metrics.md, "Billing failures, grace and retry") read at
    /// `asOf`; nil when T itself lies after `asOf` (the failure has not happened yet at that
    /// instant and is not counted).
    public func outcome(asOf: Instant) -> BillingFailureOutcome? {
        guard at <= asOf else { return nil }
        if let r = recoveryStart, r <= asOf {
            return .recovered(days: Double(r.milliseconds - at.milliseconds) / Double(Instant.millisecondsPerDay))
        }
        return retryEnd <= asOf ? .expired : .pending
    }
}

/// How a billing failure turned out, read at an as-of instant.
public enum BillingFailureOutcome: Hashable, Sendable {
    /// A `billingRecovery` period followed; days = (its start − T) / 86 400 s, so a recovery inside
    /// the grace period that keeps the billing date takes 0 days.
    case recovered(days: Double)
    /// Retry ended without recovery.
    case expired
    /// Still in the retry window.
    case pending
}
