import GRDB
import SubscriptionModel

/// How many cohort members of one cohort month had passed one step by an instant
/// (docs/metrics.md, "Retention cohorts"): `step` 0 is the first paid start (started), `step` k ≥ 1
/// the start of paid period k+1 (retained at k), `step` −n the end of a run with n paid periods
/// (ended at n).
public struct CohortStepCount: Sendable, Equatable {
    public var cohortMonth: Int
    public var step: Int
    public var count: Int

    public init(cohortMonth: Int, step: Int, count: Int) {
        self.cohortMonth = cohortMonth
        self.step = step
        self.count = count
    }
}

extension AppDatabase {
    /// The steps cohort members passed at or before `asOf`, summed per cohort month and step.
    ///
    /// Whole months before as-of's month come from `cohortStepMonth`, whole days of its month from
    /// `cohortStepDay` (a few thousand rows whatever the store's size). As-of's own day is read
    /// from whichever side of as-of is shorter, from the indexes by instant (first paid starts from
    /// `run_cohort`, ends from `run_cohortEnd`, later paid starts from the segments starting then:
    /// every paid period starts a segment): in its first half, what happened from the day's start
    /// to as-of is added to the days before it; in its second half, the whole day is counted and
    /// what happens after as-of that day taken away. At the data horizon, the usual as-of and late
    /// in its day, that is the runs ending later that day; counting the day up to as-of instead
    /// took every renewal of the day, each with two lookups of its run's periods.
    ///
    /// - Parameters:
    ///   - environments: the stored environment values counted.
    ///   - firstPaidProductIds: only members whose first paid product is one of these; nil: every product.
    public func cohortSteps(
        asOf: Instant, environments: [StoreEnvironment],
        firstPaidProductIds: [String]?
    ) throws -> [CohortStepCount] {
        if let ids = firstPaidProductIds, ids.isEmpty { return [] }
        let day = Self.day(of: asOf)
        let month = asOf.month.index
        let monthFirstDay = Self.day(of: Month(index: month).start)
        let environment = "environment " + RowScope.inList(environments)
        var products = ""
        var arguments: StatementArguments = [
            "month": month, "monthFirstDay": monthFirstDay,
        ]
        // As-of's day: the instants [from, to] of it are read one by one and counted with `sign`;
        // the days of as-of's month before `dayLimit` come from `cohortStepDay`.
        let dayStart = day * Instant.millisecondsPerDay
        let dayEnd = dayStart + Instant.millisecondsPerDay
        let (dayLimit, from, to, sign) =
            asOf.milliseconds - dayStart < dayEnd - asOf.milliseconds
            ? (day, dayStart, asOf.milliseconds, 1) : (day + 1, asOf.milliseconds + 1, dayEnd - 1, -1)
        arguments += ["dayLimit": dayLimit, "from": from, "to": to, "sign": sign]
        if let ids = firstPaidProductIds {
            products = " AND firstPaidProductId IN (" + ids.indices.map { ":p\($0)" }.joined(separator: ", ") + ")"
            for (i, id) in ids.enumerated() { arguments += ["p\(i)": id] }
        }
        var sums: [Int: [Int: Int]] = [:]
        try writer.read { db in
            let counted = try Row.fetchAll(
                db,
                sql: try db.presentIndexes(
                    """
                    SELECT cohortMonth, step, SUM(count) FROM cohortStepMonth
                    WHERE \(environment) AND month < :month\(products) GROUP BY 1, 2
                    UNION ALL
                    SELECT cohortMonth, step, SUM(count) FROM cohortStepDay
                    WHERE \(environment) AND day >= :monthFirstDay AND day < :dayLimit\(products) GROUP BY 1, 2
                    UNION ALL
                    SELECT cohortMonth, 0, :sign * COUNT(*) FROM run INDEXED BY run_cohort
                    WHERE \(environment) AND firstPaidStart >= :from AND firstPaidStart <= :to\(products) GROUP BY 1
                    UNION ALL
                    SELECT cohortMonth, -paidPeriodCount, :sign * COUNT(*) FROM run INDEXED BY run_cohortEnd
                    WHERE \(environment) AND endedAt >= :from AND endedAt <= :to AND firstPaidStart IS NOT NULL
                      AND paidPeriodCount > 0\(products) GROUP BY 1, 2
                    """), arguments: arguments)
            for row in counted {
                let (cohort, step, count): (Int, Int, Int) = (row[0], row[1], row[2])
                sums[cohort, default: [:]][step, default: 0] += count
            }
            // Paid periods starting in [from, to]: their place in the run is the number of its
            // counted periods started before them, plus one for each started with them.
            let ownerships = "ownership " + RowScope.inList(Ownership.allCases)
            let started = try Row.fetchAll(
                db,
                sql: try db.presentIndexes(
                    """
                    SELECT r.cohortMonth,
                           (SELECT COUNT(*) FROM period p WHERE p.originalTransactionId = s.originalTransactionId
                              AND p.runIndex = s.runIndex AND p.countsForRetention AND p.start < s.start),
                           (SELECT COUNT(*) FROM period p WHERE p.originalTransactionId = s.originalTransactionId
                              AND p.runIndex = s.runIndex AND p.countsForRetention AND p.start = s.start)
                    FROM segment s INDEXED BY segment_start
                    JOIN run r ON r.originalTransactionId = s.originalTransactionId AND r.runIndex = s.runIndex
                    WHERE s.\(environment) AND s.\(ownerships) AND s.start >= :from AND s.start <= :to
                      AND r.firstPaidStart IS NOT NULL\(products.replacingOccurrences(of: "firstPaidProductId", with: "r.firstPaidProductId"))
                    """), arguments: arguments)
            for row in started {
                let (cohort, before, here): (Int, Int, Int) = (row[0], row[1], row[2])
                guard here > 0 else { continue }
                for index in (before + 1)...(before + here) where index >= 2 {
                    sums[cohort, default: [:]][index - 1, default: 0] += sign
                }
            }
        }
        return sums.sorted { $0.key < $1.key }.flatMap { cohort, steps in
            steps.sorted { $0.key < $1.key }.compactMap { step, count in
                count == 0 ? nil : CohortStepCount(cohortMonth: cohort, step: step, count: count)
            }
        }
    }
}
