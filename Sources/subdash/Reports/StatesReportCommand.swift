import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics

/// `subdash report states`.
struct StatesReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "states", abstract: "Subscriptions in each state at as-of.")
    @OptionGroup var options: ReportOptions
    @OptionGroup var ownership: OwnershipOption
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var plan: PlanOption

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let counts = try analytics.states(asOf: at, scope: plan.applied(to: ownership.scope(options)))
        emit(StatesOutput(counts), format: options.format)
    }
}
