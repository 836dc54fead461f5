import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriptionModel

/// `subdash report eligibility`.
struct EligibilityReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eligibility", abstract: "Subscribers suggested for each offer at as-of.",
        discussion: purchasedOnlyDiscussion)
    @OptionGroup var options: ReportOptions
    @OptionGroup var asOf: AsOfOption
    @Option(help: "Only this offer (any case).") var offer: OfferFlagKind?

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let rows = try analytics.eligibility(asOf: at, offer: offer, scope: options.scope)
        emit(EligibilityOutput(rows, asOf: at, offer: offer), format: options.format)
    }
}
