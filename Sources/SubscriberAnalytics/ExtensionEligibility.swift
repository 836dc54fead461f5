import SubscriptionModel
import SubscriptionTimeline

/// Why Apple would refuse to extend a subscription, checked in the store before anything is sent
/// (README, "Support actions"); the CLI's `extend` and the dashboard's `x` both ask it. Nil when it may be extended.
public enum ExtensionEligibility {
    public static let maxPerYear = 2

    public static func refusal(_ report: SubscriberReport, counted: [Instant], now: Instant) -> String? {
        let id = report.originalTransactionId
        if report.timeline.isFamilyShared {
            return "\(id) is family-shared: family-shared subscriptions cannot be extended (the organizer's purchase can be)"
        }
        guard let state = report.state else { return "\(id) has not started: there is no renewal date to extend" }
        switch state {
        case .expired:
            let when = report.accessEnd.map { " on \($0.at.iso8601)" } ?? ""
            return "\(id) expired\(when): Apple extends only a subscription that is active"
        case .billingRetry:
            return
                "\(id) is in billing retry\(report.billingRetrySince.map { " since \($0.iso8601)" } ?? ""): Apple does not extend it until a payment succeeds"
        case .gracePeriod:
            return "\(id) is in a billing grace period (its paid period has ended): Apple does not extend it"
        default: break
        }
        if let period = report.timeline.periods.last(where: { $0.start <= now && now < $0.end }), period.isFree {
            return
                "\(id) is in a free offer period (\(period.offerKind.rawValue)) until \(period.end.iso8601): Apple does not extend it"
        }
        if counted.count >= maxPerYear {
            let dates = counted.map(\.iso8601).joined(separator: " and ")
            let next = counted[counted.count - maxPerYear].adding(days: 365)
            return "\(id) was already extended twice in the last 365 days (\(dates)): Apple allows two extensions per 365 days; "
                + "the next is possible from \(next.iso8601)"
        }
        return nil
    }

    /// The renewal date now (the current period's end), or nil outside a period.
    public static func renewalDate(_ report: SubscriberReport) -> Instant? {
        switch report.accessEnd {
        case .renewsOn(let t), .expiresOn(let t): t
        default: nil
        }
    }
    /// Apple extends by 1 to 90 days; nil when `days` is in range.
    public static func daysRefusal(_ days: Int) -> String? {
        (1...90).contains(days) ? nil : "\(days) days: Apple extends by 1 to 90 days"
    }
}
