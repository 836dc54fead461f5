import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// Everything a support agent needs about one subscription at an instant (DESIGN §3
/// "Per-subscriber figures"), plus the full timeline for the dashboard's timeline bar.
public struct SubscriberReport: Sendable, Equatable {
    public var originalTransactionId: String
    public var userId: String?
    public var email: String?
    public var appAccountToken: String?
    public var productId: String?
    public var asOf: Instant
    /// Nil before the subscription started.
    public var state: SubscriptionState?
    public var autoRenew: Bool?
    public var autoRenewProductId: String?
    public var inBillingRetry: Bool
    public var gracePeriodExpires: Instant?
    /// Of the latest run; nil while it is open.
    public var expirationReason: ExpirationReason?
    /// nil none known, "pending" consent, "accepted".
    public var priceIncrease: String?
    public var paidPeriods: Int
    public var billingFailures: Int
    public var timeline: SubscriptionTimeline
    /// The money of each period, in `timeline.periods` order (docs/metrics.md "Money").
    public var money: [PeriodMoney]
    /// Charges minus returned money at or before as-of, per currency.
    public var paid: [String: Int64]
    /// Paid service up to as-of, in whole days rounded down (what sets the 85 % proceeds rate).
    public var paidServiceDays: Int
    /// Events at or before as-of.
    public var events: [TimelineEvent]
    public var flags: [OfferFlag]
}

/// The answer to "who is this id?".
public enum SubscriberLookup: Sendable, Equatable {
    case found(SubscriberReport)
    case notFound(String)
    case ambiguous(String, [String])
}

extension SubscriberAnalytics {
    /// Finds the subscription by any id and reports it at `asOf` (default: the data horizon).
    public func subscriber(_ id: String, asOf: Instant? = nil) throws -> SubscriberLookup {
        let matches = try database.subscriptions(matching: id)
        switch matches.count {
        case 0: return .notFound(id)
        case 1: return .found(try subscriber(originalTransactionId: matches[0], asOf: try resolveAsOf(asOf)))
        default: return .ambiguous(id, matches)
        }
    }

    public func subscriber(originalTransactionId id: String, asOf: Instant) throws -> SubscriberReport {
        let timeline = SubscriptionTimeline.derive(try database.facts(of: id))
        let money = timeline.money(priceTable: try database.priceTable())
        let customer = try database.customer(of: id)
        let latestPeriod = timeline.periods.last { $0.start <= asOf } ?? timeline.periods.first
        let state = timeline.state(at: asOf)
        let priceIncrease: String? = switch timeline.priceIncreaseStatus(asOf: asOf) {
        case 0: "pending"
        case 1: "accepted"
        default: nil
        }
        return SubscriberReport(
            originalTransactionId: id, userId: customer.userId, email: customer.email,
            appAccountToken: customer.appAccountToken ?? timeline.appAccountToken,
            productId: timeline.productId(at: asOf) ?? latestPeriod?.productId, asOf: asOf, state: state,
            autoRenew: timeline.autoRenew(at: asOf), autoRenewProductId: timeline.autoRenewProductId(asOf: asOf),
            inBillingRetry: timeline.inBillingRetry(at: asOf), gracePeriodExpires: timeline.gracePeriodExpires(at: asOf),
            expirationReason: timeline.expirationReason(asOf: asOf), priceIncrease: priceIncrease,
            paidPeriods: timeline.paidPeriods(asOf: asOf), billingFailures: timeline.billingFailureCount(asOf: asOf),
            timeline: timeline, money: money, paid: timeline.paid(asOf: asOf, money: money),
            paidServiceDays: Int(timeline.paidService(asOf: asOf) / Instant.millisecondsPerDay), events: timeline.events.filter { $0.at <= asOf },
            flags: try database.flags(originalTransactionId: id))
    }
}
