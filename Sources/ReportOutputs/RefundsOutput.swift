import SubscriberAnalytics
import SubscriptionModel

/// `report refunds`: Charged periods started in [from, to) and how many were refunded by as-of.
public struct RefundsOutput: ReportOutput {
    public var report: RefundRateReport

    public init(_ report: RefundRateReport) { self.report = report }

    public var json: String {
        let r = report
        var o = JSONOutputObject()
        o["from"] = .string(r.from.iso8601)
        o["to"] = .string(r.to.iso8601)
        o["asOf"] = .string(r.asOf.iso8601)
        o["by"] = .string(r.by.rawValue)
        o["rows"] = .array(
            r.rows.map { row in
                var x = JSONOutputObject()
                x["key"] = .string(row.key)
                x["charged"] = .int(row.charged)
                x["refunded"] = .int(row.refunded)
                x["rate"] = row.rate.map(JSONOutput.double) ?? .null
                return .object(x)
            })
        return JSONOutput.object(o).text
    }

    public var csv: CSVTable {
        let r = report
        return CSVTable(
            header: ["key", "charged", "refunded", "rate"],
            rows: r.rows.map { [$0.key, "\($0.charged)", "\($0.refunded)", $0.rate.map { "\($0)" } ?? ""] })
    }

    public var table: String {
        let r = report
        var t = TextTable(headers: [r.by.rawValue, "charged", "refunded", "rate"], rightAligned: [1, 2, 3])
        t.rows = r.rows.map { [$0.key, grouped($0.charged), grouped($0.refunded), percent($0.rate)] }
        return "Refund rate \(r.from.iso8601) – \(r.to.iso8601), as of \(r.asOf.iso8601)\n" + t.render()
    }
}
