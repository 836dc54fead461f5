import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// The charts of the reports over time, one definition for the terminal and for SVG
/// (`--format svg`, ``MovementOutput``, ``SeriesOutput``, ``CohortsOutput``): MRR movement as signed stacked bars with the net as a line, a series as a
/// line (stocks) or bars (events), cohorts as a heat map.
public enum ReportCharts {
    /// The theme role (and so the SVG colour) of each movement.
    public static func role(_ c: MovementComponent) -> ThemeRole {
        switch c {
        case .new: .success
        case .reactivation: .accent
        case .expansion: .standard
        case .contraction: .warning
        case .churn: .error
        }
    }

    public static func caption(asOf: Instant, store: String, command: String) -> String {
        "as of \(asOf.iso8601) · store \(TextSanitizer.visible(store)) · subdash \(command)"
    }

    /// One chart per currency: the five movements (and fx when converted) as bars, the net change as a line.
    public static func movement(_ r: MRRMovement, store: String) -> [ChartModel] {
        let currencies = Array(Set(r.rows.map(\.currency))).sorted()
        let incomplete = Set(r.buckets.indices.filter { !r.buckets[$0].isComplete })
        return currencies.map { currency in
            let rows = r.buckets.map { bucket in r.rows.first { $0.bucket == bucket && $0.currency == currency } }
            func units(_ m: Int64?) -> Double? { m.map { Double($0) / 1000 } }
            var series = MovementComponent.allCases.map { c in
                ChartModel.Series(name: c.rawValue, kind: .bar, values: rows.map { units($0?[c]) }, role: role(c))
            }
            if r.currency != nil {
                series.append(ChartModel.Series(name: "fx", kind: .bar, values: rows.map { units($0?.fx) }, role: .muted))
            }
            series.append(
                ChartModel.Series(
                    name: "net", kind: .line, values: rows.map { units($0.map { $0.mrrEnd - $0.mrrStart }) }, role: .text))
            return ChartModel(
                title: "MRR movement by \(r.by.rawValue), \(currency)", labels: r.buckets.map(\.label),
                incomplete: incomplete, series: series, unit: currency, decimals: 2,
                caption: caption(asOf: r.asOf, store: store, command: "report movement"))
        }
    }

    /// One chart per line (per currency for money): a line for a stock, bars for events.
    public static func series(_ s: MetricSeries, store: String) -> [ChartModel] {
        let incomplete = Set(s.buckets.indices.filter { !s.buckets[$0].isComplete })
        let reading = s.metric.isStock ? "at each \(s.by.rawValue)'s end" : "per \(s.by.rawValue)"
        return s.lines.map { line in
            let values = line.values.map { s.metric.isMoney ? Double($0) / 1000 : Double($0) }
            let name = line.currency.map { "\(s.metric.name) \($0)" } ?? s.metric.name
            return ChartModel(
                title: "\(name) \(reading)", labels: s.buckets.map(\.label), incomplete: incomplete,
                series: [
                    ChartModel.Series(
                        name: s.metric.name, kind: s.metric.isStock ? .line : .bar, values: values,
                        role: s.metric.isStock ? .accent : .standard)
                ], unit: line.currency, decimals: s.metric.isMoney ? 2 : 0,
                caption: caption(asOf: s.asOf, store: store, command: "report series \(s.metric.name)"))
        }
    }

    /// The retention grid as an SVG heat map: cohorts down, paid periods across, the average last.
    public static func cohortsSVG(_ grid: CohortGrid, store: String) -> String {
        let rows = grid.cohorts + [grid.average]
        var title = "Retention by paid period"
        if let d = grid.duration { title += ", \(d.adjective) products" }
        return ChartSVG.heatMap(
            title: title, rowLabels: grid.cohorts.map(\.month.description) + ["average"],
            columnLabels: (1...max(1, grid.periods)).map { "P\($0)" }, values: rows.map(\.rate),
            caption: caption(asOf: grid.asOf, store: store, command: "report cohorts"))
    }
}
