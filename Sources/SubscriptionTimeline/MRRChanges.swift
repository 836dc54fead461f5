import SubscriptionModel

/// The instants at which a subscription's MRR keys change (docs/metrics.md, "MRR movement"):
/// what MRR movement compares for a bucket other than a complete month. A subscription whose keys
/// covering a bucket's start and end differ has a change inside the bucket; one with no change
/// inside it adds the same at both ends, so it moves nothing and is counted from MRR at the start.
/// A renewal at the same price is no change: a month of a running store holds few of them.
///
/// The store keeps one row per change (`mrrChange`: environment, instant, subscription, the keys
/// covering the instant just before it and at it, as ``MRRKey/signature(_:)``, and the start of its
/// first charged period, which decides new against reactivation), so a bucket reads the changes
/// inside it and MRR at its start, not every interval covering its ends.
public enum MRRChanges {
    /// The rows a subscription's MRR intervals (all in one environment) add: one per instant t
    /// where the keys of the intervals covering t − 1 ms (start < t <= end) differ from those
    /// covering t (start <= t < end, as ``MRRInterval`` counts). `firstCharge` is the earliest
    /// start of its charged periods (milliseconds).
    public static func deltas(
        environment: String, originalTransactionId: String, intervals: [MRRInterval], firstCharge: Int64
    ) -> [CountDelta] {
        var boundaries = Set<Int64>()
        for interval in intervals {
            boundaries.insert(interval.start.milliseconds)
            boundaries.insert(interval.end.milliseconds)
        }
        var rows: [CountDelta] = []
        for t in boundaries {
            let before = MRRKey.signature(
                intervals.filter { $0.start.milliseconds < t && t <= $0.end.milliseconds }.map(\.key))
            let after = MRRKey.signature(
                intervals.filter { $0.start.milliseconds <= t && t < $0.end.milliseconds }.map(\.key))
            guard before != after else { continue }
            rows.append(
                CountDelta(
                    table: .mrrChange, scope: [.text(environment)], at: nil,
                    key: [
                        .integer(t), .text(originalTransactionId), .text(before), .text(after), .integer(firstCharge),
                    ]))
        }
        return rows
    }
}
