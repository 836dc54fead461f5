import SubscriberAnalytics
import SubscriptionModel

/// `report offers`: Offer uses started in [from, to) and what became of them.
public struct OffersOutput: ReportOutput {
    public var report: OfferConversionReport

    public init(_ report: OfferConversionReport) { self.report = report }

    public var json: String {
        let r = report
        var o = JSONOutputObject()
        o["from"] = .string(r.from.iso8601)
        o["to"] = .string(r.to.iso8601)
        o["asOf"] = .string(r.asOf.iso8601)
        o["offers"] = .array(
            r.offers.map { row in
                var x = JSONOutputObject()
                x["offerKind"] = .string(row.offerKind.rawValue)
                x["offerIdentifier"] = row.offerIdentifier.map(JSONOutput.string) ?? .null
                x["started"] = .int(row.started)
                x["converted"] = .int(row.converted)
                x["lapsed"] = .int(row.lapsed)
                x["switched"] = .int(row.switched)
                x["pending"] = .int(row.pending)
                x["rate"] = row.rate.map(JSONOutput.double) ?? .null
                var retention = JSONOutputObject()
                retention["3"] = row.retention3.map(JSONOutput.double) ?? .null
                retention["6"] = row.retention6.map(JSONOutput.double) ?? .null
                x["retention"] = .object(retention)
                return .object(x)
            })
        return JSONOutput.object(o).text
    }

    public var csv: CSVTable {
        let r = report
        return CSVTable(
            header: [
                "offerKind", "offerIdentifier", "started", "converted", "lapsed", "switched", "pending", "rate",
                "retention3", "retention6",
            ],
            rows: r.offers.map {
                [
                    $0.offerKind.rawValue, $0.offerIdentifier ?? "", "\($0.started)", "\($0.converted)", "\($0.lapsed)",
                    "\($0.switched)", "\($0.pending)", $0.rate.map { "\($0)" } ?? "", $0.retention3.map { "\($0)" } ?? "",
                    $0.retention6.map { "\($0)" } ?? "",
                ]
            })
    }

    public var table: String {
        let r = report
        var t = TextTable(
            headers: [
                "offer", "identifier", "started", "converted", "lapsed", "switched", "pending",
                "conversion", "P3", "P6",
            ], rightAligned: [2, 3, 4, 5, 6, 7, 8, 9])
        t.rows = r.offers.map {
            [
                $0.offerKind.rawValue, $0.offerIdentifier ?? "–", grouped($0.started), grouped($0.converted),
                grouped($0.lapsed), grouped($0.switched), grouped($0.pending), percent($0.rate),
                percent($0.retention3), percent($0.retention6),
            ]
        }
        return "Offers started \(r.from.iso8601) – \(r.to.iso8601), as of \(r.asOf.iso8601)\n" + t.render()
    }
}
