import SubscriptionModel
import SubscriptionTimeline

/// The commitment running at as-of, as `report subscriber` and the Subscriber pane give it
/// (docs/metrics.md, "Billing plans and commitments", "Committed revenue").
public struct CommitmentStatus: Sendable, Equatable {
    /// Payment k of n (the latest period started by as-of); nil when Apple did not say.
    public var period: Int?
    public var of: Int?
    /// `commitmentExpiresDate` as Apple last reported it.
    public var ends: Instant?
    /// The whole commitment, milliunits of `currency`.
    public var price: Int64?
    public var currency: String?
    /// Whether the commitment renews at its end.
    public var autoRenew: Bool
    /// When it was turned off, while off.
    public var turnedOff: Instant?
    /// Committed revenue: what is left to charge; nil when unpriced.
    public var remaining: Int64?
    /// The current payment's price (milliunits of `paymentCurrency`), nil when unpriced.
    public var paymentPrice: Int64?
    public var paymentCurrency: String?

    /// The commitment running at `asOf`, nil when none does.
    init?(_ t: SubscriptionTimeline, money: [PeriodMoney], asOf: Instant) {
        guard let c = t.runningCommitment(at: asOf) else { return nil }
        let commitment = t.commitments[c]
        let current =
            (commitment.firstPeriod...commitment.lastPeriod).last { t.periods[$0].start <= asOf } ?? commitment.firstPeriod
        period = t.periods[current].commitmentPeriod
        of = commitment.payments
        ends = commitment.ends
        price = commitment.price
        currency = commitment.currency
        autoRenew = t.autoRenew(at: asOf) ?? true
        if !autoRenew { turnedOff = t.autoRenewIntervals.last { $0.from <= asOf }?.from }
        remaining = t.isFamilyShared ? nil : t.committedRevenue(at: asOf, money: money)?.amount
        paymentPrice = money[current].price
        paymentCurrency = money[current].currency
    }

    /// "monthly payments, 12-month commitment — payment 4 of 12, commitment ends 2027-03-02;
    /// renews: no (turned off 2026-11-02); 8 payments of 10.99 EUR remain (87.92)".
    public var summary: String {
        var text = "monthly payments, " + (of.map { "\($0)-month commitment" } ?? "commitment")
        var parts: [String] = []
        if let period { parts.append("payment \(period)" + (of.map { " of \($0)" } ?? "")) }
        if let ends { parts.append("commitment ends \(ends.isoDate)") }
        if !parts.isEmpty { text += " — " + parts.joined(separator: ", ") }
        text += "; renews: " + (autoRenew ? "yes" : "no" + (turnedOff.map { " (turned off \($0.isoDate))" } ?? ""))
        if let period, let of {
            let left = max(of - period, 0)
            let payments = "\(left) payment\(left == 1 ? "" : "s")"
            let each = paymentPrice.map { " of " + MoneyFormat.text($0, paymentCurrency) } ?? ""
            text +=
                "; \(payments)\(each) remain" + (remaining.map { " (" + MoneyFormat.number($0, currency: currency) + ")" } ?? "")
        } else if let remaining {
            text += "; " + MoneyFormat.text(remaining, currency) + " left to charge"
        }
        return text
    }

    /// What a billing failure of an owed payment means for access.
    public static let noGrace = "no access until paid (no grace period for commitments)"
}
