import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriptionModel

/// `subdash report ltv`.
struct LTVReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ltv",
        abstract: "Realized lifetime value per member of each retention cohort, per currency, after P1…P12.")
    @OptionGroup var options: ReportOptions
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var conversion: ConversionOptions
    @Option(help: "Paid periods (columns).") var periods = 12
    @Option(help: "First cohort month (YYYY-MM; default: the first cohort).") var from: Month?
    @Option(help: "Last cohort month (YYYY-MM; default: the as-of month).") var to: Month?
    @OptionGroup var plan: PlanOption

    func validate() throws {
        if periods < 1 { throw ValidationError("--periods must be at least 1") }
    }

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let rates = try conversion.load()
        let r = try moneyReport {
            try analytics.ltv(
                asOf: at, periods: periods, from: from, to: to, scope: plan.applied(to: options.scope), rates: rates)
        }
        emit(LTVOutput(r), format: options.format)
    }
}
