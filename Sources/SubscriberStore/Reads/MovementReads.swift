import GRDB
import SubscriptionModel
import SubscriptionTimeline

extension MRRInterval {
    /// Whether the interval adds to MRR at `t` (start <= t < end, as ``AppDatabase/mrrCounts(at:scope:)``).
    public func covers(_ t: Int64) -> Bool { start.milliseconds <= t && t < end.milliseconds }
}

/// A subscription's MRR intervals in a range, and the start of its first charged period.
public struct SubscriptionMRRIntervals: Sendable, Equatable {
    public var originalTransactionId: String
    /// The earliest start among all its charged periods (any product): decides new against reactivation.
    public var firstCharge: Int64
    public var intervals: [MRRInterval]
}

extension AppDatabase {
    /// Every subscription with an MRR interval covering some instant in [first, last], one at a
    /// time in `originalTransactionId` order (memory holds one subscription's intervals): what
    /// MRR movement compares at bucket ends (docs/metrics.md "MRR movement"). The scope's
    /// environments, product and billing plan (the period's) restrict the intervals, as for MRR.
    public func mrrIntervals(
        from first: Instant, through last: Instant, scope: RowScope,
        _ body: (SubscriptionMRRIntervals) throws -> Void
    ) throws {
        let environmentSQL = RowScope.inList(scope.environments)
        let product =
            (scope.productId == nil ? "" : "AND m.productId = :product") + (scope.plan == nil ? "" : " AND m.billingPlan = :plan")
        let sql = """
            SELECT x.*, (SELECT MIN(p.start) FROM periodMoney p WHERE p.originalTransactionId = x.id) AS firstCharge
            FROM (
                SELECT m.originalTransactionId AS id, m.start AS s, m."end" AS e, NULL AS g,
                    m.offerKind, m.productId, m.currency, m.price, m.monthlyTwelfths, m.billingPlan
                FROM periodMoney m
                WHERE m.environment \(environmentSQL) AND m."end" > :first AND m.start <= :last AND m.start < m."end" \(product)
                UNION ALL
                SELECT f.originalTransactionId, f.at, f.windowEnd, f.graceEnd,
                    m.offerKind, m.productId, m.currency, m.price, m.monthlyTwelfths, m.billingPlan
                FROM billingFailure f JOIN periodMoney m ON m.transactionId = f.transactionId
                WHERE f.environment \(environmentSQL) AND f.graceEnd IS NOT NULL AND f.at <= :last
                    AND MIN(f.windowEnd, f.graceEnd) > :first AND f.at < MIN(f.windowEnd, f.graceEnd) \(product)
            ) x
            ORDER BY x.id, x.s
            """
        let arguments: StatementArguments = [
            "first": first.milliseconds, "last": last.milliseconds, "product": scope.productId, "plan": scope.plan?.rawValue,
        ]
        try writer.read { db in
            let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            var current: SubscriptionMRRIntervals?
            while let row = try rows.next() {
                let id: String = row["id"]
                // The rule's own intervals (docs/architecture.md, "Where counting rules live").
                let (start, end) = (Instant(milliseconds: row["s"]), Instant(milliseconds: row["e"]))
                let key = MRRKey(row, from: 4)
                let graceEnd = (row["g"] as Int64?).map(Instant.init(milliseconds:))
                guard
                    let interval = graceEnd == nil
                        ? MRRInterval.period(start: start, end: end, key: key)
                        : MRRInterval.grace(at: start, windowEnd: end, graceEnd: graceEnd, key: key)
                else { continue }
                if current?.originalTransactionId == id {
                    current!.intervals.append(interval)
                } else {
                    if let done = current { try body(done) }
                    current = SubscriptionMRRIntervals(
                        originalTransactionId: id, firstCharge: row["firstCharge"], intervals: [interval])
                }
            }
            if let done = current { try body(done) }
        }
    }
}
