import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics

extension SeriesMetric: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { names }
}

struct SeriesReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "series",
        abstract:
            "One metric per day, week or month: a state, active or mrr at each bucket's end, or an event type's count within it.",
        discussion:
            "METRIC is active, mrr, committed, a state (\(SubscriptionStateNames.text)) or an event type (\(EventTypeNames.text)). Every bucket is listed, empty ones as 0; money is per currency unless --currency converts it (docs/metrics.md, \"Series\"). A bucket cut short by --to or as-of is marked *."
    )
    @Argument(help: "What to follow over time.") var metric: SeriesMetric
    @OptionGroup var options: ReportOptions
    @OptionGroup var range: RangeOptions
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var conversion: ConversionOptions
    @Option(help: "Bucket length.") var by: BucketSize = .month
    @OptionGroup var plan: PlanOption

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let rates = try conversion.load()
        let s = try moneyReport {
            try analytics.series(
                metric, from: range.from.instant, to: range.to.instant, asOf: at, by: by, scope: plan.applied(to: options.scope),
                rates: rates)
        }
        let store = URL(fileURLWithPath: options.store.path).lastPathComponent
        emit(SeriesOutput(s, store: store), format: options.format)
    }
}

/// The state and event names, for help.
enum SubscriptionStateNames {
    static var text: String {
        SeriesMetric.names.filter { if case .state = SeriesMetric(name: $0) { true } else { false } }.joined(separator: ", ")
    }
}

enum EventTypeNames {
    static var text: String {
        SeriesMetric.names.filter { if case .event = SeriesMetric(name: $0) { true } else { false } }.joined(separator: ", ")
    }
}
