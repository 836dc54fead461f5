import SubscriptionModel

/// The state of a subscription at an instant (docs/metrics.md, "States").
public enum SubscriptionState: String, Sendable, Codable, CaseIterable, Hashable {
    case standard, freeTrial, introductory, promotional, offerCode
    /// In a period bought with a win-back offer (`OfferKind.winBack`); `winBack` in reports and the store.
    case inWinBackOffer = "winBack"
    case gracePeriod, billingRetry, expired

    public init(_ kind: OfferKind) {
        switch kind {
        case .standard: self = .standard
        case .freeTrial: self = .freeTrial
        case .introductory: self = .introductory
        case .promotional: self = .promotional
        case .offerCode: self = .offerCode
        case .winBack: self = .inWinBackOffer
        }
    }

    /// Every state but `billingRetry` and `expired`.
    public var isActive: Bool { self != .billingRetry && self != .expired }
}
