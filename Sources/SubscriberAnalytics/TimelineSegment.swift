import SubscriptionModel
import SubscriptionTimeline

/// One stretch of a subscription's life as the Subscriber pane's timeline bar draws it: a span in
/// which the subscription's state (docs/metrics.md, "States") and refund status
/// do not change.
public struct TimelineSegment: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// Inside a period of this offer kind (`standard` is a full-price paid period).
        case period(OfferKind)
        /// Inside a period later refunded: the customer had access, then got the money back.
        case refund
        case gracePeriod
        case billingRetry
        /// No access: between runs, or after the last one ended.
        case gap
    }

    /// The half-open span `[from, to)`.
    public var from: Instant
    public var to: Instant
    public var kind: Kind

    public init(from: Instant, to: Instant, kind: Kind) {
        self.from = from
        self.to = to
        self.kind = kind
    }

    /// The segments from the first period's start up to `asOf`, read from the timeline's state
    /// intervals (the rows `report states` counts), so the bar shows exactly the states the
    /// reports count: a retry window ends where the next period starts. A refunded period's span
    /// is `refund`; adjacent segments of one kind are merged.
    public static func segments(of timeline: SubscriptionTimeline, asOf: Instant) -> [TimelineSegment] {
        var segments: [TimelineSegment] = []
        func append(_ from: Instant, _ to: Instant, _ kind: Kind) {
            guard from < to else { return }
            if let last = segments.last, last.kind == kind, last.to == from {
                segments[segments.count - 1].to = to
            } else {
                segments.append(TimelineSegment(from: from, to: to, kind: kind))
            }
        }
        for interval in timeline.stateIntervals where interval.from < asOf {
            let to = min(interval.to ?? asOf, asOf)
            switch interval.state {
            case .gracePeriod: append(interval.from, to, .gracePeriod)
            case .billingRetry: append(interval.from, to, .billingRetry)
            case .expired: append(interval.from, to, .gap)
            case .standard, .freeTrial, .introductory, .promotional, .offerCode, .inWinBackOffer:
                // One interval may span several periods of one kind: split it where a refunded one lies.
                let kind = Kind.period(OfferKind(rawValue: interval.state.rawValue) ?? .standard)
                var cursor = interval.from
                for period in timeline.periods where period.isRefunded && period.start < to && interval.from < period.end {
                    let start = max(period.start, interval.from)
                    let end = min(period.end, to)
                    append(cursor, start, kind)
                    append(start, end, .refund)
                    cursor = end
                }
                append(cursor, to, kind)
            }
        }
        return segments
    }
}
