import AppStoreServerAPI
import ArgumentParser
import Foundation
import ReportOutputs
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
        emit(CampaignsOutput(r), format: ReportFormat(format))
    }

    /// One line per campaign at `step`: the subscription and whom it belongs to, for outreach.
    static func printMembers(_ r: CampaignReport, step: CampaignReport.Step, database: AppDatabase, format: OutputFormat) throws {
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
        emit(CampaignMembersOutput(step: step, rows: rows), format: ReportFormat(format))
    }
}
