import SubscriberAnalytics
import SubscriptionModel

/// `report mrr`: Monthly recurring revenue at as-of, per currency.
public struct MRROutput: ReportOutput {
    public var report: MRRReport

    public init(_ report: MRRReport) { self.report = report }

    public var json: String {
        let r = report
        var o = JSONOutputObject()
        o["asOf"] = .string(r.asOf.iso8601)
        o["by"] = r.by.map { .string($0.rawValue) } ?? .null
        o["currency"] = r.currency.map(JSONOutput.string) ?? .null
        o["unpriced"] = .int(r.unpriced)
        o["rows"] = .array(
            r.rows.map { row in
                var x = JSONOutputObject()
                x["key"] = row.key.map(JSONOutput.string) ?? .null
                x["currency"] = .string(row.currency)
                x["subscriptions"] = .int(row.subscriptions)
                x["mrr"] = JSONOutput.amount(row.mrr)
                x["commitments"] = .int(row.commitments)
                x["committed"] = JSONOutput.amount(row.committed)
                return .object(x)
            })
        return JSONOutput.object(o).text
    }

    public var csv: CSVTable {
        let r = report
        return CSVTable(
            header: ["key", "currency", "subscriptions", "mrr", "commitments", "committed"],
            rows: r.rows.map {
                [
                    $0.key ?? "", $0.currency, "\($0.subscriptions)", MoneyFormat.plain($0.mrr), "\($0.commitments)",
                    MoneyFormat.plain($0.committed),
                ]
            })
    }

    public var table: String {
        let r = report
        var t = TextTable(
            headers: [r.by?.rawValue ?? "currency", "subscriptions", "MRR", "commitments", "committed"],
            rightAligned: [1, 2, 3, 4])
        t.rows = r.rows.map {
            [
                $0.key ?? $0.currency, grouped($0.subscriptions), MoneyFormat.text($0.mrr, $0.currency), grouped($0.commitments),
                MoneyFormat.text($0.committed, $0.currency),
            ]
        }
        var text = "MRR at \(r.asOf.iso8601)"
        if let c = r.currency { text += ", converted to \(c)" }
        text += "\n" + t.render()
        if r.unpriced > 0 {
            text +=
                "\n\(grouped(r.unpriced)) subscription\(r.unpriced == 1 ? "" : "s") without a price "
                + "\(r.unpriced == 1 ? "is" : "are") not counted (`subdash prices import`)"
        }
        return text
    }
}
