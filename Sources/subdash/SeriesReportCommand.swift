import ArgumentParser
import Dashboard
import Foundation
import SubscriberAnalytics
import TerminalUI

extension SeriesMetric: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { names }
}

struct SeriesReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "series",
        abstract:
            "One metric per day, week or month: a state, active or mrr at each bucket's end, or an event type's count within it.",
        discussion:
            "METRIC is active, mrr, committed, a state (\(SubscriptionStateNames.text)) or an event type (\(EventTypeNames.text)). Every bucket is listed, empty ones as 0; money is per currency unless --currency converts it (docs/metrics.md, \"Series\"). A bucket cut short by --to or as-of is marked *."
    )
    @Argument(help: "What to follow over time.") var metric: SeriesMetric
    @OptionGroup var options: ReportOptions
    @OptionGroup var range: RangeOptions
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var conversion: ConversionOptions
    @Option(help: "Bucket length.") var by: BucketSize = .month
    @OptionGroup var plan: PlanOption

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let rates = try conversion.load()
        let s = try moneyReport {
            try analytics.series(
                metric, from: range.from.instant, to: range.to.instant, asOf: at, by: by, scope: plan.applied(to: options.scope),
                rates: rates)
        }
        let store = URL(fileURLWithPath: options.store.path).lastPathComponent
        emit(
            options.format, json: { ReportJSON.series(s) },
            csv: {
                let csv = ReportCharts.seriesCSV(s)
                return CSV.render(header: csv.header, rows: csv.rows)
            }, table: { Self.table(s) },
            svg: { ChartSVG.render(ReportCharts.series(s, store: store)) })
    }

    static func table(_ s: MetricSeries) -> String {
        let columns = s.lines.map { $0.currency ?? s.metric.name }
        var t = TextTable(headers: [s.by.rawValue] + columns, rightAligned: Set(1...max(1, columns.count)))
        t.rows = s.buckets.enumerated().map { i, bucket in
            [bucket.label + (bucket.isComplete ? "" : "*")]
                + s.lines.map { line in
                    s.metric.isMoney ? MoneyFormat.number(line.values[i], currency: line.currency) : grouped(Int(line.values[i]))
                }
        }
        let reading = s.metric.isStock ? "at each bucket's end" : "within each bucket"
        var text = "\(s.metric.name) \(reading), \(s.from.iso8601) – \(s.to.iso8601), as of \(s.asOf.iso8601)"
        if let c = s.currency { text += ", converted to \(c)" }
        text += "\n" + t.render()
        if s.buckets.contains(where: { !$0.isComplete }) { text += "\n* bucket cut short by --to or as-of" }
        return text
    }
}

/// The state and event names, for help.
enum SubscriptionStateNames {
    static var text: String {
        SeriesMetric.names.filter { if case .state = SeriesMetric(name: $0) { true } else { false } }.joined(separator: ", ")
    }
}

enum EventTypeNames {
    static var text: String {
        SeriesMetric.names.filter { if case .event = SeriesMetric(name: $0) { true } else { false } }.joined(separator: ", ")
    }
}
