import GRDB
import SubscriptionModel
import SubscriptionTimeline

/// Realized LTV's inputs summed per cohort month and currency group (docs/metrics.md "Realized LTV
/// per cohort"): how many members have n counted paid periods (ended or not), and the prices of
/// their j-th paid periods. Kept by the materialiser in `ltvMemberDay`/`ltvMemberMonth` and
/// `ltvPriceDay`/`ltvPriceMonth` as the changes of each member's state at the instants it changes
/// (its first paid start, each counted paid period's start, its end), so the sums at any as-of
/// are the changes of the months and days before as-of's day plus the members changing on that day.
public struct LTVSums: Sendable, Equatable {
    /// A member's currency group: the currency of all its priced periods, `unpriced` when none is
    /// priced, `mixed` when they are in two currencies or more.
    public static let unpriced = LTVMember.unpriced
    public static let mixed = LTVMember.mixed

    public struct MemberCount: Sendable, Hashable {
        public var cohortMonth: Int
        public var currencyGroup: String
        /// Counted paid periods started by as-of.
        public var paidPeriods: Int
        public var ended: Bool
        public var count: Int
    }

    public struct PriceCount: Sendable, Hashable {
        public var cohortMonth: Int
        public var currencyGroup: String
        /// The paid period's place in the member's run, from 1.
        public var period: Int
        public var currency: String
        /// `Month.index` of the period's start (what `--rates` converts by).
        public var priceMonth: Int
        public var price: Int64
        public var count: Int
    }

    /// Sorted, without zero counts.
    public var members: [MemberCount]
    public var prices: [PriceCount]
}

extension AppDatabase {
    static let ltvMemberColumns = ["firstPaidProductId", "cohortMonth", "currencyGroup", "paidPeriods", "ended", "billingPlan"]
    static let ltvPriceColumns = [
        "firstPaidProductId", "cohortMonth", "currencyGroup", "period", "currency", "priceMonth", "price", "billingPlan",
    ]

    /// Realized LTV's sums at `asOf` for the members in `scope` (its environments and product;
    /// cohort members are all purchased). Whole months before as-of's month come from
    /// `ltvMemberMonth`/`ltvPriceMonth`, the days of its month before its day from the day tables;
    /// the members whose state changes on as-of's day are read one by one (their state at as-of
    /// minus their state before the day).
    public func ltvSums(asOf: Instant, scope: RowScope) throws -> LTVSums {
        let day = Self.day(of: asOf)
        let dayStart = day * Instant.millisecondsPerDay
        let month = asOf.month.index
        let monthFirstDay = Self.day(of: Month(index: month).start)
        var members: [LTVMember.MemberKey: [Int: Int]] = [:]
        var prices: [LTVMember.PriceKey: [Int: Int]] = [:]
        // Every ownership: the leading columns of `segment_start` (cohort members are purchased anyway).
        let allOwnerships = RowScope(environments: scope.environments, ownerships: Ownership.allCases).ownership()
        try writer.read { db in
            let memberRows = try SQLRequest<Row>(
                literal:
                    """
                    SELECT cohortMonth, currencyGroup, paidPeriods, ended, SUM(count) AS count FROM (
                        SELECT cohortMonth, currencyGroup, paidPeriods, ended, count FROM ltvMemberMonth
                        WHERE \(scope.environment()) AND month < \(month)\(scope.product("firstPaidProductId"))\(scope.plan("billingPlan"))
                        UNION ALL
                        SELECT cohortMonth, currencyGroup, paidPeriods, ended, count FROM ltvMemberDay
                        WHERE \(scope.environment()) AND day >= \(monthFirstDay) AND day < \(day)\(scope.product("firstPaidProductId"))\(scope.plan("billingPlan")))
                    GROUP BY 1, 2, 3, 4
                    """
            ).fetchCursor(db)
            while let row = try memberRows.next() {
                let key = LTVMember.MemberKey(group: row[1], paidPeriods: row[2], ended: row[3])
                members[key, default: [:]][row[0], default: 0] += row[4] as Int
            }
            let priceRows = try SQLRequest<Row>(
                literal:
                    """
                    SELECT cohortMonth, currencyGroup, period, currency, priceMonth, price, SUM(count) AS count FROM (
                        SELECT cohortMonth, currencyGroup, period, currency, priceMonth, price, count FROM ltvPriceMonth
                        WHERE \(scope.environment()) AND month < \(month)\(scope.product("firstPaidProductId"))\(scope.plan("billingPlan"))
                        UNION ALL
                        SELECT cohortMonth, currencyGroup, period, currency, priceMonth, price, count FROM ltvPriceDay
                        WHERE \(scope.environment()) AND day >= \(monthFirstDay) AND day < \(day)\(scope.product("firstPaidProductId"))\(scope.plan("billingPlan")))
                    GROUP BY 1, 2, 3, 4, 5, 6
                    """
            ).fetchCursor(db)
            while let row = try priceRows.next() {
                let key = LTVMember.PriceKey(
                    group: row[1], period: row[2], currency: row[3], priceMonth: row[4], price: row[5])
                prices[key, default: [:]][row[0], default: 0] += row[6] as Int
            }
            // The members whose state changes on as-of's day: first paid starts and ends from the
            // cohort indexes, counted paid period starts from the segments starting that day.
            var touched: [LTVMember] = []
            try Self.forEachLTVMember(
                db,
                runs: try db.presentIndexes(
                    in: SQL(
                        """
                        SELECT originalTransactionId, runIndex FROM run INDEXED BY run_cohort
                        WHERE \(scope.environment()) AND firstPaidStart IS NOT NULL AND firstPaidStart >= \(dayStart)
                            AND firstPaidStart <= \(asOf.milliseconds)
                        UNION
                        SELECT originalTransactionId, runIndex FROM run INDEXED BY run_cohortEnd
                        WHERE \(scope.environment()) AND endedAt >= \(dayStart) AND endedAt <= \(asOf.milliseconds)
                            AND firstPaidStart IS NOT NULL
                        UNION
                        SELECT originalTransactionId, runIndex FROM segment INDEXED BY segment_start
                        WHERE \(scope.environment()) AND \(allOwnerships) AND start >= \(dayStart) AND start <= \(asOf.milliseconds)
                        """)),
                where: SQL(
                    """
                    \(scope.environment("r")) AND r.firstPaidStart IS NOT NULL\(scope.product("r.firstPaidProductId"))\(scope.plan("r.firstPaidBillingPlan"))
                    """)
            ) { _, _, member in touched.append(member) }
            for member in touched {
                func add(_ t: Int64, _ sign: Int) {
                    guard let state = member.state(at: t) else { return }
                    members[state.member, default: [:]][member.cohortMonth, default: 0] += sign
                    for p in state.prices { prices[p, default: [:]][member.cohortMonth, default: 0] += sign }
                }
                add(dayStart - 1, -1)
                add(asOf.milliseconds, 1)
            }
        }
        var sums = LTVSums(members: [], prices: [])
        for (key, months) in members {
            for (cohortMonth, count) in months where count != 0 {
                sums.members.append(
                    LTVSums.MemberCount(
                        cohortMonth: cohortMonth, currencyGroup: key.group, paidPeriods: key.paidPeriods, ended: key.ended,
                        count: count))
            }
        }
        for (key, months) in prices {
            for (cohortMonth, count) in months where count != 0 {
                sums.prices.append(
                    LTVSums.PriceCount(
                        cohortMonth: cohortMonth, currencyGroup: key.group, period: key.period, currency: key.currency,
                        priceMonth: key.priceMonth, price: key.price, count: count))
            }
        }
        sums.members.sort {
            ($0.cohortMonth, $0.currencyGroup, $0.paidPeriods, $0.ended ? 1 : 0)
                < ($1.cohortMonth, $1.currencyGroup, $1.paidPeriods, $1.ended ? 1 : 0)
        }
        sums.prices.sort {
            ($0.cohortMonth, $0.currencyGroup, $0.period, $0.currency, $0.priceMonth, $0.price)
                < ($1.cohortMonth, $1.currencyGroup, $1.period, $1.currency, $1.priceMonth, $1.price)
        }
        return sums
    }

    /// The cohort members (runs with a paid start) selected by `condition` on `run r`, with their
    /// counted paid periods and prices, handed to `body` one by one with their environment and
    /// first paid product. `runs`, a `SELECT originalTransactionId, runIndex …`, lists the only
    /// runs to look at: they are then looked up one by one rather than every run scanned for them.
    static func forEachLTVMember(
        _ db: Database, runs: SQL? = nil, where condition: SQL,
        _ body: (_ environment: String, _ firstPaidProductId: String, LTVMember) throws -> Void
    ) throws {
        let source: SQL =
            runs.map { "(\($0)) t JOIN run r ON r.originalTransactionId = t.originalTransactionId AND r.runIndex = t.runIndex" }
            ?? "run r"
        let rows = try SQLRequest<Row>(
            literal:
                """
                SELECT r.originalTransactionId, r.runIndex, r.firstPaidStart, r.endedAt, r.cohortMonth, p.start, p.transactionId,
                    m.price, m.currency, r.environment, r.firstPaidProductId, r.firstPaidBillingPlan
                FROM \(source)
                LEFT JOIN period p ON p.originalTransactionId = r.originalTransactionId AND p.runIndex = r.runIndex
                    AND p.countsForRetention
                LEFT JOIN periodMoney m ON m.transactionId = p.transactionId
                WHERE \(condition)
                ORDER BY r.originalTransactionId, r.runIndex
                """
        ).fetchCursor(db)
        var member: (String, String, LTVMember)?
        var last: (String, Int)?
        while let row = try rows.next() {
            let id: (String, Int) = (row[0], row[1])
            if last == nil || last! != id {
                if let (environment, product, m) = member { try body(environment, product, m) }
                member = (
                    row[9], row[10],
                    LTVMember(
                        firstPaidStart: row[2], endedAt: row[3], cohortMonth: row[4], firstPaidProductId: row[10],
                        billingPlan: BillingPlan(rawValue: row[11] as String? ?? "") ?? .upfront, periods: [])
                )
                last = id
            }
            guard let start: Int64 = row[5] else { continue }
            let amount: Int64? = row[7]
            let currency: String? = row[8]
            member!.2.periods.append(
                LTVMember.Period(
                    start: start, transactionId: row[6], price: amount.flatMap { a in currency.map { (a, $0) } }))
        }
        if let (environment, product, m) = member { try body(environment, product, m) }
    }
}
