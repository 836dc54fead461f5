import SubscriptionModel

@testable import SubscriptionTimeline

// MARK: - Fact builders (every test writes its dates as literals)

/// `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ`.
func t(_ text: String) -> Instant {
    guard let i = Instant(parsing: text) else { fatalError("bad test date \(text)") }
    return i
}

let otid = "1000"

/// A transaction of product `monthly`.
func tx(
    _ id: String, _ start: String, _ expires: String?, offerType: Int? = nil, discount: String? = nil,
    revoked: String? = nil, upgraded: Bool = false, signed: String? = nil, token: String? = nil
) -> TransactionFact {
    tx(
        id, "monthly", start, expires, offerType: offerType, discount: discount, revoked: revoked, upgraded: upgraded,
        signed: signed, token: token)
}

func tx(
    _ id: String, _ product: String, _ start: String, _ expires: String?,
    offerType: Int? = nil, discount: String? = nil, revoked: String? = nil, upgraded: Bool = false,
    signed: String? = nil, token: String? = nil
) -> TransactionFact {
    TransactionFact(
        transactionId: id, originalTransactionId: otid, productId: product, purchaseDate: t(start),
        expiresDate: expires.map(t), revocationDate: revoked.map(t), isUpgraded: upgraded,
        offerType: offerType, offerDiscountType: discount, appAccountToken: token,
        signedDate: signed.map(t))
}

/// A v2 notification.
func note(_ type: String, _ subtype: String? = nil, _ at: String, tx: String? = nil, status: Int? = nil) -> NotificationFact {
    NotificationFact(
        notificationId: "\(type)-\(subtype ?? "")-\(at)-\(tx ?? "")", format: .v2Notification,
        notificationType: type, subtype: subtype, instant: t(at), originalTransactionId: otid,
        transactionId: tx, status: status)
}

/// A `DID_CHANGE_RENEWAL_STATUS` toggle (v2 by default).
func toggle(_ on: Bool, _ at: String, v1: Bool = false) -> NotificationFact {
    NotificationFact(
        notificationId: "toggle-\(on)-\(at)-\(v1)", format: v1 ? .v1Notification : .v2Notification,
        notificationType: "DID_CHANGE_RENEWAL_STATUS",
        subtype: v1 ? nil : (on ? "AUTO_RENEW_ENABLED" : "AUTO_RENEW_DISABLED"),
        instant: t(at), originalTransactionId: otid, autoRenewStatus: on)
}

func renewal(
    _ at: String, tx: String? = nil, autoRenew: Bool? = nil, retry: Bool? = nil, grace: String? = nil,
    intent: Int? = nil, priceIncrease: Int? = nil, renewsTo: String? = nil, v1: Bool = false
) -> RenewalFact {
    RenewalFact(
        originalTransactionId: otid, instant: t(at), autoRenewProductId: renewsTo, autoRenewStatus: autoRenew,
        isInBillingRetryPeriod: retry, gracePeriodExpiresDate: grace.map(t), expirationIntent: intent,
        priceIncreaseStatus: priceIncrease, transactionId: tx, isV1: v1)
}

func derive(_ transactions: [TransactionFact], renewals: [RenewalFact] = [], notes: [NotificationFact] = [])
    -> SubscriptionTimeline
{
    SubscriptionTimeline.derive(
        SubscriptionFacts(
            originalTransactionId: otid, transactions: transactions,
            renewals: renewals, notifications: notes))
}

extension SubscriptionTimeline {
    func classes() -> [PeriodClass] { periods.map(\.periodClass) }
    func eventList(asOf: String = "2100-01-01") -> [String] {
        events(in: t("1970-01-01")..<t("2100-01-01"), asOf: t(asOf)).map { e in
            "\(e.at.iso8601) \(e.type.rawValue)" + (e.expirationReason.map { " \($0.rawValue)" } ?? "")
        }
    }
}

/// SplitMix64, for reproducible shuffles.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
