import GRDB
import SubscriptionModel
import SubscriptionTimeline

extension MRRInterval {
    /// Whether the interval adds to MRR at `t` (start <= t < end, as ``AppDatabase/mrrCounts(at:scope:)``).
    public func covers(_ t: Int64) -> Bool { start.milliseconds <= t && t < end.milliseconds }
}

/// A subscription's MRR intervals in a range, and the start of its first charged period.
public struct SubscriptionMRRIntervals {
    public var originalTransactionId: String
    public var intervals: [MRRInterval]
    let readFirstCharge: () throws -> Int64

    /// The earliest start among all its charged periods (any product): decides new against
    /// reactivation. Read when asked (a seek per period of the subscription), so only for the
    /// subscriptions that add nothing at a bucket's start.
    public func firstCharge() throws -> Int64 { try readFirstCharge() }
}

/// Reads a subscription's first charge (the earliest start of its charged periods, any product)
/// once, when asked: what decides new against reactivation in MRR movement.
private final class FirstCharge {
    private let statement: Statement
    private let id: String
    private var value: Int64?

    init(_ statement: Statement, id: String) {
        self.statement = statement
        self.id = id
    }

    /// The statement that reads it (prepared once per read).
    static func statement(_ db: Database) throws -> Statement {
        try db.cachedStatement(sql: "SELECT MIN(start) FROM periodMoney WHERE originalTransactionId = ?")
    }

    func read() throws -> Int64 {
        if let value { return value }
        let read = try Int64.fetchOne(statement, arguments: [id]) ?? .max
        value = read
        return read
    }
}

/// The keys of the signatures (``MRRKey/signature(_:)``) a kept table's rows hold, each text
/// parsed once per read.
private struct Signatures {
    let table: String
    /// Each text's keys, and its number: the texts in the order first read.
    private var parsed: [String: (keys: [MRRKey], number: Int)] = [:]

    init(table: String) { self.table = table }

    mutating func keys(_ text: String) throws -> [MRRKey] { try numbered(text).keys }

    /// The keys of `text` and a number that is the same for the same text throughout the read.
    mutating func numbered(_ text: String) throws -> (keys: [MRRKey], number: Int) {
        if let known = parsed[text] { return known }
        guard let keys = MRRKey.keys(ofSignature: text) else {
            throw StoreError("the store is damaged (a row of \(table) cannot be read); import into a new store")
        }
        parsed[text] = (keys, parsed.count)
        return (keys, parsed.count - 1)
    }
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
        // The periods overlapping [first, last] are read by the index on their end (those ending
        // after `first`) or on their start (those starting by `last`), whichever holds fewer
        // instants beyond the range: left to itself SQLite took the start for a recent month and
        // read every period of the store (2.6 s of 3.1 at 100,000 subscribers, docs/performance.md
        // "MRR movement kept by month").
        let byEnd = try writer.read { db in
            var (maxEnd, minStart): (Int64, Int64) = (.min, .max)
            for environment in scope.environments {
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT (SELECT MAX("end") FROM periodMoney WHERE environment = :e),
                            (SELECT MIN(start) FROM periodMoney WHERE environment = :e)
                        """, arguments: ["e": environment.rawValue])
                if let end: Int64 = row?[0] { maxEnd = max(maxEnd, end) }
                if let start: Int64 = row?[1] { minStart = min(minStart, start) }
            }
            return maxEnd == .min || maxEnd - first.milliseconds <= last.milliseconds - minStart
        }
        let periodRange =
            byEnd
            ? #"m."end" > :first AND +m.start <= :last"# : #"+m."end" > :first AND m.start <= :last"#
        let product =
            (scope.productId == nil ? "" : "AND m.productId = :product") + (scope.plan == nil ? "" : " AND m.billingPlan = :plan")
        let sql = """
            SELECT x.*
            FROM (
                SELECT m.originalTransactionId AS id, m.start AS s, m."end" AS e, NULL AS g,
                    m.offerKind, m.productId, m.currency, m.price, m.monthlyTwelfths, m.billingPlan
                FROM periodMoney m
                WHERE m.environment \(environmentSQL) AND \(periodRange) AND m.start < m."end" \(product)
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
            let firstCharge = try FirstCharge.statement(db)
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
                        originalTransactionId: id, intervals: [interval],
                        readFirstCharge: FirstCharge(firstCharge, id: id).read)
                }
            }
            if let done = current { try body(done) }
        }
    }
}

/// Subscriptions of one complete month alike for MRR movement (``MovementMonths``): the keys of
/// their intervals covering the month's start and end, and whether none was charged before it.
public struct KeptMovement: Sendable, Equatable {
    public var month: Month
    public var start: [MRRKey]
    public var end: [MRRKey]
    public var isNew: Bool
    public var count: Int
}

extension AppDatabase {
    /// The kept movement rows of the months `months` in the scope's environments, summed over
    /// them, in month order (docs/metrics.md "MRR movement"). The product and plan of a scope are
    /// for the reader to apply to the keys.
    public func keptMovement(months: ClosedRange<Month>, environments: [StoreEnvironment]) throws -> [KeptMovement] {
        let sql = """
            SELECT month, startKeys, endKeys, isNew, SUM(count) FROM mrrMovementMonth
            WHERE environment \(RowScope.inList(environments)) AND month BETWEEN ? AND ?
            GROUP BY month, startKeys, endKeys, isNew ORDER BY month
            """
        return try writer.read { db in
            let rows = try Row.fetchCursor(
                db, sql: sql, arguments: [months.lowerBound.index, months.upperBound.index])
            var signatures = Signatures(table: "mrrMovementMonth")
            var result: [KeptMovement] = []
            while let row = try rows.next() {
                let count: Int = row[4]
                guard count != 0 else { continue }
                result.append(
                    KeptMovement(
                        month: Month(index: row[0]), start: try signatures.keys(row[1]), end: try signatures.keys(row[2]),
                        isNew: row[3],
                        count: count))
            }
            return result
        }
    }
}

/// One change of a subscription's MRR keys (``MRRChanges``): at `at`, the keys covering the
/// instant just before (`before`) became `after`.
public struct MRRChange: Sendable, Equatable {
    public var at: Int64
    public var before: [MRRKey]
    public var after: [MRRKey]
}

/// A subscription's MRR changes in a range, in order, and the start of its first charged period.
public struct SubscriptionMRRChanges: Sendable, Equatable {
    public var originalTransactionId: String
    public var changes: [MRRChange]
    /// The earliest start among all its charged periods (any product), kept with each change:
    /// as ``SubscriptionMRRIntervals/firstCharge()``.
    public var firstCharge: Int64
}

extension AppDatabase {
    /// Every subscription with an MRR change (``MRRChanges``) in (first, last] in the
    /// environments, its changes in that range in order; one subscription at a time, in
    /// `originalTransactionId` order (memory holds one subscription's changes). A subscription in
    /// two environments comes once per environment, as the kept rows count it.
    public func mrrChanges(
        after first: Instant, through last: Instant, environments: [StoreEnvironment],
        _ body: (SubscriptionMRRChanges) throws -> Void
    ) throws {
        let sql = """
            SELECT originalTransactionId, environment, at, beforeKeys, afterKeys, firstCharge FROM mrrChange
            WHERE environment \(RowScope.inList(environments)) AND at > ? AND at <= ? AND count > 0
            ORDER BY originalTransactionId, environment, at
            """
        try writer.read { db in
            let rows = try Row.fetchCursor(db, sql: sql, arguments: [first.milliseconds, last.milliseconds])
            var signatures = Signatures(table: "mrrChange")
            var current: (environment: String, changes: SubscriptionMRRChanges)?
            while let row = try rows.next() {
                let (id, environment): (String, String) = (row[0], row[1])
                let change = MRRChange(at: row[2], before: try signatures.keys(row[3]), after: try signatures.keys(row[4]))
                if let c = current, c.changes.originalTransactionId == id, c.environment == environment {
                    current!.changes.changes.append(change)
                    continue
                }
                if let done = current { try body(done.changes) }
                current = (
                    environment,
                    SubscriptionMRRChanges(originalTransactionId: id, changes: [change], firstCharge: row[5])
                )
            }
            if let done = current { try body(done.changes) }
        }
    }
}

/// One subscription's MRR changes inside one span (``AppDatabase/mrrChangeSpans(_:environments:_:)``):
/// the keys before its first change there and after its last, each also as a number that is the
/// same for the same keys throughout one read (to group by without hashing keys).
public struct MRRChangeSpan: Sendable, Equatable {
    public var originalTransactionId: String
    public var before: [MRRKey]
    public var after: [MRRKey]
    public var beforeSignature: Int
    public var afterSignature: Int
    /// As ``SubscriptionMRRChanges/firstCharge``.
    public var firstCharge: Int64
}

extension AppDatabase {
    /// For each span (after, through] of `spans` (in time order, not overlapping), every
    /// subscription with an MRR change (``MRRChanges``) inside it, as one ``MRRChangeSpan``; a
    /// change outside every span is skipped. Spans come in order, their subscriptions in no
    /// order; a subscription in two environments comes once per environment, as the kept rows
    /// count it. The rows are read in the table's own order (no sort: docs/performance.md
    /// "Series and movement at a million subscribers"); memory holds one span's subscriptions.
    public func mrrChangeSpans(
        _ spans: [(after: Int64, through: Int64)], environments: [StoreEnvironment],
        _ body: (_ span: Int, MRRChangeSpan) throws -> Void
    ) throws {
        guard let first = spans.first, let last = spans.last else { return }
        let sql = """
            SELECT at, originalTransactionId, beforeKeys, afterKeys, firstCharge FROM mrrChange
            WHERE environment = ? AND at > ? AND at <= ? AND count > 0
            ORDER BY at
            """
        try writer.read { db in
            var signatures = Signatures(table: "mrrChange")
            for environment in environments {
                let rows = try Row.fetchCursor(db, sql: sql, arguments: [environment.rawValue, first.after, last.through])
                var j = 0
                var open: [String: MRRChangeSpan] = [:]
                open.reserveCapacity(1 << 12)
                func flush() throws {
                    for span in open.values { try body(j, span) }
                    open.removeAll(keepingCapacity: true)
                }
                while let row = try rows.next() {
                    let at: Int64 = row[0]
                    while j < spans.count && spans[j].through < at {
                        try flush()
                        j += 1
                    }
                    guard j < spans.count else { break }
                    guard spans[j].after < at else { continue }
                    let id: String = row[1]
                    let after = try signatures.numbered(row[3])
                    if let i = open.index(forKey: id) {
                        open.values[i].after = after.keys
                        open.values[i].afterSignature = after.number
                    } else {
                        let before = try signatures.numbered(row[2])
                        open[id] = MRRChangeSpan(
                            originalTransactionId: id, before: before.keys, after: after.keys,
                            beforeSignature: before.number, afterSignature: after.number, firstCharge: row[4])
                    }
                }
                try flush()
            }
        }
    }
}
