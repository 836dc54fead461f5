import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// How far back from as-of pane 7 looks (`[` / `]` step, `:range 90d|6m|1y|all`).
public enum TrendsRange: Hashable, Sendable, CustomStringConvertible {
    case days(Int)
    case months(Int)
    /// From the store's first purchase.
    case all

    /// What `[` and `]` step through, shortest first.
    public static let steps: [TrendsRange] = [.days(30), .days(90), .months(6), .months(12), .months(24), .all]

    /// `90d`, `12w`, `6m`, `1y`, `all`.
    public init?(parsing text: String) {
        let text = text.lowercased()
        if text == "all" {
            self = .all
            return
        }
        guard let unit = text.last, let n = Int(text.dropLast()), n > 0, n <= 100 * 366 else { return nil }
        switch unit {
        case "d": self = .days(n)
        case "w": self = .days(7 * n)
        case "m": self = .months(n)
        case "y": self = .months(12 * n)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .days(let n): "\(n)d"
        case .months(let n): n % 12 == 0 ? "\(n / 12)y" : "\(n)m"
        case .all: "all"
        }
    }

    /// About how many days it spans, to order ranges.
    var approximateDays: Double {
        switch self {
        case .days(let n): Double(n)
        case .months(let n): Double(n) * 30.4375
        case .all: .infinity
        }
    }

    /// The next step longer (`delta` 1) or shorter (-1) than this range.
    func stepped(_ delta: Int) -> TrendsRange {
        let steps = TrendsRange.steps
        if delta > 0 { return steps.first { $0.approximateDays > approximateDays } ?? self }
        return steps.last { $0.approximateDays < approximateDays } ?? self
    }

    /// The instant the range starts, ending at `asOf` (the same day of the month `n` months back,
    /// the last day of a shorter month); nil for ``all``.
    public func start(asOf: Instant) -> Instant? {
        switch self {
        case .days(let n): return asOf.adding(days: -Int64(n))
        case .months(let n):
            let c = UTCCalendar.components(of: asOf)
            let month = Month(year: c.year, month: c.month).adding(months: -n)
            let day = min(c.day, month.dayCount)
            return UTCCalendar.instant(
                year: month.year, month: month.month, day: day, hour: c.hour, minute: c.minute, second: c.second)
        case .all: return nil
        }
    }
}

/// What `enter`, the keys and the `:` line ask of pane 7: its own intents, handled in
/// TrendsUpdate.swift.
public enum TrendsIntent: Equatable, Sendable {
    /// `m` / `M`: the next or previous metric.
    case cycleMetric(Int)
    /// `:metric NAME`.
    case setMetric(SeriesMetric)
    /// `]` / `[`: a longer or shorter range.
    case stepRange(Int)
    /// `:range 90d|1y|all`.
    case setRange(TrendsRange)
    /// `b`: days → weeks → months.
    case cycleBucket
    /// `h` / `l`: the cursor a bucket back or on.
    case moveCursor(Int)
    /// `c`: money in the next currency.
    case cycleCurrency
    /// `enter`: pane 1 lists the subscriptions behind the point under the cursor.
    case open
    /// `ctrl-s`: the chart shown as SVG, beside its figures as CSV.
    case save
}

/// Pane 7: one metric over time, as `report series` gives it, with the previous period beside it.
public struct TrendsPane: Equatable, Sendable {
    /// What `m` cycles through: active, MRR, committed revenue, each state, each event type.
    public static let metrics: [SeriesMetric] = SeriesMetric.names.compactMap(SeriesMetric.init(name:))

    public var metric: SeriesMetric = .active
    public var range: TrendsRange = .months(12)
    public var bucket: BucketSize = .month
    /// The series loaded for the choices above (nil until it arrives, or after they changed).
    public var data: TrendsData?
    public var loading = false
    /// The cursor as a bucket of the range shown (0 the first); nil: the latest, until moved.
    public var cursor: Int?
    /// The currency money is shown in (`c` cycles); nil: the one with the most at the latest bucket.
    public var currency: String?

    public init() {}

    /// What the pane asks the store for at `asOf` and `scope`.
    public func query(asOf: Instant, scope: ReportScope) -> TrendsQuery {
        TrendsQuery(metric: metric, range: range, bucket: bucket, asOf: asOf, scope: scope)
    }

    /// The cursor as shown: the latest bucket until moved, always in range.
    public var shownCursor: Int {
        let count = data?.shownCount ?? 0
        return clamp(cursor ?? count - 1, 0, max(0, count - 1))
    }

    /// The line shown: the chosen currency while the data has it, else the one with the most at
    /// the latest bucket (the only line of a count).
    public var shownLine: Int? {
        guard let data, !data.series.lines.isEmpty else { return nil }
        let lines = data.series.lines
        if let currency, let index = lines.firstIndex(where: { $0.currency == currency }) { return index }
        return lines.indices.max { (lines[$0].values.last ?? 0, $1) < (lines[$1].values.last ?? 0, $0) }
    }
}

extension TrendsPane: DashboardPane {
    static let title = "Trends"
    static var loadingFlag: WritableKeyPath<AppState, Bool> { \.trends.loading }

    /// The chart has a cursor (`h`, `l`), no rows.
    static func rows(_ delta: Int) -> Action? { nil }

    static func isEmpty(_ state: AppState) -> Bool { state.trends.data == nil }

    static func load(_ state: inout AppState, asOf: Instant) -> [Effect] { loadTrends(&state) }

    /// The chart and its cursor stay until the new series replaces them.
    static func refresh(_ state: inout AppState, asOf: Instant) -> [Effect] {
        [.loadTrends(state.trends.query(asOf: asOf, scope: state.scope))]
    }

    static func invalidate(_ state: inout AppState) { state.trends.data = nil }

    static func render(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
        renderTrends(state, in: area, buffer: &buffer, palette: palette)
    }
}
