import SubscriptionModel

/// One fact per `transactionId` when the same transaction arrives in several documents.
///
/// The rule (DESIGN §2 "the latest fact by its own signedDate wins"):
/// - a v2 version (it carries `signedDate`) beats a v1 version, which has no date of its own;
/// - between v2 versions the latest `signedDate` wins, so a late `DID_RENEW` copy cannot resurrect
///   a refund and a `REFUND_REVERSED` copy can remove one;
/// - between v1 versions (or v2 versions signed at the same instant) the one with revocation /
///   cancellation info wins, then the one marked `isUpgraded`: v1 rows only ever gain those fields;
/// - any remaining tie is broken on content, so the result never depends on the order of arrival.
enum TransactionMerge {
    static func merged(_ facts: [TransactionFact]) -> [TransactionFact] {
        guard facts.count > 1 else { return facts }
        let sorted = facts.sorted { a, b in
            a.transactionId != b.transactionId ? a.transactionId < b.transactionId : isPreferred(a, over: b)
        }
        var result: [TransactionFact] = []
        result.reserveCapacity(sorted.count)
        for f in sorted where result.last?.transactionId != f.transactionId { result.append(f) }
        return result
    }

    /// A strict total order on versions of one transaction, best first.
    static func isPreferred(_ a: TransactionFact, over b: TransactionFact) -> Bool {
        switch (a.signedDate, b.signedDate) {
        case let (x?, y?) where x != y: return x > y
        case (.some, nil): return true
        case (nil, .some): return false
        default: break
        }
        if (a.revocationDate != nil) != (b.revocationDate != nil) { return a.revocationDate != nil }
        if a.isUpgraded != b.isUpgraded { return a.isUpgraded }
        return contentOrder(a, b) > 0
    }

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
        ]
        return orders.first { $0 != 0 } ?? 0
    }

    private static func order<T: Comparable>(_ a: T?, _ b: T?) -> Int {
        switch (a, b) {
        case let (x?, y?): return x < y ? -1 : (x == y ? 0 : 1)
        case (nil, .some): return -1
        case (.some, nil): return 1
        case (nil, nil): return 0
        }
    }
}
