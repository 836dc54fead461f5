import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// `report movement`: what moved MRR in each month, week or day; SVG: one chart per currency, the
/// movements as signed stacked bars and the net change as a line. Pane 6's `ctrl-s` writes this
/// CSV too.
public struct MovementOutput: ReportOutput {
    public var report: MRRMovement
    /// The store's file name, in the charts' captions.
    public var store: String

    public init(_ report: MRRMovement, store: String) {
        self.report = report
        self.store = store
    }

    public var json: String {
        let r = report
        var o = JSONOutputObject()
        o["from"] = .string(r.from.iso8601)
        o["to"] = .string(r.to.iso8601)
        o["asOf"] = .string(r.asOf.iso8601)
        o["by"] = .string(r.by.rawValue)
        o["currency"] = r.currency.map(JSONOutput.string) ?? .null
        o["rows"] = .array(
            r.rows.map { row in
                var x = JSONOutputObject()
                x["start"] = .string(row.bucket.start.iso8601)
                x["end"] = .string(row.bucket.end.iso8601)
                x["currency"] = .string(row.currency)
                x["mrrStart"] = JSONOutput.amount(row.mrrStart)
                for c in MovementComponent.allCases { x[c.rawValue] = JSONOutput.amount(row[c]) }
                x["fx"] = JSONOutput.amount(row.fx)
                x["mrrEnd"] = JSONOutput.amount(row.mrrEnd)
                var counts = JSONOutputObject()
                for c in MovementComponent.allCases { counts[c.rawValue] = .int(row.count(c)) }
                x["counts"] = .object(counts)
                return .object(x)
            })
        return JSONOutput.object(o).text
    }

    public static let csvHeader: [String] =
        ["start", "end", "currency", "mrrStart"] + MovementComponent.allCases.map(\.rawValue)
        + ["fx", "mrrEnd"] + MovementComponent.allCases.map { $0.rawValue + "Count" }

    public var csv: CSVTable {
        CSVTable(
            header: Self.csvHeader,
            rows: report.rows.map { row in
                [row.bucket.start.iso8601, row.bucket.end.iso8601, row.currency, MoneyFormat.plain(row.mrrStart)]
                    + MovementComponent.allCases.map { MoneyFormat.plain(row[$0]) }
                    + [MoneyFormat.plain(row.fx), MoneyFormat.plain(row.mrrEnd)]
                    + MovementComponent.allCases.map { "\(row.count($0))" }
            })
    }

    public var table: String {
        let r = report
        var t = TextTable(
            headers: [r.by.rawValue, "currency", "MRR start"] + MovementComponent.allCases.map(\.rawValue) + ["fx", "MRR end"],
            rightAligned: Set(2...10))
        t.rows = r.rows.map { row in
            func money(_ m: Int64) -> String { MoneyFormat.number(m, currency: row.currency) }
            return [row.bucket.label + (row.bucket.isComplete ? "" : "*"), row.currency, money(row.mrrStart)]
                + MovementComponent.allCases.map { "\(money(row[$0])) (\(grouped(row.count($0))))" }
                + [money(row.fx), money(row.mrrEnd)]
        }
        var text = "MRR movement \(r.from.iso8601) – \(r.to.iso8601), as of \(r.asOf.iso8601)"
        if let c = r.currency { text += ", converted to \(c)" }
        text += " (amount and subscriptions per movement)\n" + t.render()
        if r.rows.contains(where: { !$0.bucket.isComplete }) { text += "\n* bucket cut short by --to or as-of" }
        return text
    }

    public var svg: String? { ChartSVG.render(ReportCharts.movement(report, store: store)) }
}
