import SubscriptionModel

// Monthly payments with a 12-month commitment (App Store Server API 1.21): a transaction's
// `billingPlanType` and `commitmentInfo`, a renewal info's `renewalBillingPlanType` and
// `commitmentInfo` (docs/metrics.md, "Billing plans and commitments").
extension SignedParts {
    static func readCommitment(_ t: FieldReader, into fact: inout TransactionFact) throws(PayloadError) {
        fact.billingPlanType = try t.string("billingPlanType")
        guard let c = try t.object("commitmentInfo") else { return }
        let k = try c.int("billingPeriodNumber")
        let n = try c.int("totalBillingPeriods")
        if let n, n < 1 { throw c.mismatch("totalBillingPeriods", expected: "a count of at least 1", found: .integer(Int64(n))) }
        if let k, k < 1 || k > (n ?? Int.max) {
            throw c.mismatch(
                "billingPeriodNumber", expected: "a payment number from 1 to totalBillingPeriods", found: .integer(Int64(k)))
        }
        let price = try c.int64("commitmentPrice")
        if let price, price < 0 {
            throw c.mismatch("commitmentPrice", expected: "milliunits of at least 0", found: .integer(price))
        }
        fact.commitment = TransactionCommitment(
            billingPeriodNumber: k, totalBillingPeriods: n,
            commitmentExpiresDate: try c.milliseconds("commitmentExpiresDate", .scheduled), commitmentPrice: price)
    }

    static func readCommitment(_ r: FieldReader, into fact: inout RenewalFact) throws(PayloadError) {
        fact.renewalBillingPlanType = try r.string("renewalBillingPlanType")
        guard let c = try r.object("commitmentInfo") else { return }
        var status: Bool?
        if let value = try c.int("commitmentAutoRenewStatus") {
            guard value == 0 || value == 1 else {
                throw c.mismatch("commitmentAutoRenewStatus", expected: "0 or 1", found: .integer(Int64(value)))
            }
            status = value == 1
        }
        let price = try c.int64("commitmentRenewalPrice")
        if let price, price < 0 {
            throw c.mismatch("commitmentRenewalPrice", expected: "milliunits of at least 0", found: .integer(price))
        }
        fact.commitment = RenewalCommitment(
            commitmentAutoRenewStatus: status, commitmentAutoRenewProductId: try c.string("commitmentAutoRenewProductId"),
            commitmentRenewalBillingPlanType: try c.string("commitmentRenewalBillingPlanType"),
            commitmentRenewalDate: try c.milliseconds("commitmentRenewalDate", .scheduled),
            commitmentRenewalPrice: price)
    }
}
