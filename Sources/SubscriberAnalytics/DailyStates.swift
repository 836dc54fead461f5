import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

extension SubscriberAnalytics {
    /// States (docs/metrics.md, "States") at `days` instants one day apart, the last at `asOf` (for
    /// sparklines): one array per state that occurs, oldest first, `days` long. The last values
    /// equal ``states(asOf:scope:)``: each sample is counted the same way.
    public func dailyStates(endingAt asOf: Instant, days: Int, scope: ReportScope = ReportScope()) throws -> [SubscriptionState:
        [Int]]
    {
        guard days > 0 else { return [:] }
        let instants = (0..<days).map { asOf.adding(days: -Int64(days - 1 - $0)) }
        let samples = try database.segmentCounts(at: instants, scope: scope.rows)
        var series: [SubscriptionState: [Int]] = [:]
        for (d, counts) in samples.enumerated() {
            for (state, n) in counts {
                if series[state] == nil { series[state] = Array(repeating: 0, count: days) }
                series[state]![d] = n
            }
        }
        return series
    }
}
