import GRDB
import SubscriptionModel
import SubscriptionTimeline

/// How many rows (segments, or starts minus ends) are in one state.
struct StateCountRow: FetchableRecord {
    var day: Int64?
    var state: String
    var count: Int

    init(row: Row) {
        day = row["day"]
        state = row["state"]
        count = row["count"]
    }
}

extension AppDatabase {
    /// The segments with start <= t < end, by state, at each instant: what states and daily states
    /// count. With a product, by the product of the segment; with a plan, by its billing plan.
    ///
    /// Not a scan of every segment ending after t (millions at 1,000,000 subscribers): `segmentDay`
    /// counts the segments started and ended on each UTC day, so the segments covering a day
    /// boundary are a sum over the days before it; then the segments starting or ending between
    /// the nearer boundary of t's day and t itself are read from the indexes by start and by end.
    public func segmentCounts(at instants: [Instant], scope: RowScope) throws -> [[SubscriptionState: Int]] {
        try writer.read { db in try Self.segmentCounts(at: instants, scope: scope, db) }
    }

    static func segmentCounts(at instants: [Instant], scope: RowScope, _ db: Database) throws -> [[SubscriptionState: Int]] {
        guard let last = instants.max() else { return [] }
        let dayLength = Instant.millisecondsPerDay
        // For each instant, the day boundary used: its own day's start, or the next day's if nearer.
        func boundary(_ t: Instant) -> Int64 {
            let day = Self.day(of: t)
            return t.milliseconds - day * dayLength < (day + 1) * dayLength - t.milliseconds ? day : day + 1
        }
        let boundaries = instants.map(boundary)
        let product: SQL = "\(scope.product("productId"))\(scope.plan("billingPlan"))"

        // The segments covering the start of each boundary day: running sums of starts minus ends.
        var perDay: [Int64: [SubscriptionState: Int]] = [:]
        for row in try SQLRequest<StateCountRow>(
            literal: """
                SELECT day, state, SUM(starts - ends) AS count FROM segmentDay
                WHERE \(scope.rows()) AND day < \(boundary(last))\(product)
                GROUP BY day, state
                """
        ).fetchAll(db) {
            guard let state = SubscriptionState(rawValue: row.state), let day = row.day else { continue }
            perDay[day, default: [:]][state, default: 0] += row.count
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

        func add(_ column: String, from: Int64, to: Int64, sign: Int, into counts: inout [SubscriptionState: Int]) throws {
            guard from <= to else { return }
            let request = SQLRequest<StateCountRow>(
                literal: """
                    SELECT state, COUNT(*) AS count FROM segment
                    WHERE \(scope.rows()) AND \(sql: column) >= \(from) AND \(sql: column) <= \(to)\(product) GROUP BY state
                    """, cached: true)
            for row in try request.fetchAll(db) {
                guard let state = SubscriptionState(rawValue: row.state) else { continue }
                counts[state, default: 0] += sign * row.count
            }
        }
        return try zip(instants, boundaries).map { instant, boundary in
            var counts = atBoundary[boundary] ?? [:]
            let t = instant.milliseconds
            let b = boundary * dayLength
            if b <= t {
                // Started or ended in [b, t]: a segment ending at t no longer covers it.
                try add("start", from: b, to: t, sign: 1, into: &counts)
                try add(#""end""#, from: b, to: t, sign: -1, into: &counts)
            } else {
                // The counts at b, less what started after t, plus what ended after t, before b.
                try add("start", from: t + 1, to: b - 1, sign: -1, into: &counts)
                try add(#""end""#, from: t + 1, to: b - 1, sign: 1, into: &counts)
            }
            return counts.filter { $0.value != 0 }
        }
    }
}
