import SubscriptionModel

/// A total order over versions of the same fact, so that whichever arrives last, the same one
/// wins. The same order as the timeline's `TransactionMerge`: the latest date of its own first
/// (`signedDate`; a v1 row has none but its revocation date), then a v2 version over a v1 one,
/// then a version that knows of a revocation or an upgrade (Apple only ever adds those), then
/// the content itself as a tiebreak.
///
/// An unverified version (unsigned v1 data the shared secret did not vouch for) ranks below
/// every verified one: it never replaces a verified row, and a verified row always replaces it.
enum FactRank {
    /// Sorts before any digit.
    static let unverifiedPrefix = "!"

    static func rank(of t: TransactionFact, unverified: Bool) -> String {
        unverified ? unverifiedPrefix + rank(of: t) : rank(of: t)
    }

    static func rank(of t: TransactionFact) -> String {
        let own = (t.signedDate ?? t.revocationDate)?.milliseconds ?? 0
        var text = String(own)
        text = String(repeating: "0", count: max(0, 15 - text.count)) + text
        text += t.signedDate == nil ? "0" : "1"
        text += t.revocationDate == nil ? "0" : "1"
        text += t.isUpgraded ? "1" : "0"
        text += ":" + contentHash(of: t)
        return text
    }

    static func contentHash(of t: TransactionFact) -> String {
        var h = FNV()
        h.add(t.transactionId)
        h.add(t.originalTransactionId)
        h.add(t.webOrderLineItemId)
        h.add(t.productId)
        h.add(t.subscriptionGroupIdentifier)
        h.add(t.purchaseDate.milliseconds)
        h.add(t.originalPurchaseDate?.milliseconds)
        h.add(t.expiresDate?.milliseconds)
        h.add(t.revocationDate?.milliseconds)
        h.add(t.revocationReason.map(Int64.init))
        h.add(t.isUpgraded ? 1 : 0)
        h.add(t.offerType.map(Int64.init))
        h.add(t.offerDiscountType)
        h.add(t.offerIdentifier)
        h.add(t.appAccountToken)
        h.add(t.environment.rawValue)
        h.add(t.price)
        h.add(t.currency)
        h.add(t.inAppOwnershipType)
        h.add(t.signedDate?.milliseconds)
        // Added later: hashed only when present, so the rank of a fact without them is unchanged.
        if let s = t.storefront { h.add(s) }
        if let s = t.revocationType { h.add(s) }
        if let p = t.revocationPercentage { h.add(Int64(p)) }
        if let plan = t.billingPlanType { h.add("billingPlanType=" + plan) }
        if let c = t.commitment {
            h.add("commitment")
            h.add(c.billingPeriodNumber.map(Int64.init))
            h.add(c.totalBillingPeriods.map(Int64.init))
            h.add(c.commitmentExpiresDate?.milliseconds)
            h.add(c.commitmentPrice)
        }
        return h.hex
    }

    static func contentHash(of r: RenewalFact) -> String {
        var h = FNV()
        h.add(r.productId)
        h.add(r.autoRenewProductId)
        h.add(r.autoRenewStatus.map { $0 ? 1 : 0 })
        h.add(r.isInBillingRetryPeriod.map { $0 ? 1 : 0 })
        h.add(r.gracePeriodExpiresDate?.milliseconds)
        h.add(r.expirationIntent.map(Int64.init))
        h.add(r.priceIncreaseStatus.map(Int64.init))
        h.add(r.transactionId)
        h.add(r.environment.rawValue)
        h.add(r.isV1 ? 1 : 0)
        // Added later: hashed only when present, so the hash of a fact without them is unchanged.
        if let plan = r.renewalBillingPlanType { h.add("renewalBillingPlanType=" + plan) }
        if let c = r.commitment {
            h.add("commitment")
            h.add(c.commitmentAutoRenewStatus.map { $0 ? 1 : 0 })
            h.add(c.commitmentAutoRenewProductId)
            h.add(c.commitmentRenewalBillingPlanType)
            h.add(c.commitmentRenewalDate?.milliseconds)
            h.add(c.commitmentRenewalPrice)
        }
        return h.hex
    }
}

/// 64-bit FNV-1a over field values with separators, so ("ab","c") and ("a","bc") differ.
struct FNV {
    var state: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func byte(_ b: UInt8) {
        state ^= UInt64(b)
        state &*= 0x0000_0100_0000_01b3
    }

    mutating func add(_ s: String?) {
        guard let s else {
            byte(0xfe)
            byte(0x1f)
            return
        }
        for b in s.utf8 { byte(b) }
        byte(0x1f)
    }

    mutating func add(_ v: Int64?) {
        guard let v else {
            byte(0xfe)
            byte(0x1f)
            return
        }
        var x = UInt64(bitPattern: v)
        for _ in 0..<8 {
            byte(UInt8(x & 0xff))
            x >>= 8
        }
        byte(0x1f)
    }

    var hex: String {
        let s = String(state, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
