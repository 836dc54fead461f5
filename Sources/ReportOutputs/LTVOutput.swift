import SubscriberAnalytics
import SubscriptionModel

/// `report ltv`: Realized lifetime value per member of each retention cohort, per currency.
public struct LTVOutput: ReportOutput {
    public var report: LTVReport

    public init(_ report: LTVReport) { self.report = report }

    public var json: String {
        let r = report
        func numbers(_ values: [Double?]) -> JSONOutput { .array(values.map { $0.map(JSONOutput.double) ?? .null }) }
        func amounts(_ values: [Double?]) -> JSONOutput {
            .array(values.map { $0.map { JSONOutput.amount(Int64($0.rounded(.toNearestOrAwayFromZero))) } ?? .null })
        }
        func row(_ x: LTVReport.Row) -> JSONOutput {
            var o = JSONOutputObject()
            if let m = x.month { o["month"] = .string(m.description) }
            o["currency"] = .string(x.currency)
            o["started"] = .int(x.started)
            o["rate"] = numbers(x.rate)
            o["ltv"] = amounts(x.ltv)
            return .object(o)
        }
        var o = JSONOutputObject()
        o["asOf"] = .string(r.asOf.iso8601)
        o["periods"] = .int(r.periods)
        o["currency"] = r.currency.map(JSONOutput.string) ?? .null
        o["mixedCurrency"] = .int(r.mixedCurrency)
        o["unpriced"] = .int(r.unpriced)
        o["cohorts"] = .array(r.cohorts.map(row))
        o["average"] = .array(r.average.map(row))
        return JSONOutput.object(o).text
    }

    public var csv: CSVTable {
        let r = report
        var rows: [[String]] = []
        for c in r.cohorts + r.average {
            for k in 0..<r.periods {
                rows.append([
                    c.month?.description ?? "average", c.currency, "\(c.started)", "\(k + 1)",
                    c.rate[k].map { "\($0)" } ?? "",
                    c.ltv[k].map { MoneyFormat.plain(Int64($0.rounded(.toNearestOrAwayFromZero))) } ?? "",
                ])
            }
        }
        return CSVTable(header: ["month", "currency", "started", "period", "rate", "ltv"], rows: rows)
    }

    public var table: String {
        let r = report
        func money(_ v: Double?, _ c: String) -> String {
            v.map { MoneyFormat.text(Int64($0.rounded(.toNearestOrAwayFromZero)), c) } ?? "–"
        }
        let shown = min(r.periods, 6)
        var t = TextTable(
            headers: ["cohort", "currency", "started"] + (1...shown).map { "P\($0)" },
            rightAligned: Set(2..<(3 + shown)))
        t.rows = (r.cohorts + r.average).map { c in
            [c.month?.description ?? "average", c.currency, grouped(c.started)]
                + (0..<shown).map { money(c.ltv[$0], c.currency) }
        }
        var text = "Realized LTV per member as of \(r.asOf.iso8601)"
        if let c = r.currency { text += ", converted to \(c)" }
        text += "\n" + t.render()
        if shown < r.periods { text += "\n(\(r.periods - shown) more periods: use --format csv or json)" }
        if r.unpriced + r.mixedCurrency > 0 {
            text +=
                "\n\(grouped(r.unpriced)) members without a priced paid period and \(grouped(r.mixedCurrency)) paying in two "
                + "currencies are left out"
        }
        return text
    }
}
