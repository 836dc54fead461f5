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
    /// and end compared (docs/metrics.md "MRR movement"). A complete month is read from the kept
    /// movement rows (``MovementMonths``), other buckets from MRR at their starts and the kept
    /// changes inside them (``MRRChanges``); `keptMonths: false` reads every bucket from the
    /// intervals covering its ends (the same figures, slower).
    public func movement(
        from: Instant, to: Instant, asOf: Instant, by: BucketSize = .month, scope: ReportScope = ReportScope(),
        rates: CurrencyRates? = nil, keptMonths: Bool = true
    ) throws -> MRRMovement {
        let buckets = try by.buckets(from: from, to: to, asOf: asOf)
        var report = MRRMovement(
            from: from, to: to, asOf: asOf, by: by, currency: rates?.target, buckets: buckets, rows: [])
        guard !buckets.isEmpty else { return report }
        let durations = try productDurations()
        // Exact sums in price × twelfths of a year; per bucket, by currency.
        var sums = [[String: MovementSums]](repeating: [:], count: buckets.count)
        var currencies: Set<String> = rates.map { [$0.target] } ?? []
        /// Adds `count` subscriptions with the keys `atStart` and `atEnd` at bucket i's ends;
        /// `isNew` is asked only when it decides (nothing at the start, something at the end).
        func add(_ i: Int, atStart: [MRRKey], atEnd: [MRRKey], isNew: () throws -> Bool, count: Int) throws {
            let bucket = buckets[i]
            if let rates {
                // Both ends at the end's rate; mrrStart also at the start's, for fx.
                let month = bucket.end.month
                let a = try Self.twelfths(keys: atStart, durations: durations, rates: rates, month: month)[rates.target] ?? 0
                let b = try Self.twelfths(keys: atEnd, durations: durations, rates: rates, month: month)[rates.target] ?? 0
                let aAtStart =
                    try Self.twelfths(keys: atStart, durations: durations, rates: rates, month: bucket.start.month)[
                        rates.target] ?? 0
                let new = a == 0 && b != 0 ? try isNew() : false
                sums[i][rates.target, default: MovementSums()].add(start: a, end: b, isNew: new, count: count)
                sums[i][rates.target]!.startAtOwnRate += aAtStart * Int64(count)
            } else {
                let a = try Self.twelfths(keys: atStart, durations: durations, rates: nil, month: bucket.start.month)
                let b = try Self.twelfths(keys: atEnd, durations: durations, rates: nil, month: bucket.end.month)
                for currency in Set(a.keys).union(b.keys) {
                    currencies.insert(currency)
                    let (x, y) = (a[currency] ?? 0, b[currency] ?? 0)
                    let new = x == 0 && y != 0 ? try isNew() : false
                    sums[i][currency, default: MovementSums()].add(start: x, end: y, isNew: new, count: count)
                    sums[i][currency]!.startAtOwnRate += x * Int64(count)
                }
            }
        }
        // Complete months from the kept rows; the scope's product and plan keep the keys the
        // intervals read below would be restricted to.
        let kept = buckets.indices.filter { keptMonths && buckets[$0].size == .month && buckets[$0].isComplete }
        let rowScope = scope.rows
        let inScope = rowScope.keeps
        let filtered = rowScope.productId != nil || rowScope.plan != nil
        if let first = kept.first, let last = kept.last {
            let index = Dictionary(uniqueKeysWithValues: kept.map { (buckets[$0].start.month, $0) })
            let rows = try database.keptMovement(
                months: buckets[first].start.month...buckets[last].start.month, environments: rowScope.environments)
            for row in rows {
                guard let i = index[row.month] else { continue }
                let (atStart, atEnd) = filtered ? (row.start.filter(inScope), row.end.filter(inScope)) : (row.start, row.end)
                if atStart.isEmpty && atEnd.isEmpty { continue }
                try add(i, atStart: atStart, atEnd: atEnd, isNew: { row.isNew }, count: row.count)
            }
        }
        let live = buckets.indices.filter { !Set(kept).contains($0) }
        if keptMonths, !live.isEmpty {
            // Other buckets from MRR at their starts and the changes inside them (``MRRChanges``).
            let starts = live.map { buckets[$0].start.milliseconds }
            let ends = live.map { buckets[$0].end.milliseconds }
            // The subscriptions changing inside a live bucket, alike for movement, counted.
            let groups = try database.mrrChangeGroups(
                live.indices.map { (starts[$0], ends[$0]) }, environments: rowScope.environments)
            // Per live bucket: the keys the subscriptions changing inside it add at its start and end.
            var changedAtStart = [[MRRKey: Int]](repeating: [:], count: live.count)
            var changedAtEnd = [[MRRKey: Int]](repeating: [:], count: live.count)
            for group in groups {
                let (atStart, atEnd) =
                    filtered ? (group.before.filter(inScope), group.after.filter(inScope)) : (group.before, group.after)
                if atStart.isEmpty && atEnd.isEmpty { continue }
                for key in atStart { changedAtStart[group.span][key, default: 0] += group.count }
                for key in atEnd { changedAtEnd[group.span][key, default: 0] += group.count }
                try add(live[group.span], atStart: atStart, atEnd: atEnd, isNew: { group.isNew }, count: group.count)
            }
            // MRR at the start of each live bucket that does not begin where the one before ended;
            // the others follow from the one before and its changes.
            let queried = live.indices.filter { $0 == 0 || starts[$0] != ends[$0 - 1] }
            let counts = Dictionary(
                uniqueKeysWithValues: zip(
                    queried,
                    try database.mrrCounts(at: queried.map { Instant(milliseconds: starts[$0]) }, scope: rowScope)))
            var population: [MRRKey: Int] = [:]
            for j in live.indices {
                if let counted = counts[j] {
                    population = filtered ? counted.filter { inScope($0.key) } : counted
                } else {
                    for (key, n) in changedAtStart[j - 1] { population[key, default: 0] -= n }
                    for (key, n) in changedAtEnd[j - 1] { population[key, default: 0] += n }
                }
                // The subscriptions with no change inside the bucket add the same at both ends.
                for (key, n) in changedAtStart[j] where population[key, default: 0] < n {
                    throw StoreError(
                        "the store is damaged (MRR at \(buckets[live[j]].start.isoDate) has fewer \(key.productId) "
                            + "subscriptions than changed in the bucket); import into a new store")
                }
                for (key, n) in population {
                    let unchanged = n - changedAtStart[j][key, default: 0]
                    guard unchanged > 0 else { continue }
                    try add(live[j], atStart: [key], atEnd: [key], isNew: { false }, count: unchanged)
                }
            }
        } else if let first = live.first, let last = live.last {
            // Without the kept rows: every bucket from the intervals covering its ends.
            try database.mrrIntervals(from: buckets[first].start, through: buckets[last].end, scope: scope.rows) {
                subscription in
                for i in live {
                    let bucket = buckets[i]
                    let (a, b) = (bucket.start.milliseconds, bucket.end.milliseconds)
                    let atStart = subscription.intervals.filter { $0.covers(a) }.map(\.key)
                    let atEnd = subscription.intervals.filter { $0.covers(b) }.map(\.key)
                    if atStart.isEmpty && atEnd.isEmpty { continue }
                    try add(i, atStart: atStart, atEnd: atEnd, isNew: { try subscription.firstCharge() >= a }, count: 1)
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

    /// What the keys of MRR intervals add, in exact twelfths by currency (the target's when
    /// converted), as MRR counts them (``MRRKey/mrrTwelfths(productLength:)``); converted prices
    /// rounded to milliunits before they are made monthly.
    static func twelfths(
        keys: [MRRKey], durations: [String: BillingDuration], rates: CurrencyRates?, month: Month
    ) throws -> [String: Int64] {
        var out: [String: Int64] = [:]
        for money in keys {
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

    /// `count` subscriptions, each adding `a` at the start and `b` at the end.
    mutating func add(start a: Int64, end b: Int64, isNew: Bool, count: Int = 1) {
        let n = Int64(count)
        start += a * n
        end += b * n
        guard let component = MovementComponent(start: a, end: b, isNew: isNew) else { return }
        amounts[component, default: 0] += (b - a) * n
        counts[component, default: 0] += count
    }
}
