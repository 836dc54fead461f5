import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// What pane 7 asks the store for.
public struct TrendsQuery: Hashable, Sendable {
    public var metric: SeriesMetric
    public var range: TrendsRange
    public var bucket: BucketSize
    public var asOf: Instant
    public var scope: ReportScope
}

/// Pane 7's series: `report series` over the range shown and, before it, as many buckets again
/// (the previous period) and a year (the same bucket a year before), read in one query.
public struct TrendsData: Equatable, Sendable {
    public var query: TrendsQuery
    /// Every bucket read, the earlier ones first.
    public var series: MetricSeries
    /// The index in `series` of the first bucket of the range shown.
    public var first: Int
    /// The store's file name, for the SVG's caption.
    public var store: String

    /// Buckets of the range shown.
    public var shownCount: Int { series.buckets.count - first }

    /// Reads the series of `query` (off the UI thread).
    static func load(_ analytics: SubscriberAnalytics, _ query: TrendsQuery) throws -> TrendsData {
        let asOf = query.asOf
        let store = analytics.database.path.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "in memory"
        let from =
            try query.range.start(asOf: asOf) ?? analytics.database.earliestPurchaseInstant() ?? asOf.adding(days: -1)
        let shown = try query.bucket.buckets(from: from, to: asOf, asOf: asOf)
        var readFrom = from
        if let start = shown.first?.start, query.range != .all {
            readFrom = min(query.bucket.back(shown.count, from: start), query.bucket.yearBefore(start))
        }
        let series = try analytics.series(
            query.metric, from: readFrom, to: asOf, asOf: asOf, by: query.bucket, scope: query.scope)
        let first = shown.first.flatMap { s in series.buckets.firstIndex { $0.start == s.start } } ?? series.buckets.count
        return TrendsData(query: query, series: series, first: first, store: store)
    }

    /// The value of line `line` at bucket `index` of `series` (units for money), nil outside it.
    public func value(_ line: Int, at index: Int) -> Double? {
        guard series.lines.indices.contains(line), series.lines[line].values.indices.contains(index) else { return nil }
        let v = series.lines[line].values[index]
        return series.metric.isMoney ? Double(v) / 1000 : Double(v)
    }

    /// The index in `series` of the same bucket a year before bucket `index`, if read.
    public func yearBefore(_ index: Int) -> Int? {
        guard series.buckets.indices.contains(index) else { return nil }
        let start = query.bucket.yearBefore(series.buckets[index].start)
        return series.buckets.firstIndex { $0.start == start }
    }

    /// The chart of line `line` over the range shown, as `report series --format svg` draws it,
    /// with the previous period (as many buckets before) dashed and muted beside it.
    public func chart(line: Int) -> ChartModel? {
        guard series.lines.indices.contains(line) else { return nil }
        var shown = series
        shown.buckets = Array(series.buckets[first...])
        shown.from = shown.buckets.first?.start ?? series.from
        shown.lines = [
            MetricSeries.Line(currency: series.lines[line].currency, values: Array(series.lines[line].values[first...]))
        ]
        guard var model = ReportCharts.series(shown, store: store).first else { return nil }
        if query.range != .all {
            let n = shownCount
            let previous = (0..<n).map { value(line, at: first - n + $0) }
            if previous.contains(where: { $0 != nil }) {
                model.series.append(
                    ChartModel.Series(
                        name: "previous \(query.range)", kind: .line, values: previous, role: .muted, dashed: true))
            }
        }
        return model
    }

    /// The figures of line `line` over the range shown, as `report series --format csv` writes them.
    public func csv(line: Int) -> (header: [String], rows: [[String]]) {
        var shown = series
        shown.buckets = Array(series.buckets[first...])
        shown.lines =
            series.lines.indices.contains(line)
            ? [MetricSeries.Line(currency: series.lines[line].currency, values: Array(series.lines[line].values[first...]))]
            : []
        let csv = SeriesOutput(shown, store: store).csv
        return (csv.header, csv.rows)
    }
}

extension BucketSize {
    /// The start of the bucket `n` buckets before the one starting at `start`.
    func back(_ n: Int, from start: Instant) -> Instant {
        switch self {
        case .day: start.adding(days: -Int64(n))
        case .week: start.adding(days: -7 * Int64(n))
        case .month: start.month.adding(months: -n).start
        }
    }

    /// The start of the same bucket a year before the one starting at `start`: the month, the
    /// ISO week 52 weeks back, the same date (the 28th for a 29 February).
    func yearBefore(_ start: Instant) -> Instant {
        switch self {
        case .month: return start.month.adding(months: -12).start
        case .week: return start.adding(days: -364)
        case .day:
            let c = UTCCalendar.components(of: start)
            let month = Month(year: c.year - 1, month: c.month)
            return UTCCalendar.instant(year: month.year, month: month.month, day: min(c.day, month.dayCount))
        }
    }
}
