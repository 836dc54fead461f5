import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics

/// `subdash report offers`.
struct OffersReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offers",
        abstract: "Offer uses started in [from, to): converted, lapsed, switched, pending, and P3/P6 retention of the converted.")
    @OptionGroup var options: ReportOptions
    @OptionGroup var range: RangeOptions
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var plan: PlanOption

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let r = try analytics.offerConversion(
            from: range.from.instant, to: range.to.instant, asOf: at, scope: plan.applied(to: options.scope))
        emit(OffersOutput(r), format: options.format)
    }
}
