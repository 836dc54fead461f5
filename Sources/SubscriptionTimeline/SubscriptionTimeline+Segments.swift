import SubscriptionModel

extension SubscriptionTimeline {
    /// A stretch of the timeline over which nothing the store keeps per segment changes.
    public struct Segment: Equatable, Sendable {
        public var start: Instant
        public var end: Instant?
        public var state: SubscriptionState
        public var productId: String
        /// The billing plan of the period the state is about (``StateInterval/billingPlan``).
        public var billingPlan: BillingPlan = .upfront
        public var autoRenew: Bool
        public var runIndex: Int
        public var paidPeriods: Int
        public var periodDays: Double?
        public var graceEnd: Instant?
    }

    /// The timeline cut at every state interval, auto-renew interval and period start.
    public func segments() -> [Segment] {
        let t = self
        var cuts = Set<Instant>()
        for s in t.stateIntervals { cuts.insert(s.from) }
        for a in t.autoRenewIntervals { cuts.insert(a.from) }
        for p in t.periods {
            cuts.insert(p.start)
            cuts.insert(p.end)
        }
        for f in t.billingFailures {
            cuts.insert(f.at)
            cuts.insert(f.windowEnd)
        }
        let first = t.periods[0].start
        let points = cuts.filter { $0 >= first }.sorted()
        var result: [Segment] = []
        var periodIndex = -1
        var failureIndex = 0
        for (i, at) in points.enumerated() {
            guard let interval = t.stateInterval(at: at) else { continue }
            while periodIndex + 1 < t.periods.count && t.periods[periodIndex + 1].start <= at { periodIndex += 1 }
            let runIndex = periodIndex >= 0 ? t.periods[periodIndex].runIndex : 0
            let covering = periodIndex >= 0 && at < t.periods[periodIndex].end ? t.periods[periodIndex] : nil
            while failureIndex < t.billingFailures.count && t.billingFailures[failureIndex].windowEnd <= at { failureIndex += 1 }
            var grace: Instant? = nil
            if failureIndex < t.billingFailures.count {
                let f = t.billingFailures[failureIndex]
                if f.at <= at && at < f.windowEnd { grace = f.gracePeriodExpiresDate }
            }
            let segment = Segment(
                start: at, end: i + 1 < points.count ? points[i + 1] : nil, state: interval.state,
                productId: interval.productId, billingPlan: interval.billingPlan, autoRenew: t.autoRenew(at: at) ?? false,
                runIndex: runIndex,
                paidPeriods: t.runs.isEmpty ? 0 : t.runs[runIndex].paidPeriods(asOf: at),
                periodDays: covering.map {
                    Double($0.expiresDate.milliseconds - $0.start.milliseconds) / Double(Instant.millisecondsPerDay)
                },
                graceEnd: grace)
            // Merge with the previous segment when nothing differs but the start.
            if var previous = result.last, previous.end == at,
                previous.state == segment.state, previous.productId == segment.productId,
                previous.billingPlan == segment.billingPlan,
                previous.autoRenew == segment.autoRenew, previous.runIndex == segment.runIndex,
                previous.paidPeriods == segment.paidPeriods, previous.periodDays == segment.periodDays,
                previous.graceEnd == segment.graceEnd
            {
                previous.end = segment.end
                result[result.count - 1] = previous
            } else {
                result.append(segment)
            }
        }
        return result
    }
}
