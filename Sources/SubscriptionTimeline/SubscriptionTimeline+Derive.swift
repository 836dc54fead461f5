import SubscriptionModel

extension SubscriptionTimeline {
    /// docs/metrics.md applied literally to every fact of one subscription. Facts may come in any order
    /// and duplicated; the result depends only on the set of facts. O(n log n) in the facts.
    ///
    /// Every fact passed in is taken to belong to `facts.originalTransactionId`, and every fact is
    /// used whatever its environment: selecting facts is the store's job.
    ///
    /// Where the definitions are silent on real data (docs/metrics.md, "Decisions on data the
    /// definitions do not spell out"), this is what it does:
    /// - **Transactions without `expiresDate`** (non-renewing subscriptions, non-consumables that
    ///   share the id space) are not periods; they only feed `appAccountToken` and the horizon.
    /// - **The same transaction in several facts** is merged by ``TransactionMerge``: latest
    ///   `signedDate` for v2, the version with revocation / upgrade info for v1, v2 over v1.
    /// - **A revocation (or expiry) dated before the purchase** leaves an empty period
    ///   `[start, start)`; a refund event is then dated at the start.
    /// - **Two periods starting at the same instant** are ordered upgraded-first, then shorter-first,
    ///   then by `transactionId`; the first is cut to zero length (and is cut by an upgrade when it
    ///   would have lasted more than 24 h past the other's start).
    /// - **A failure for a period cut by an upgrade**, or for a period refunded before its
    ///   `expiresDate`, is dropped: that period never reached a renewal. A failure for a period
    ///   refunded after its `expiresDate` (refund during retry) is kept.
    /// - **A v1 `is_in_billing_retry_period` "1" on an old document** counts as a failure at the end
    ///   of that document's latest row; its retry end is never later than T + 60 d, so a stale flag
    ///   cannot hold the subscription in retry.
    /// - **A fact naming an unknown transaction** (or none) is about the latest period started at or
    ///   before its instant; before the first period it is ignored.
    /// - **Retry end** takes, of the v2 `EXPIRED` notifications, only subtype `BILLING_RETRY`, as
    ///   docs/metrics.md says; the other subtypes are sent at a renewal date, not during retry.
    /// - **"After T"** for retry end includes T itself: an auto-renew-off toggle or `EXPIRED` at the
    ///   failed period's end leaves an empty retry window (a billing issue, no retry state).
    /// - **A toggle at a run start** belongs to the new run: auto-renew is on at the start, then the
    ///   toggle applies (so an "on" there is no event, an "off" there is). A fact exactly at the next
    ///   run's start is not a fact of the previous run. Toggles before the first period are ignored.
    /// - **Facts at the same instant**: a toggle beats a v2 renewal fact, "off" beats "on".
    /// - **A grace date at or before T** is ignored; the grace state never outlasts the retry window.
    /// - **A late refund** (the next period had started at or before its `revocationDate`) does
    ///   not end the run, nor give the run's expiration reason `refund`; the period is still
    ///   refunded (not paid) with its refund event (docs/metrics.md, "Late refunds").
    /// - **Events at as-of** count ("at or before"); event ranges are half-open.
    /// - **Ownership** is the latest transaction's by purchase date (ties: the greater
    ///   `transactionId`); a transaction without `inAppOwnershipType` but revoked with
    ///   `revocationType` `FAMILY_REVOKE` is family-shared. A family-shared subscription's revoked
    ///   periods are sharing revocations (never refunds), whichever transaction said so.
    public static func derive(_ facts: SubscriptionFacts) -> SubscriptionTimeline {
        var derivation = TimelineDerivation(facts)
        return derivation.timeline()
    }
}
