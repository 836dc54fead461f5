import SubscriptionModel

/// One fact per `transactionId` when the same transaction arrives in several documents.
///
/// The rule (docs/metrics.md, "Which data, read when": the latest version by its own date wins):
/// - a version's own date is its `signedDate` (v2) or, for a v1 row, its revocation date; the
///   latest wins, and a version with a date beats one without. So a late `DID_RENEW` copy cannot
///   resurrect a refund, a `REFUND_REVERSED` copy can remove one, and a v1 row (a verifyReceipt
///   response, say) revoked after the last v2 copy was signed is not lost to older v2 copies;
/// - at the same date a v2 version beats a v1 version;
/// - then the one with revocation / cancellation info wins, then the one marked `isUpgraded`:
///   v1 rows only ever gain those fields;
/// - any remaining tie is broken on content, so the result never depends on the order of arrival.
enum TransactionMerge {
    static func merged(_ facts: [TransactionFact]) -> [TransactionFact] {
        guard facts.count > 1 else { return facts }
        let sorted = facts.sorted { a, b in
            a.transactionId != b.transactionId ? a.transactionId < b.transactionId : isPreferred(a, over: b)
        }
        var result: [TransactionFact] = []
        result.reserveCapacity(sorted.count)
        for f in sorted {
            guard result.last?.transactionId == f.transactionId else {
                result.append(f)
                continue
            }
            // The price is what was charged, whichever copy tells it (v2 copies come first).
            let i = result.count - 1
            if result[i].price == nil, let price = f.price, let currency = f.currency {
                result[i].price = price
                result[i].currency = currency
            }
            if result[i].storefront == nil { result[i].storefront = f.storefront }
        }
        return result
    }

    /// A strict total order on versions of one transaction, best first.
    static func isPreferred(_ a: TransactionFact, over b: TransactionFact) -> Bool {
        switch (ownDate(a), ownDate(b)) {
        case (let x?, let y?) where x != y: return x > y
        case (.some, nil): return true
        case (nil, .some): return false
        default: break
        }
        if (a.signedDate != nil) != (b.signedDate != nil) { return a.signedDate != nil }
        if (a.revocationDate != nil) != (b.revocationDate != nil) { return a.revocationDate != nil }
        if a.isUpgraded != b.isUpgraded { return a.isUpgraded }
        return contentOrder(a, b) > 0
    }

    /// When this version was true: v2 `signedDate`; a v1 row has no date but its revocation's.
    private static func ownDate(_ f: TransactionFact) -> Instant? { f.signedDate ?? f.revocationDate }

    /// Compares the fields the timeline reads; 0 only when they all agree.
    private static func contentOrder(_ a: TransactionFact, _ b: TransactionFact) -> Int {
        let orders = [
            order(a.expiresDate, b.expiresDate), order(a.revocationDate, b.revocationDate),
            order(a.purchaseDate, b.purchaseDate), order(a.productId, b.productId),
            order(a.offerType, b.offerType), order(a.offerDiscountType, b.offerDiscountType),
            order(a.offerIdentifier, b.offerIdentifier), order(a.appAccountToken, b.appAccountToken),
            order(a.webOrderLineItemId, b.webOrderLineItemId), order(a.price, b.price),
            order(a.currency, b.currency), order(a.environment.rawValue, b.environment.rawValue),
            order(a.revocationReason, b.revocationReason), order(a.originalPurchaseDate, b.originalPurchaseDate),
            order(a.storefront, b.storefront), order(a.revocationType, b.revocationType),
            order(a.revocationPercentage, b.revocationPercentage),
        ]
        return orders.first { $0 != 0 } ?? 0
    }

    private static func order<T: Comparable>(_ a: T?, _ b: T?) -> Int {
        switch (a, b) {
        case (let x?, let y?): return x < y ? -1 : (x == y ? 0 : 1)
        case (nil, .some): return -1
        case (.some, nil): return 1
        case (nil, nil): return 0
        }
    }
}
