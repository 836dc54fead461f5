import ArgumentParser

struct Report: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Print the figures defined in docs/metrics.md as a table, CSV or JSON.",
        subcommands: [
            StatesReportCommand.self, EventsReportCommand.self, CohortsReportCommand.self, RecoveryReportCommand.self,
            SubscriberReportCommand.self, EligibilityReportCommand.self, RevenueReportCommand.self,
            RefundsReportCommand.self, MRRReportCommand.self, OffersReportCommand.self, LTVReportCommand.self,
            CampaignsReportCommand.self,
            MovementReportCommand.self, SeriesReportCommand.self,
        ])
}
