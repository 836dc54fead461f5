import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics

extension BucketSize: ExpressibleByArgument {}

/// `subdash report movement`.
struct MovementReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "movement",
        abstract: "What moved MRR in each month, week or day: new, reactivation, expansion, contraction, churn, fx.",
        discussion:
            "Each purchased subscription's MRR at a bucket's start and end compared: mrrStart + new + reactivation + expansion + contraction + churn + fx = mrrEnd, and mrrStart and mrrEnd are `report mrr` at the bucket's ends (docs/metrics.md, \"MRR movement\"). A bucket cut short by --to or as-of is marked *."
    )
    @OptionGroup var options: ReportOptions
    @OptionGroup var range: RangeOptions
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var conversion: ConversionOptions
    @OptionGroup var plan: PlanOption
    @Option(help: "Bucket length.") var by: BucketSize = .month

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let rates = try conversion.load()
        let r = try moneyReport {
            try analytics.movement(
                from: range.from.instant, to: range.to.instant, asOf: at, by: by, scope: plan.applied(to: options.scope),
                rates: rates)
        }
        let store = URL(fileURLWithPath: options.store.path).lastPathComponent
        emit(MovementOutput(r, store: store), format: options.format)
    }
}
