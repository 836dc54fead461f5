import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics

/// `subdash report revenue`.
struct RevenueReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revenue",
        abstract: "Gross, refunds, upgrade credits, net and estimated proceeds in [from, to), per currency.",
        discussion:
            "Each amount counts at its own instant: a charge at its period's start, a refund at its revocation, an upgrade credit at the cut. Proceeds are an estimate: tax is not removed (docs/metrics.md, \"Money\")."
    )
    @OptionGroup var options: ReportOptions
    @OptionGroup var plan: PlanOption
    @OptionGroup var range: RangeOptions
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var conversion: ConversionOptions
    @Option(help: "What to group the amounts by (currency: each amount's own, also when converted).") var by: RevenueGrouping?
    @Flag(name: .customLong("small-business"), help: "Proceeds at 85 % throughout (App Store Small Business Program).")
    var smallBusiness = false

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let rates = try conversion.load()
        let r = try moneyReport {
            try analytics.revenue(
                from: range.from.instant, to: range.to.instant, asOf: at, by: by, scope: plan.applied(to: options.scope),
                rates: rates, smallBusiness: smallBusiness)
        }
        emit(RevenueOutput(r), format: options.format)
    }
}
