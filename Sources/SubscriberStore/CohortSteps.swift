import GRDB
import SubscriptionModel
import SubscriptionTimeline

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
    /// from whichever side of as-of is shorter: the members passing a step then (found by the
    /// indexes by instant: first paid starts from `run_cohort`, ends from `run_cohortEnd`, later
    /// paid starts from the segments starting then, as every paid period starts a segment) are
    /// read with their counted paid periods and their steps (``CohortMember``, the rule the
    /// materialiser counted them by) taken in that stretch of the day. In its first half, what
    /// happened from the day's start to as-of is added to the days before it; in its second half,
    /// the whole day is counted and what happens after as-of that day taken away. At the data
    /// horizon, the usual as-of and late in its day, that is the runs ending later that day.
    ///
    /// - Parameters:
    ///   - environments: the stored environment values counted.
    ///   - firstPaidProductIds: only members whose first paid product is one of these; nil: every product.
    ///   - plan: only members whose first paid period has this billing plan; nil: both.
    public func cohortSteps(
        asOf: Instant, environments: [StoreEnvironment],
        firstPaidProductIds: [String]?, plan: BillingPlan? = nil
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
        arguments += ["dayLimit": dayLimit, "from": from, "to": to]
        if let ids = firstPaidProductIds {
            products = " AND firstPaidProductId IN (" + ids.indices.map { ":p\($0)" }.joined(separator: ", ") + ")"
            for (i, id) in ids.enumerated() { arguments += ["p\(i)": id] }
        }
        var plans = ""
        if let plan {
            plans = " AND billingPlan = :plan"
            arguments += ["plan": plan.rawValue]
        }
        var sums: [Int: [Int: Int]] = [:]
        try writer.read { db in
            let counted = try Row.fetchAll(
                db,
                sql: try db.presentIndexes(
                    """
                    SELECT cohortMonth, step, SUM(count) FROM cohortStepMonth
                    WHERE \(environment) AND month < :month\(products)\(plans) GROUP BY 1, 2
                    UNION ALL
                    SELECT cohortMonth, step, SUM(count) FROM cohortStepDay
                    WHERE \(environment) AND day >= :monthFirstDay AND day < :dayLimit\(products)\(plans) GROUP BY 1, 2
                    """), arguments: arguments)
            for row in counted {
                let (cohort, step, count): (Int, Int, Int) = (row[0], row[1], row[2])
                sums[cohort, default: [:]][step, default: 0] += count
            }
            let (lower, upper) = (Instant(milliseconds: from), Instant(milliseconds: to))
            try Self.forEachCohortMember(
                db,
                runs: """
                    SELECT originalTransactionId, runIndex FROM run INDEXED BY run_cohort
                    WHERE \(environment) AND firstPaidStart >= :from AND firstPaidStart <= :to\(products)
                    UNION
                    SELECT originalTransactionId, runIndex FROM run INDEXED BY run_cohortEnd
                    WHERE \(environment) AND endedAt >= :from AND endedAt <= :to AND firstPaidStart IS NOT NULL\(products)
                    UNION
                    SELECT originalTransactionId, runIndex FROM segment INDEXED BY segment_start
                    WHERE \(environment) AND ownership \(RowScope.inList(Ownership.allCases)) AND start >= :from AND start <= :to
                    """,
                where: """
                    r.firstPaidStart IS NOT NULL\(products.replacingOccurrences(of: "firstPaidProductId", with: "r.firstPaidProductId"))\(plans.replacingOccurrences(of: "billingPlan", with: "r.firstPaidBillingPlan"))
                    """, arguments: arguments
            ) { _, member in
                for step in member.steps where lower <= step.at && step.at <= upper {
                    sums[member.cohortMonth.index, default: [:]][step.step, default: 0] += sign
                }
            }
        }
        return sums.sorted { $0.key < $1.key }.flatMap { cohort, steps in
            steps.sorted { $0.key < $1.key }.compactMap { step, count in
                count == 0 ? nil : CohortStepCount(cohortMonth: cohort, step: step, count: count)
            }
        }
    }

    /// The cohort members (runs with a paid start) selected by `condition` on `run r`, with their
    /// counted paid periods, handed to `body` one by one with their subscription's id. `runs`, a
    /// `SELECT originalTransactionId, runIndex …`, lists the only runs to look at: they are then
    /// looked up one by one rather than every run scanned for them.
    static func forEachCohortMember(
        _ db: Database, runs: String? = nil, where condition: String, arguments: StatementArguments,
        _ body: (_ originalTransactionId: String, CohortMember) throws -> Void
    ) throws {
        let rows = try Row.fetchCursor(
            db,
            sql: try db.presentIndexes(
                """
                SELECT r.originalTransactionId, r.runIndex, r.firstPaidStart, r.firstPaidProductId, r.endedAt, p.start,
                    r.firstPaidBillingPlan
                FROM \(runs.map { "(\($0)) t JOIN run r ON r.originalTransactionId = t.originalTransactionId AND r.runIndex = t.runIndex" } ?? "run r")
                LEFT JOIN period p ON p.originalTransactionId = r.originalTransactionId AND p.runIndex = r.runIndex
                    AND p.countsForRetention
                WHERE \(condition)
                ORDER BY r.originalTransactionId, r.runIndex
                """), arguments: arguments)
        var member: CohortMember?
        var starts: [Instant] = []
        var last: (String, Int)?
        while let row = try rows.next() {
            let id: (String, Int) = (row[0], row[1])
            if last == nil || last! != id {
                if var m = member, let (id, _) = last {
                    m.paidPeriodStarts = starts.sorted()
                    try body(id, m)
                }
                member = CohortMember(
                    firstPaidStart: Instant(milliseconds: row[2]), firstPaidProductId: row[3],
                    billingPlan: BillingPlan(rawValue: row[6] as String? ?? "") ?? .upfront, paidPeriodStarts: [],
                    endedAt: Instant(milliseconds: row[4]))
                starts = []
                last = id
            }
            if let start: Int64 = row[5] { starts.append(Instant(milliseconds: start)) }
        }
        if var m = member, let (id, _) = last {
            m.paidPeriodStarts = starts.sorted()
            try body(id, m)
        }
    }
}
