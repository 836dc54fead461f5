import SubscriptionModel

extension TransactionFact {
    /// Revoked, and Apple says it was refunded: a `revocationReason` (v1 `cancellation_reason`),
    /// or `revocationType` `REFUND_FULL` / `REFUND_PRORATED`. Such a period is a refund even when an
    /// upgrade cut it, which Apple also marks with a revocation (docs/metrics.md, "Periods").
    public var isReportedRefund: Bool {
        guard revocationDate != nil else { return false }
        return revocationReason != nil || revocationType == "REFUND_FULL" || revocationType == "REFUND_PRORATED"
    }
}
