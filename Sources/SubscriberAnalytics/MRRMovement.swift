import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// What moved MRR between a bucket's ends (docs/metrics.md "MRR movement").
public enum MovementComponent: String, Sendable, CaseIterable, Codable {
    case new, reactivation, expansion, contraction, churn

    /// Whether the component adds to MRR (drawn above the axis).
    public var isGain: Bool { self == .new || self == .reactivation || self == .expansion }

    /// How a subscription that added `a` at a bucket's start and `b` at its end moved MRR (nil:
    /// it did not); `isNew`: it had no charged period starting before the bucket.
    public init?(start a: Int64, end b: Int64, isNew: Bool) {
        switch (a, b) {
        case (0, 0): return nil
        case (0, _): self = isNew ? .new : .reactivation
        case (_, 0): self = .churn
        case _ where b > a: self = .expansion
        case _ where b < a: self = .contraction
        default: return nil
        }
    }
}

/// The MRR bridge per bucket and currency: mrrStart + new + reactivation + expansion +
/// contraction + churn + fx = mrrEnd, each figure exact until it is rounded once to milliunits.
public struct MRRMovement: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        public var bucket: ReportBucket
        public var currency: String
        /// MRR at the bucket's start (at its start's rate when converted), milliunits.
        public var mrrStart: Int64
        /// Milliunits per component: contraction and churn are negative.
        public var amounts: [MovementComponent: Int64]
        /// The subscriptions in each component.
        public var counts: [MovementComponent: Int]
        /// mrrStart at the end's rate minus at the start's (0 unconverted).
        public var fx: Int64
        /// MRR at the bucket's end.
        public var mrrEnd: Int64

        public subscript(component: MovementComponent) -> Int64 { amounts[component] ?? 0 }
        public func count(_ component: MovementComponent) -> Int { counts[component] ?? 0 }
    }

    public var from: Instant
    public var to: Instant
    public var asOf: Instant
    public var by: BucketSize
    public var currency: String?
    /// The buckets in order (also those with no row).
    public var buckets: [ReportBucket]
    /// By bucket, then currency: every currency that occurs in the report, in every bucket.
    public var rows: [Row]
}

extension SubscriberAnalytics {
    /// MRR movement over the buckets from the one holding `from` to the one holding the last
    /// instant before min(`to`, `asOf`): each purchased subscription's MRR at the bucket's start
    /// and end compared (docs/metrics.md "MRR movement").
    public func movement(
        from: Instant, to: Instant, asOf: Instant, by: BucketSize = .month, scope: ReportScope = ReportScope(),
        rates: CurrencyRates? = nil
    ) throws -> MRRMovement {
        let buckets = try by.buckets(from: from, to: to, asOf: asOf)
        var report = MRRMovement(
            from: from, to: to, asOf: asOf, by: by, currency: rates?.target, buckets: buckets, rows: [])
        guard let first = buckets.first, let last = buckets.last else { return report }
        let ends = [first.start] + buckets.map(\.end)
        let durations = try productDurations()
        // Exact sums in price × twelfths of a year; per bucket, by currency.
        var sums = [[String: MovementSums]](repeating: [:], count: buckets.count)
        var currencies: Set<String> = rates.map { [$0.target] } ?? []
        try database.mrrIntervals(from: first.start, through: last.end, scope: scope.rows) { subscription in
            // What the subscription adds at each end: its covering intervals' money.
            let covering: [[MRRInterval]] = ends.map { t in subscription.intervals.filter { $0.covers(t.milliseconds) } }
            for (i, bucket) in buckets.enumerated() {
                let (atStart, atEnd) = (covering[i], covering[i + 1])
                if atStart.isEmpty && atEnd.isEmpty { continue }
                let isNew = subscription.firstCharge >= bucket.start.milliseconds
                if let rates {
                    // Both ends at the end's rate; mrrStart also at the start's, for fx.
                    let month = bucket.end.month
                    let a = try Self.twelfths(atStart, durations: durations, rates: rates, month: month)[rates.target] ?? 0
                    let b = try Self.twelfths(atEnd, durations: durations, rates: rates, month: month)[rates.target] ?? 0
                    let aAtStart =
                        try Self.twelfths(atStart, durations: durations, rates: rates, month: bucket.start.month)[
                            rates.target] ?? 0
                    sums[i][rates.target, default: MovementSums()].add(start: a, end: b, isNew: isNew)
                    sums[i][rates.target]!.startAtOwnRate += aAtStart
                } else {
                    let a = try Self.twelfths(atStart, durations: durations, rates: nil, month: bucket.start.month)
                    let b = try Self.twelfths(atEnd, durations: durations, rates: nil, month: bucket.end.month)
                    for currency in Set(a.keys).union(b.keys) {
                        currencies.insert(currency)
                        let (x, y) = (a[currency] ?? 0, b[currency] ?? 0)
                        sums[i][currency, default: MovementSums()].add(start: x, end: y, isNew: isNew)
                        sums[i][currency]!.startAtOwnRate += x
                    }
                }
            }
        }
        for (i, bucket) in buckets.enumerated() {
            for currency in currencies.sorted() {
                let s = sums[i][currency] ?? MovementSums()
                func rounded(_ twelfths: Int64) -> Int64 { MoneyMath.scaled(twelfths, by: 1, over: 12) }
                report.rows.append(
                    MRRMovement.Row(
                        bucket: bucket, currency: currency, mrrStart: rounded(s.startAtOwnRate),
                        amounts: s.amounts.mapValues(rounded), counts: s.counts,
                        fx: rounded(s.start - s.startAtOwnRate), mrrEnd: rounded(s.end)))
            }
        }
        return report
    }

    /// MRR contributions in exact twelfths by currency (the target's when converted), as MRR
    /// counts them (``MRRKey/mrrTwelfths(productLength:)``); converted prices rounded to milliunits before they are made monthly.
    static func twelfths(
        _ intervals: [MRRInterval], durations: [String: BillingDuration], rates: CurrencyRates?, month: Month
    ) throws -> [String: Int64] {
        var out: [String: Int64] = [:]
        for interval in intervals {
            let money = interval.key
            guard var price = money.price, var currency = money.currency else { continue }
            let multiplier = money.mrrTwelfths(productLength: durations[money.productId])
            if let rates {
                price = try rates.convert(price, currency, month: month)
                currency = rates.target
            }
            out[currency, default: 0] += price * Int64(multiplier)
        }
        return out
    }
}

/// One bucket's exact sums for one currency.
private struct MovementSums {
    /// MRR at the start at the end's rate (unconverted: the same as `startAtOwnRate`).
    var start: Int64 = 0
    var startAtOwnRate: Int64 = 0
    var end: Int64 = 0
    var amounts: [MovementComponent: Int64] = [:]
    var counts: [MovementComponent: Int] = [:]

    mutating func add(start a: Int64, end b: Int64, isNew: Bool) {
        start += a
        end += b
        guard let component = MovementComponent(start: a, end: b, isNew: isNew) else { return }
        amounts[component, default: 0] += b - a
        counts[component, default: 0] += 1
    }
}
