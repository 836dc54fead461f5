import SubscriberAnalytics
import SubscriptionModel

/// `report revenue`: Gross, refunds, upgrade credits, net and estimated proceeds in [from, to), per currency.
public struct RevenueOutput: ReportOutput {
    public var report: RevenueReport

    public init(_ report: RevenueReport) { self.report = report }

    public var json: String {
        let r = report
        var o = JSONOutputObject()
        o["from"] = .string(r.from.iso8601)
        o["to"] = .string(r.to.iso8601)
        o["asOf"] = .string(r.asOf.iso8601)
        o["by"] = r.by.map { .string($0.rawValue) } ?? .null
        o["currency"] = r.currency.map(JSONOutput.string) ?? .null
        o["unpriced"] = .int(r.unpriced)
        o["rows"] = .array(
            r.rows.map { row in
                var x = JSONOutputObject()
                x["key"] = row.key.map(JSONOutput.string) ?? .null
                x["currency"] = .string(row.currency)
                x["charged"] = .int(row.charged)
                x["gross"] = JSONOutput.amount(row.gross)
                x["refunded"] = .int(row.refunded)
                x["refunds"] = JSONOutput.amount(row.refunds)
                x["upgradeCredits"] = JSONOutput.amount(row.upgradeCredits)
                x["net"] = JSONOutput.amount(row.net)
                x["proceeds"] = JSONOutput.amount(row.proceeds)
                return .object(x)
            })
        return JSONOutput.object(o).text
    }

    public var csv: CSVTable {
        let r = report
        return CSVTable(
            header: ["key", "currency", "charged", "gross", "refunded", "refunds", "upgradeCredits", "net", "proceeds"],
            rows: r.rows.map {
                [
                    $0.key ?? "", $0.currency, "\($0.charged)", MoneyFormat.plain($0.gross), "\($0.refunded)",
                    MoneyFormat.plain($0.refunds), MoneyFormat.plain($0.upgradeCredits), MoneyFormat.plain($0.net),
                    MoneyFormat.plain($0.proceeds),
                ]
            })
    }

    public var table: String {
        let r = report
        var t = TextTable(
            headers: [
                r.by?.rawValue ?? "", "charged", "gross", "refunded", "refunds", "upgrade credits", "net",
                "est. proceeds",
            ], rightAligned: [1, 2, 3, 4, 5, 6, 7])
        t.rows = r.rows.map {
            [
                $0.key ?? $0.currency, grouped($0.charged), MoneyFormat.text($0.gross, $0.currency), grouped($0.refunded),
                MoneyFormat.text($0.refunds, $0.currency), MoneyFormat.text($0.upgradeCredits, $0.currency),
                MoneyFormat.text($0.net, $0.currency), MoneyFormat.text($0.proceeds, $0.currency),
            ]
        }
        var text = "Revenue \(r.from.iso8601) – \(r.to.iso8601), as of \(r.asOf.iso8601)"
        if let c = r.currency { text += ", converted to \(c)" }
        text += "\n" + t.render()
        if r.unpriced > 0 {
            text +=
                "\n\(grouped(r.unpriced)) item\(r.unpriced == 1 ? "" : "s") without a price \(r.unpriced == 1 ? "is" : "are") "
                + "not counted (`subdash prices import`)"
        }
        return text
    }
}
