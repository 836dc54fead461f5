import AppStoreServerAPI
import ArgumentParser
import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel

extension CampaignReport.Step: ExpressibleByArgument {}

/// `subdash report campaigns`: from a flag to a redeemed offer (docs/metrics.md, "Campaigns").
struct CampaignsReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "campaigns",
        abstract: "Flags set in [from, to) per flag kind and offer: flagged, served, redeemed, converted, retained (P3/P6).",
        discussion: """
            The offer each flag means comes from the [offers.KIND] catalogue of the configuration file \
            (README, "Offers that reach the customer"); a flag whose product has none is counted under the \
            offer "none". Definitions: docs/metrics.md, "Campaigns".
            """)

    @OptionGroup var store: StoreOptions
    @OptionGroup var range: RangeOptions
    @OptionGroup var asOf: AsOfOption
    @Option(help: "The configuration file with the offer catalogue (default: $XDG_CONFIG_HOME/subdash/config.toml).")
    var config: String?
    @Option(help: "How to print the report.") var format: OutputFormat = .table
    @Option(
        help: """
            Instead of the counts, list the subscriptions at this step (flagged, served, redeemed, converted, \
            lapsed) with the flag, offer, email, user id and appAccountToken.
            """)
    var members: CampaignReport.Step?

    mutating func run() async throws {
        let catalogue: OfferCatalogue
        let analytics: SubscriberAnalytics
        do {
            (catalogue, _) = try CatalogueFile.load(config)
            try store.requireExisting()
            analytics = SubscriberAnalytics(database: try store.open(readOnly: true))
        } catch let error as CLIError { error.exit() }
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let r = try analytics.campaigns(from: range.from.instant, to: range.to.instant, asOf: at, offer: catalogue.campaignOffer)
        if let members { return try Self.printMembers(r, step: members, database: analytics.database, format: format) }
        func rate(_ x: Double?) -> String { x.map { String(format: "%.1f%%", $0 * 100) } ?? "–" }
        func number(_ x: Double?) -> String { x.map { "\($0)" } ?? "" }
        emit(
            ReportFormat(format), json: { Self.json(r) },
            csv: {
                CSV.render(
                    header: [
                        "flag", "offerKind", "offerIdentifier", "flagged", "served", "redeemed", "converted", "lapsed", "pending",
                        "servedRate", "redemptionRate", "conversionRate", "timeToRedeemDays", "retention3", "retention6",
                    ],
                    rows: r.rows.map {
                        [
                            $0.flag.rawValue, $0.offer?.kind.rawValue ?? "", $0.offer?.identifier ?? "", "\($0.flagged)",
                            "\($0.served)", "\($0.redeemed)", "\($0.converted)", "\($0.lapsed)", "\($0.pending)",
                            number($0.servedRate), number($0.redemptionRate), number($0.conversionRate),
                            $0.timeToRedeemDays.map(String.init) ?? "", number($0.retention3), number($0.retention6),
                        ]
                    })
            },
            table: {
                TextTable(
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
            })
    }

    /// One line per campaign at `step`: the subscription and whom it belongs to, for outreach.
    static func printMembers(_ r: CampaignReport, step: CampaignReport.Step, database: AppDatabase, format: OutputFormat) throws {
        let headers = ["flag", "offer", "originalTransactionId", "email", "userId", "appAccountToken"]
        var rows: [[String]] = []
        for row in r.rows {
            for id in row.members[step] ?? [] {
                let customer = try database.customer(of: id)
                rows.append([
                    row.flag.rawValue, row.offer.map { "\($0.kind.rawValue):\($0.identifier)" } ?? "none", id,
                    customer.email ?? "", customer.userId ?? "", customer.appAccountToken ?? "",
                ])
            }
        }
        switch format {
        case .csv: printCSV(CSV.render(header: headers, rows: rows))
        case .json:
            let keys = ["flag", "offer", "originalTransactionId", "email", "userId", "appAccountToken"]
            var o = JSONObject()
            o["step"] = .string(step.rawValue)
            o["members"] = .array(
                rows.map { cells in
                    var m = JSONObject()
                    for (key, cell) in zip(keys, cells) { m[key] = cell.isEmpty && key != "flag" ? .null : .string(cell) }
                    return .object(m)
                })
            print(JSONValue.object(o).text)
        case .table: printOutput(TextTable(headers: headers, rows: rows, note: "\(rows.count) \(step.rawValue)").render())
        }
    }

    static func json(_ r: CampaignReport) -> String {
        func value(_ x: Double?) -> JSONValue { x.map(JSONValue.double) ?? .null }
        var o = JSONObject()
        o["from"] = .string(r.from.iso8601)
        o["to"] = .string(r.to.iso8601)
        o["asOf"] = .string(r.asOf.iso8601)
        o["campaigns"] = .array(
            r.rows.map { row in
                var c = JSONObject()
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
                var retention = JSONObject()
                retention["3"] = value(row.retention3)
                retention["6"] = value(row.retention6)
                c["retention"] = .object(retention)
                return .object(c)
            })
        return JSONValue.object(o).text
    }
}
