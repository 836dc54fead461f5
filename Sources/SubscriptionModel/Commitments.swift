/// How a transaction bills (docs/metrics.md, "Billing plans and commitments"): `monthly` is one
/// monthly payment of a 12-month commitment to an annual product (`billingPlanType` `MONTHLY`);
/// everything else, v1 data and a missing value included, is `upfront`.
public enum BillingPlan: String, Sendable, Codable, CaseIterable, Hashable {
    case upfront, monthly

    /// From Apple's `billingPlanType`: `MONTHLY` is monthly, anything else upfront.
    public init(billingPlanType: String?) { self = billingPlanType == "MONTHLY" ? .monthly : .upfront }
}

/// A transaction's `commitmentInfo`: payment `billingPeriodNumber` of `totalBillingPeriods`, the
/// commitment's end (`commitmentExpiresDate`, which Apple moves after a billing recovery) and the
/// price of the whole commitment in milliunits of the transaction's currency.
public struct TransactionCommitment: Hashable, Sendable, Codable {
    public var billingPeriodNumber: Int?
    public var totalBillingPeriods: Int?
    public var commitmentExpiresDate: Instant?
    public var commitmentPrice: Int64?

    public init(
        billingPeriodNumber: Int? = nil, totalBillingPeriods: Int? = nil, commitmentExpiresDate: Instant? = nil,
        commitmentPrice: Int64? = nil
    ) {
        self.billingPeriodNumber = billingPeriodNumber
        self.totalBillingPeriods = totalBillingPeriods
        self.commitmentExpiresDate = commitmentExpiresDate
        self.commitmentPrice = commitmentPrice
    }
}

/// A renewal info's `commitmentInfo`: what happens when the running commitment ends. Its
/// `commitmentAutoRenewStatus` is the auto-renew status while a commitment runs (Apple keeps the
/// renewal info's own `autoRenewStatus` on while payments remain).
public struct RenewalCommitment: Hashable, Sendable, Codable {
    public var commitmentAutoRenewStatus: Bool?
    public var commitmentAutoRenewProductId: String?
    public var commitmentRenewalBillingPlanType: String?
    public var commitmentRenewalDate: Instant?
    /// Milliunits: the price of the first period after the renewal.
    public var commitmentRenewalPrice: Int64?

    public init(
        commitmentAutoRenewStatus: Bool? = nil, commitmentAutoRenewProductId: String? = nil,
        commitmentRenewalBillingPlanType: String? = nil, commitmentRenewalDate: Instant? = nil,
        commitmentRenewalPrice: Int64? = nil
    ) {
        self.commitmentAutoRenewStatus = commitmentAutoRenewStatus
        self.commitmentAutoRenewProductId = commitmentAutoRenewProductId
        self.commitmentRenewalBillingPlanType = commitmentRenewalBillingPlanType
        self.commitmentRenewalDate = commitmentRenewalDate
        self.commitmentRenewalPrice = commitmentRenewalPrice
    }
}

extension TransactionFact {
    /// `monthly` for `billingPlanType` `MONTHLY`, else `upfront`.
    public var billingPlan: BillingPlan { BillingPlan(billingPlanType: billingPlanType) }
}
