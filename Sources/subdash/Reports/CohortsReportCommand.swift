import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriptionModel

extension BillingDuration: ExpressibleByArgument {}

/// `subdash report cohorts`.
struct CohortsReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cohorts", abstract: "Retention by cohort month and paid period (Kaplan–Meier).",
        discussion: """
            A member is a run with a paid period, in the month of its first paid period. P1…P12 are paid \
            periods, not calendar months: rate[k] is the Kaplan–Meier estimate of the share that reached \
            paid period k+1, over the members whose fate at each step is known (– while nobody's is). \
            \(purchasedOnlyDiscussion) Definitions in docs/metrics.md, "Retention cohorts".
            """)
    @OptionGroup var options: ReportOptions
    @OptionGroup var asOf: AsOfOption
    @Option(help: "Paid periods to show (P1…P).") var periods = 12
    @Option(help: "First cohort month (YYYY-MM).") var from: Month?
    @Option(help: "Last cohort month (YYYY-MM).") var to: Month?
    @Option(
        help: ArgumentHelp(
            "Only members whose first paid product bills for this duration (the most frequent length of its standard periods).",
            valueName: "duration"))
    var duration: BillingDuration?
    @OptionGroup var plan: PlanOption

    func validate() throws {
        if periods < 1 || periods > 120 { throw ValidationError("--periods must be between 1 and 120") }
        if let from, let to, to < from { throw ValidationError("--to \(to) is before --from \(from)") }
    }

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        if let duration {
            let known = try analytics.billingDurations()
            guard known.contains(duration) else {
                throw CLIError(
                    "no product in the store bills \(duration.adjective) (--duration "
                        + (known.isEmpty
                            ? "has nothing to choose from: no standard period yet)"
                            : "takes \(known.map(\.rawValue).joined(separator: ", ")))"),
                    code: 2)
            }
        }
        let grid = try analytics.cohorts(
            asOf: at, periods: periods, from: from, to: to, duration: duration, scope: plan.applied(to: options.scope))
        let store = URL(fileURLWithPath: options.store.path).lastPathComponent
        emit(CohortsOutput(grid, store: store), format: options.format)
    }
}
