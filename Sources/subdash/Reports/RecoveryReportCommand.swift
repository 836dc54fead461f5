import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics

/// `subdash report recovery`.
struct RecoveryReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recovery", abstract: "Billing failures in [from, to) and how they ended.")
    @OptionGroup var options: ReportOptions
    @OptionGroup var ownership: OwnershipOption
    @OptionGroup var range: RangeOptions
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var plan: PlanOption

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let r = try analytics.recovery(
            from: range.from.instant, to: range.to.instant, asOf: at,
            scope: plan.applied(to: ownership.scope(options)))
        emit(RecoveryOutput(r), format: options.format)
    }
}
