import GRDB
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// How many subscriptions are in each state (docs/metrics.md, "States") at an instant.
public struct StateCounts: Sendable, Equatable {
    public var asOf: Instant
    public var counts: [SubscriptionState: Int]

    public init(asOf: Instant, counts: [SubscriptionState: Int] = [:]) {
        self.asOf = asOf
        self.counts = counts
    }

    public subscript(state: SubscriptionState) -> Int { counts[state] ?? 0 }
    /// Every state but billingRetry and expired.
    public var active: Int { SubscriptionState.allCases.filter(\.isActive).reduce(0) { $0 + self[$1] } }
    /// Subscriptions that ever started, at `asOf`.
    public var total: Int { counts.values.reduce(0, +) }
}

extension SubscriberAnalytics {
    /// States at `asOf`; with a product, by the product of the latest period started at
    /// or before `asOf` (in retry, the failed period).
    public func states(asOf: Instant, scope: ReportScope = ReportScope()) throws -> StateCounts {
        try database.writer.read { db in
            StateCounts(asOf: asOf, counts: try Self.coveringSegments(at: [asOf], scope: scope, db)[0])
        }
    }

    /// The segments with start <= t < end, by state, at each instant: what states and daily states count.
    ///
    /// Not a scan of every segment ending after t (millions at 1,000,000 subscribers): `segmentDay`
    /// counts the segments started and ended on each UTC day, so the segments covering a day
    /// boundary are a sum over the days before it; then the segments starting or ending between
    /// the nearer boundary of t's day and t itself are read from the indexes by start and by end.
    static func coveringSegments(at instants: [Instant], scope: ReportScope, _ db: Database) throws -> [[SubscriptionState: Int]] {
        guard let last = instants.max() else { return [] }
        let dayLength = Instant.millisecondsPerDay
        // For each instant, the day boundary used: its own day's start, or the next day's if nearer.
        func boundary(_ t: Instant) -> Int64 {
            let day = AppDatabase.day(of: t)
            return t.milliseconds - day * dayLength < (day + 1) * dayLength - t.milliseconds ? day : day + 1
        }
        let boundaries = instants.map(boundary)
        let product = scope.productId == nil ? "" : " AND productId = ?"
        let extra: StatementArguments = scope.productId.map { [$0] } ?? []

        // The segments covering the start of each boundary day: running sums of starts minus ends.
        var perDay: [Int64: [SubscriptionState: Int]] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT day, state, SUM(starts - ends) FROM segmentDay
            WHERE \(scope.sql()) AND day < ?\(product)
            GROUP BY day, state
            """, arguments: [boundary(last)] + extra) {
            guard let state = SubscriptionState(rawValue: row[1]) else { continue }
            perDay[row[0], default: [:]][state, default: 0] += row[2] as Int
        }
        var atBoundary: [Int64: [SubscriptionState: Int]] = [:]
        var running: [SubscriptionState: Int] = [:]
        var days = perDay.keys.sorted()[...]
        for b in Set(boundaries).sorted() {
            while let day = days.first, day < b {
                for (state, n) in perDay[day]! { running[state, default: 0] += n }
                days = days.dropFirst()
            }
            atBoundary[b] = running
        }

        let starts = try db.cachedStatement(sql: """
            SELECT state, COUNT(*) FROM segment
            WHERE \(scope.sql()) AND start >= ? AND start <= ?\(product) GROUP BY state
            """)
        let ends = try db.cachedStatement(sql: """
            SELECT state, COUNT(*) FROM segment
            WHERE \(scope.sql()) AND "end" >= ? AND "end" <= ?\(product) GROUP BY state
            """)
        func add(_ statement: Statement, from: Int64, to: Int64, sign: Int, into counts: inout [SubscriptionState: Int]) throws {
            guard from <= to else { return }
            for row in try Row.fetchAll(statement, arguments: [from, to] + extra) {
                guard let state = SubscriptionState(rawValue: row[0]) else { continue }
                counts[state, default: 0] += sign * (row[1] as Int)
            }
        }
        return try zip(instants, boundaries).map { instant, boundary in
            var counts = atBoundary[boundary] ?? [:]
            let t = instant.milliseconds, b = boundary * dayLength
            if b <= t {
                // Started or ended in [b, t]: a segment ending at t no longer covers it.
                try add(starts, from: b, to: t, sign: 1, into: &counts)
                try add(ends, from: b, to: t, sign: -1, into: &counts)
            } else {
                // The counts at b, less what started after t, plus what ended after t, before b.
                try add(starts, from: t + 1, to: b - 1, sign: -1, into: &counts)
                try add(ends, from: t + 1, to: b - 1, sign: 1, into: &counts)
            }
            return counts.filter { $0.value != 0 }
        }
    }
}
