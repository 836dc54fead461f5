import SubscriptionModel

/// The length of the buckets a figure over time is read in (`--by`).
public enum BucketSize: String, Sendable, CaseIterable, Codable {
    case day, week, month
}

/// One bucket [start, end) of a report over time (docs/metrics.md "MRR movement", "Series").
public struct ReportBucket: Sendable, Hashable {
    public var start: Instant
    /// min(the bucket's natural end, `--to`, as-of).
    public var end: Instant
    /// False when `end` is before the bucket's natural end (the current month, a range cut short).
    public var isComplete: Bool
    public var size: BucketSize

    public init(start: Instant, end: Instant, isComplete: Bool, size: BucketSize) {
        self.start = start
        self.end = end
        self.isComplete = isComplete
        self.size = size
    }

    /// `2025-03` for a month, `2025-W09` for an ISO week, `2025-03-01` for a day.
    public var label: String {
        switch size {
        case .month: return start.month.description
        case .day: return start.isoDate
        case .week:
            // The ISO week belongs to the year of its Thursday.
            let thursday = start.adding(days: 3)
            let year = UTCCalendar.components(of: thursday).year
            let firstDay = UTCCalendar.daysFromCivil(year: year, month: 1, day: 1)
            let week = (thursday.milliseconds / Instant.millisecondsPerDay - firstDay) / 7 + 1
            return String(format: "%04d-W%02d", year, Int(week))
        }
    }
}

extension BucketSize {
    /// The start of the bucket holding `t`: the UTC month, the ISO week (Monday 00:00 UTC) or the day.
    public func start(of t: Instant) -> Instant {
        let day = Self.day(of: t)
        switch self {
        case .month: return t.month.start
        case .day: return Instant(milliseconds: day * Instant.millisecondsPerDay)
        case .week:
            // 1970-01-01 was a Thursday: day 4 was a Monday.
            let sinceMonday = ((day - 4) % 7 + 7) % 7
            return Instant(milliseconds: (day - sinceMonday) * Instant.millisecondsPerDay)
        }
    }

    /// The natural end of the bucket that starts at `start`.
    public func end(startingAt start: Instant) -> Instant {
        switch self {
        case .month: return start.month.end
        case .day: return start.adding(days: 1)
        case .week: return start.adding(days: 7)
        }
    }

    private static func day(of t: Instant) -> Int64 {
        let d = Instant.millisecondsPerDay
        return (t.milliseconds - ((t.milliseconds % d) + d) % d) / d
    }

    /// The most buckets one report lists (about 27 years of days): bounds its memory and time.
    public static let maximumCount = 10_000

    /// The buckets from the one holding `from` to the one holding the last instant before
    /// min(`to`, `asOf`); the last ends at min(its end, `to`, `asOf`). Empty when that instant is
    /// before `from`. Throws when there would be more than ``maximumCount``.
    public func buckets(from: Instant, to: Instant, asOf: Instant) throws -> [ReportBucket] {
        let limit = min(to, asOf)
        guard from < limit else { return [] }
        var buckets: [ReportBucket] = []
        var start = self.start(of: from)
        while start < limit {
            guard buckets.count < Self.maximumCount else {
                throw AnalyticsError(
                    "\(from.isoDate) to \(limit.isoDate) is more than \(CountText.grouped(Self.maximumCount)) "
                        + "\(rawValue)s: choose a shorter range or a longer --by")
            }
            let natural = end(startingAt: start)
            let end = min(natural, limit)
            buckets.append(ReportBucket(start: start, end: end, isComplete: end == natural, size: self))
            start = natural
        }
        return buckets
    }
}
