import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics

/// `subdash report mrr`.
struct MRRReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mrr",
        abstract: "Monthly recurring revenue at as-of, per currency.",
        discussion:
            "Every purchased subscription on a charged period at as-of (or in grace after one), its price made monthly by its billing length: a week × 52/12, a year / 12 (docs/metrics.md, \"Money\"). Free trials and billing retry add nothing."
    )
    @OptionGroup var options: ReportOptions
    @OptionGroup var plan: PlanOption
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var conversion: ConversionOptions
    @Option(help: "What to group by (currency: each subscription's own, also when converted).") var by: MRRGrouping?

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let rates = try conversion.load()
        let r = try moneyReport { try analytics.mrr(asOf: at, by: by, scope: plan.applied(to: options.scope), rates: rates) }
        emit(MRROutput(r), format: options.format)
    }
}
