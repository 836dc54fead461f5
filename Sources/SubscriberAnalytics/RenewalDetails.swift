import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// What Apple tells about a subscription's next renewal and its purchases (docs/metrics.md,
/// "Renewal details from Apple"): each from the latest v2 renewal fact at or before as-of that
/// carries it.
public struct RenewalDetails: Sendable, Equatable {
    /// Milliunits of `renewalCurrency`: what the next renewal charges, offers included.
    public var renewalPrice: Int64?
    public var renewalCurrency: String?
    /// Apple's win-back offer ids for this customer, best first (empty when unknown or none).
    public var eligibleWinBackOfferIds: [String] = []
    /// The app download behind the purchase (renewal info, else the latest transaction carrying it).
    public var appTransactionId: String?
    /// Every subscription with that `appTransactionId` (this one included), sorted: one Apple
    /// Account's subscriptions in the app.
    public var sameAccount: [String] = []
    /// Per `transactionId`: the offer's length and who started the transaction.
    public var periods: [String: PeriodDetail] = [:]

    public init() {}

    /// From a subscription's facts, at `asOf`.
    public init(facts: SubscriptionFacts, asOf: Instant) {
        let renewals = facts.renewals.filter { !$0.isV1 && $0.instant <= asOf }.sorted { $0.instant < $1.instant }
        if let priced = renewals.last(where: { $0.renewalPrice != nil }) {
            renewalPrice = priced.renewalPrice
            renewalCurrency = priced.renewalCurrency
        }
        eligibleWinBackOfferIds = renewals.last(where: { $0.eligibleWinBackOfferIds != nil })?.eligibleWinBackOfferIds ?? []
        appTransactionId =
            renewals.last(where: { $0.appTransactionId != nil })?.appTransactionId
            ?? facts.transactions.filter { $0.purchaseDate <= asOf && $0.appTransactionId != nil }
            .max { $0.purchaseDate < $1.purchaseDate }?.appTransactionId
            ?? facts.transactions.first { $0.appTransactionId != nil }?.appTransactionId
        for t in facts.transactions where t.offerPeriod != nil || t.transactionReason != nil {
            periods[t.transactionId] = PeriodDetail(offerPeriod: t.offerPeriod, transactionReason: t.transactionReason)
        }
    }
}

/// One period's details from its transaction.
public struct PeriodDetail: Sendable, Equatable {
    /// ISO 8601 duration (`P1M`).
    public var offerPeriod: String?
    /// `PURCHASE` or `RENEWAL`.
    public var transactionReason: String?

    public init(offerPeriod: String? = nil, transactionReason: String? = nil) {
        self.offerPeriod = offerPeriod
        self.transactionReason = transactionReason
    }

    /// "Apple" (a renewal the system started), "customer" (a purchase), nil unknown.
    public var initiatedBy: String? {
        switch transactionReason {
        case "RENEWAL": "Apple"
        case "PURCHASE": "customer"
        default: nil
        }
    }
}

/// The words report subscriber and the Subscriber pane share.
public enum RenewalText {
    /// `P1M` → `1 month`, `P3D` → `3 days`, `P2W` → `2 weeks`, `P1Y` → `1 year`; anything else as sent.
    public static func duration(_ iso: String) -> String {
        let units: [(Character, String)] = [("Y", "year"), ("M", "month"), ("W", "week"), ("D", "day")]
        guard iso.hasPrefix("P"), !iso.contains("T") else { return iso }
        var parts: [String] = []
        var digits = ""
        for c in iso.dropFirst() {
            if c.isASCII && c.isNumber {
                digits.append(c)
            } else if let unit = units.first(where: { $0.0 == c }), let n = Int(digits) {
                parts.append("\(n) \(unit.1)\(n == 1 ? "" : "s")")
                digits = ""
            } else {
                return iso
            }
        }
        return digits.isEmpty && !parts.isEmpty ? parts.joined(separator: " ") : iso
    }

    /// "Next charge 9.99 USD on 2026-01-14", with the last charge when it differs and why
    /// ("(last charge 4.99 USD: introductory offer ends)"); "Renewal price …" when no renewal is
    /// ahead; nil when Apple gave no renewal price.
    public static func nextCharge(_ r: SubscriberReport) -> String? {
        guard let price = r.renewal.renewalPrice, let currency = r.renewal.renewalCurrency else { return nil }
        let amount = MoneyFormat.text(price, currency)
        var text: String
        if case .renewsOn(let at)? = r.accessEnd {
            text = "Next charge \(amount) on \(at.isoDate)"
        } else if r.billingRetrySince != nil {
            text = "Next charge \(amount) when billing recovers"
        } else {
            return "Renewal price \(amount) (no renewal ahead)"
        }
        let started = zip(r.timeline.periods, r.money).filter { $0.0.start <= r.asOf }
        guard let last = started.last(where: { $0.1.isCharged && $0.1.price != nil }) else {
            if started.last?.0.offerKind == .freeTrial { text += " (first charge, after the free trial)" }
            return text
        }
        let lastPrice = last.1.price!
        let lastCurrency = last.1.currency ?? ""
        guard lastPrice != price || lastCurrency != currency else { return text }
        var why: String?
        if lastCurrency == currency {
            let latestKind = started.last?.0.offerKind ?? .standard
            if price > lastPrice, latestKind != .standard {
                why = "\(offerWords(latestKind)) ends"
            } else if r.autoRenewProductId != nil, r.autoRenewProductId != r.productId {
                why = "renews to another product"
            } else if price > lastPrice {
                why = r.priceIncrease == "pending" ? "price increase, consent pending" : "price increase"
            } else {
                why = "lower price"
            }
        }
        text += " (last charge \(MoneyFormat.text(lastPrice, last.1.currency))" + (why.map { ": " + $0 } ?? "") + ")"
        return text
    }

    /// "2 subscriptions of this Apple Account" and their ids (this one's first), or nil when
    /// the app download is unknown.
    public static func appleAccount(_ r: SubscriberReport) -> String? {
        guard let id = r.renewal.appTransactionId else { return nil }
        let others = r.renewal.sameAccount.filter { $0 != r.originalTransactionId }
        guard !others.isEmpty else { return "\(id) (no other subscription)" }
        let n = others.count + 1
        return "\(id) · \(n) subscriptions of this Apple Account: also " + others.joined(separator: ", ")
    }

    /// "1 month offer, by customer" for a period's offer length and who started it ("" when
    /// neither is known).
    public static func period(_ detail: PeriodDetail?) -> String {
        [detail?.offerPeriod.map { duration($0) + " offer" }, detail?.initiatedBy.map { "by " + $0 }].compactMap { $0 }
            .joined(separator: ", ")
    }

    static func offerWords(_ kind: OfferKind) -> String {
        switch kind {
        case .standard: "standard price"
        case .freeTrial: "free trial"
        case .introductory: "introductory offer"
        case .promotional: "promotional offer"
        case .offerCode: "offer code"
        case .winBack: "win-back offer"
        }
    }
}
