import SubscriberAnalytics
import TerminalUI

/// `report cohorts`: retention by cohort month and paid period (Kaplan–Meier); SVG: a heat map.
public struct CohortsOutput: ReportOutput {
    public var grid: CohortGrid
    /// The store's file name, in the chart's caption.
    public var store: String

    public init(_ grid: CohortGrid, store: String) {
        self.grid = grid
        self.store = store
    }

    public var json: String {
        let g = grid
        func rates(_ row: CohortGrid.Row) -> JSONOutput { .array(row.rate.map { $0.map(JSONOutput.double) ?? .null }) }
        var o = JSONOutputObject()
        o["asOf"] = .string(g.asOf.iso8601)
        o["periods"] = .int(g.periods)
        o["cohorts"] = .array(
            g.cohorts.map { c in
                var r = JSONOutputObject()
                r["month"] = .string(c.month.description)
                r["started"] = .int(c.started)
                r["retained"] = .array(c.retained.map(JSONOutput.int))
                r["ended"] = .array(c.ended.map(JSONOutput.int))
                r["rate"] = rates(c)
                return .object(r)
            })
        let avg = g.average
        var a = JSONOutputObject()
        a["retained"] = .array(avg.retained.map(JSONOutput.int))
        a["ended"] = .array(avg.ended.map(JSONOutput.int))
        a["rate"] = rates(avg)
        o["average"] = .object(a)
        return JSONOutput.object(o).text
    }

    public var csv: CSVTable {
        var rows: [[String]] = []
        func add(_ label: String, _ c: CohortGrid.Row) {
            let rate = c.rate
            for k in 0..<grid.periods {
                rows.append([
                    label, "\(c.started)", "\(k + 1)", "\(c.retained[k])", "\(c.ended[k])", rate[k].map { String($0) } ?? "",
                ])
            }
        }
        for c in grid.cohorts { add(c.month.description, c) }
        add("average", grid.average)
        return CSVTable(header: ["month", "started", "period", "retained", "ended", "rate"], rows: rows)
    }

    public var table: String {
        let shown = min(grid.periods, 6)
        var t = TextTable(headers: ["cohort", "started"] + (1...shown).map { "P\($0)" }, rightAligned: Set(1...(shown + 1)))
        t.rows = grid.cohorts.map { c in
            let rate = c.rate
            return [c.month.description, grouped(c.started)] + (0..<shown).map { percent(rate[$0]) }
        }
        let avg = grid.average
        let averageRate = avg.rate
        t.footer = ["average", grouped(avg.started)] + (0..<shown).map { percent(averageRate[$0]) }
        var text = "Retention by paid periods as of \(grid.asOf.asOfText)"
        if let duration = grid.duration { text += ", \(duration.adjective) products" }
        text += " (Kaplan–Meier: share reaching the next paid period among members whose fate is known; – not known yet)\n"
        text += t.render()
        if shown < grid.periods { text += "\n(\(grid.periods - shown) more periods: use --format csv or json)" }
        return text
    }

    public var svg: String? { ReportCharts.cohortsSVG(grid, store: store) }
}
