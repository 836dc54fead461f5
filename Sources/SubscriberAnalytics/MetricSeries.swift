import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// What `report series` follows over time (docs/metrics.md "Series").
public enum SeriesMetric: Sendable, Hashable {
    /// Subscriptions in a state at each bucket's end.
    case state(SubscriptionState)
    /// Active subscriptions at each bucket's end.
    case active
    /// MRR at each bucket's end, per currency (or converted).
    case mrr
    /// Committed revenue at each bucket's end.
    case committed
    /// Events with their instant in the bucket.
    case event(EventType)

    /// `active`, `mrr`, `committed`, a state (`billingRetry`) or an event type (`renewal`).
    public init?(name: String) {
        switch name {
        case "active": self = .active
        case "mrr": self = .mrr
        case "committed": self = .committed
        default:
            if let s = SubscriptionState(rawValue: name) {
                self = .state(s)
            } else if let e = EventType(rawValue: name) {
                self = .event(e)
            } else {
                return nil
            }
        }
    }

    public var name: String {
        switch self {
        case .active: "active"
        case .mrr: "mrr"
        case .committed: "committed"
        case .state(let s): s.rawValue
        case .event(let e): e.rawValue
        }
    }

    /// Every name ``init(name:)`` takes, for help and errors.
    public static var names: [String] {
        ["active", "mrr", "committed"] + SubscriptionState.allCases.map(\.rawValue) + EventType.allCases.map(\.rawValue)
    }

    /// A stock is read at an instant (drawn as a line); an event count is a flow within a bucket (bars).
    public var isStock: Bool {
        if case .event = self { return false }
        return true
    }

    /// Whether the values are milliunits of money.
    public var isMoney: Bool { self == .mrr || self == .committed }
}

/// One metric per bucket (docs/metrics.md "Series").
public struct MetricSeries: Sendable, Equatable {
    public struct Line: Sendable, Equatable {
        /// The currency of a money line; nil for counts.
        public var currency: String?
        /// One value a bucket (milliunits for money), in bucket order.
        public var values: [Int64]

        public init(currency: String?, values: [Int64]) {
            self.currency = currency
            self.values = values
        }
    }

    public var metric: SeriesMetric
    public var from: Instant
    public var to: Instant
    public var asOf: Instant
    public var by: BucketSize
    public var currency: String?
    public var buckets: [ReportBucket]
    /// One line for counts; one per currency (sorted) for money, or one when converted.
    public var lines: [Line]
}

extension SubscriberAnalytics {
    /// `metric` per bucket: a stock at each bucket's end, events within it. Every bucket is listed,
    /// empty ones as 0.
    public func series(
        _ metric: SeriesMetric, from: Instant, to: Instant, asOf: Instant, by: BucketSize = .month,
        scope: ReportScope = ReportScope(), rates: CurrencyRates? = nil
    ) throws -> MetricSeries {
        let buckets = try by.buckets(from: from, to: to, asOf: asOf)
        var series = MetricSeries(
            metric: metric, from: from, to: to, asOf: asOf, by: by, currency: metric.isMoney ? rates?.target : nil,
            buckets: buckets, lines: [])
        let ends = buckets.map(\.end)
        switch metric {
        case .state, .active:
            let counts = try database.segmentCounts(at: ends, scope: scope.rows)
            let values: [Int64] = counts.map { c in
                let states = SubscriptionState.allCases.filter { s in
                    if case .state(let one) = metric { return s == one }
                    return s.isActive
                }
                return Int64(states.reduce(0) { $0 + (c[$1] ?? 0) })
            }
            series.lines = [MetricSeries.Line(currency: nil, values: values)]
        case .mrr, .committed:
            // As `report mrr` gives them at each bucket's end: its MRR, or its committed revenue.
            let reports = try mrr(at: ends, scope: scope, rates: rates)
            var byCurrency: [String: [Int64]] = [:]
            if let rates { byCurrency[rates.target] = Array(repeating: 0, count: buckets.count) }
            for (i, r) in reports.enumerated() {
                for row in r.rows {
                    byCurrency[row.currency, default: Array(repeating: 0, count: buckets.count)][i] +=
                        metric == .mrr ? row.mrr : row.committed
                }
            }
            series.lines = byCurrency.keys.sorted().map { MetricSeries.Line(currency: $0, values: byCurrency[$0]!) }
        case .event(let type):
            var values = [Int64](repeating: 0, count: buckets.count)
            if let first = buckets.first, let last = buckets.last {
                let rows = try database.eventCountsByDay(
                    from: first.start.milliseconds, upper: last.end.milliseconds, scope: scope.rows)
                // Every bucket starts at a UTC midnight, so each day falls in one bucket.
                let starts = buckets.map { AppDatabase.day(of: $0.start) }
                for row in rows where row.type == type.rawValue {
                    var index = starts.count - 1
                    while index > 0 && starts[index] > row.day { index -= 1 }
                    values[index] += Int64(row.count)
                }
            }
            series.lines = [MetricSeries.Line(currency: nil, values: values)]
        }
        return series
    }
}
