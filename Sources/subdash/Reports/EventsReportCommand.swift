import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics

/// `subdash report events`.
struct EventsReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "events", abstract: "Events with their instant in [from, to).")
    @OptionGroup var options: ReportOptions
    @OptionGroup var ownership: OwnershipOption
    @OptionGroup var range: RangeOptions
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var plan: PlanOption

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let counts = try analytics.events(
            from: range.from.instant, to: range.to.instant, asOf: at,
            scope: plan.applied(to: ownership.scope(options)))
        emit(EventsOutput(counts), format: options.format)
    }
}
