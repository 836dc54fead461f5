import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics

/// `subdash report refunds`.
struct RefundsReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refunds",
        abstract: "Charged periods started in [from, to) and how many were refunded by as-of.")
    @OptionGroup var options: ReportOptions
    @OptionGroup var plan: PlanOption
    @OptionGroup var range: RangeOptions
    @OptionGroup var asOf: AsOfOption
    @Option(help: "What to group the refunds by.") var by: RefundGrouping = .month

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let r = try analytics.refundRate(
            from: range.from.instant, to: range.to.instant, asOf: at, by: by, scope: plan.applied(to: options.scope))
        emit(RefundsOutput(r), format: options.format)
    }
}
