import Foundation
import SubscriberAnalytics
import SubscriptionModel

/// `report campaigns`: flags set in [from, to) per flag kind and offer, from flagged to retained.
/// The Offers pane's funnel export writes the same CSV less `pending` (``Columns/funnel``).
public struct CampaignsOutput: ReportOutput {
    public var report: CampaignReport

    public init(_ report: CampaignReport) { self.report = report }

    public var json: String {
        let r = report
        func value(_ x: Double?) -> JSONOutput { x.map(JSONOutput.double) ?? .null }
        var o = JSONOutputObject()
        o["from"] = .string(r.from.iso8601)
        o["to"] = .string(r.to.iso8601)
        o["asOf"] = .string(r.asOf.iso8601)
        o["campaigns"] = .array(
            r.rows.map { row in
                var c = JSONOutputObject()
                c["flag"] = .string(row.flag.rawValue)
                c["offerKind"] = row.offer.map { .string($0.kind.rawValue) } ?? .null
                c["offerIdentifier"] = row.offer.map { .string($0.identifier) } ?? .null
                c["flagged"] = .int(row.flagged)
                c["served"] = .int(row.served)
                c["redeemed"] = .int(row.redeemed)
                c["converted"] = .int(row.converted)
                c["lapsed"] = .int(row.lapsed)
                c["pending"] = .int(row.pending)
                c["servedRate"] = value(row.servedRate)
                c["redemptionRate"] = value(row.redemptionRate)
                c["conversionRate"] = value(row.conversionRate)
                c["timeToRedeemDays"] = row.timeToRedeemDays.map { .int($0) } ?? .null
                var retention = JSONOutputObject()
                retention["3"] = value(row.retention3)
                retention["6"] = value(row.retention6)
                c["retention"] = .object(retention)
                return .object(c)
            })
        return JSONOutput.object(o).text
    }

    /// The CSV's columns: the command line's, or the Offers pane's funnel export, which has no
    /// `pending` (the funnel shows no such column).
    public enum Columns: Sendable {
        case report, funnel
    }

    public static func csvHeader(_ columns: Columns = .report) -> [String] {
        ["flag", "offerKind", "offerIdentifier", "flagged", "served", "redeemed", "converted", "lapsed"]
            + (columns == .report ? ["pending"] : [])
            + ["servedRate", "redemptionRate", "conversionRate", "timeToRedeemDays", "retention3", "retention6"]
    }

    public static func csvCells(_ row: CampaignReport.Row, _ columns: Columns = .report) -> [String] {
        func number(_ x: Double?) -> String { x.map { "\($0)" } ?? "" }
        return [
            row.flag.rawValue, row.offer?.kind.rawValue ?? "", row.offer?.identifier ?? "", "\(row.flagged)",
            "\(row.served)", "\(row.redeemed)", "\(row.converted)", "\(row.lapsed)",
        ] + (columns == .report ? ["\(row.pending)"] : []) + [
            number(row.servedRate), number(row.redemptionRate), number(row.conversionRate),
            row.timeToRedeemDays.map(String.init) ?? "", number(row.retention3), number(row.retention6),
        ]
    }

    public var csv: CSVTable { CSVTable(header: Self.csvHeader(), rows: report.rows.map { Self.csvCells($0) }) }

    public var table: String {
        let r = report
        func rate(_ x: Double?) -> String { x.map { String(format: "%.1f%%", $0 * 100) } ?? "–" }
        return TextTable(
            headers: [
                "flag", "offer", "flagged", "served", "redeemed", "converted", "lapsed", "redeem %", "convert %",
                "days to redeem", "P3", "P6",
            ],
            rows: r.rows.map {
                [
                    $0.flag.rawValue, $0.offer.map { "\($0.kind.rawValue):\($0.identifier)" } ?? "none",
                    grouped($0.flagged),
                    grouped($0.served), grouped($0.redeemed), grouped($0.converted), grouped($0.lapsed),
                    rate($0.redemptionRate), rate($0.conversionRate), $0.timeToRedeemDays.map(String.init) ?? "–",
                    rate($0.retention3), rate($0.retention6),
                ]
            }, rightAligned: Set(2...11),
            note: r.rows.isEmpty ? "no flag set in \(r.from.iso8601) … \(r.to.iso8601)" : nil
        ).render()
    }
}

/// `report campaigns --members STEP`: the subscriptions at one step of each campaign, with whom
/// they belong to, for outreach.
public struct CampaignMembersOutput: ReportOutput {
    public var step: CampaignReport.Step
    /// flag, offer, originalTransactionId, email, userId, appAccountToken.
    public var rows: [[String]]

    public static let headers = ["flag", "offer", "originalTransactionId", "email", "userId", "appAccountToken"]

    public init(step: CampaignReport.Step, rows: [[String]]) {
        self.step = step
        self.rows = rows
    }

    public var json: String {
        var o = JSONOutputObject()
        o["step"] = .string(step.rawValue)
        o["members"] = .array(
            rows.map { cells in
                var m = JSONOutputObject()
                for (key, cell) in zip(Self.headers, cells) { m[key] = cell.isEmpty && key != "flag" ? .null : .string(cell) }
                return .object(m)
            })
        return JSONOutput.object(o).text
    }

    public var csv: CSVTable { CSVTable(header: Self.headers, rows: rows) }

    public var table: String { TextTable(headers: Self.headers, rows: rows, note: "\(rows.count) \(step.rawValue)").render() }
}
