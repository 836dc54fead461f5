import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// `report series`: one metric per day, week or month; SVG: a line (a stock) or bars (events) per
/// line. Pane 7's `ctrl-s` writes this CSV of the line it shows.
public struct SeriesOutput: ReportOutput {
    public var series: MetricSeries
    /// The store's file name, in the charts' captions.
    public var store: String

    public init(_ series: MetricSeries, store: String) {
        self.series = series
        self.store = store
    }

    public var json: String {
        let s = series
        var o = JSONOutputObject()
        o["metric"] = .string(s.metric.name)
        o["from"] = .string(s.from.iso8601)
        o["to"] = .string(s.to.iso8601)
        o["asOf"] = .string(s.asOf.iso8601)
        o["by"] = .string(s.by.rawValue)
        o["series"] = .array(
            s.lines.map { line in
                var x = JSONOutputObject()
                x["currency"] = line.currency.map(JSONOutput.string) ?? .null
                x["points"] = .array(
                    zip(s.buckets, line.values).map { bucket, value in
                        var p = JSONOutputObject()
                        p["start"] = .string(bucket.start.iso8601)
                        p["end"] = .string(bucket.end.iso8601)
                        p["value"] = s.metric.isMoney ? JSONOutput.amount(value) : .int(Int(value))
                        return .object(p)
                    })
                return .object(x)
            })
        return JSONOutput.object(o).text
    }

    /// One row per line and bucket.
    public var csv: CSVTable {
        let s = series
        let rows = s.lines.flatMap { line in
            zip(s.buckets, line.values).map { bucket, value in
                [
                    bucket.start.iso8601, bucket.end.iso8601, line.currency ?? "",
                    s.metric.isMoney ? MoneyFormat.plain(value) : "\(value)",
                ]
            }
        }
        return CSVTable(header: ["start", "end", "currency", "value"], rows: rows)
    }

    public var table: String {
        let s = series
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

    public var svg: String? { ChartSVG.render(ReportCharts.series(series, store: store)) }
}
