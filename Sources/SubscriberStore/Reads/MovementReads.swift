import GRDB
import GRDBSQLite
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
    private var parsed: [String: [MRRKey]] = [:]

    init(table: String) { self.table = table }

    mutating func keys(_ text: String) throws -> [MRRKey] {
        if let keys = parsed[text] { return keys }
        guard let keys = MRRKey.keys(ofSignature: text) else {
            throw StoreError("the store is damaged (a row of \(table) cannot be read); import into a new store")
        }
        parsed[text] = keys
        return keys
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

/// Subscriptions that changed MRR keys inside one span of ``AppDatabase/mrrChangeGroups(_:environments:)``
/// alike for movement: the keys before their first change there and after their last, and
/// whether none of them was charged before the span.
public struct MRRChangeGroup: Sendable, Equatable {
    public var span: Int
    public var before: [MRRKey]
    public var after: [MRRKey]
    public var isNew: Bool
    public var count: Int
}

extension AppDatabase {
    /// For each span (after, through] of `spans` (in time order, not overlapping), the
    /// subscriptions with an MRR change (``MRRChanges``) inside it, grouped alike; a change outside
    /// every span is skipped, and a subscription in two environments counts once per environment,
    /// as the kept rows count it. Groups come by span, in no order within one.
    ///
    /// The rows are read in the table's own order (its key starts with the instant: no sort) and
    /// grouped per span by subscription in memory, one span's subscriptions at a time; ids and
    /// signatures are read as bytes, not strings. What this costs at a million subscribers:
    /// docs/performance.md, "A cut month without a sort".
    public func mrrChangeGroups(
        _ spans: [(after: Int64, through: Int64)], environments: [StoreEnvironment]
    ) throws -> [MRRChangeGroup] {
        guard let first = spans.first, let last = spans.last else { return [] }
        let sql = """
            SELECT at, originalTransactionId, beforeKeys, afterKeys, firstCharge FROM mrrChange
            WHERE environment = ? AND at > ? AND at <= ? AND count > 0
            ORDER BY at
            """
        return try writer.read { db in
            var signatures = RawSignatures(table: "mrrChange")
            var groups: [MRRChangeGroup] = []
            for environment in environments {
                let statement = try db.makeStatement(sql: sql)
                statement.arguments = [environment.rawValue, first.after, last.through]
                let rows = try Row.fetchCursor(statement)
                let raw = statement.sqliteStatement
                var j = 0
                // The span's subscriptions so far: each one's slot in the arrays below.
                var open: [SubscriptionKey: Int] = [:]
                var (before, after, isNew): ([Int], [Int], [Bool]) = ([], [], [])
                func flush() {
                    var alike: [GroupKey: Int] = [:]
                    for slot in before.indices {
                        alike[GroupKey(before: before[slot], after: after[slot], isNew: isNew[slot]), default: 0] += 1
                    }
                    for (key, count) in alike {
                        groups.append(
                            MRRChangeGroup(
                                span: j, before: signatures.keys(key.before), after: signatures.keys(key.after),
                                isNew: key.isNew, count: count))
                    }
                    open.removeAll(keepingCapacity: true)
                    before.removeAll(keepingCapacity: true)
                    after.removeAll(keepingCapacity: true)
                    isNew.removeAll(keepingCapacity: true)
                }
                while try rows.next() != nil {
                    let at = sqlite3_column_int64(raw, 0)
                    while j < spans.count && spans[j].through < at {
                        flush()
                        j += 1
                    }
                    guard j < spans.count else { break }
                    guard spans[j].after < at else { continue }
                    let changedTo = try signatures.number(raw, column: 3)
                    let id = SubscriptionKey(raw, column: 1)
                    if let slot = open[id] {
                        after[slot] = changedTo
                    } else {
                        open[id] = before.count
                        before.append(try signatures.number(raw, column: 2))
                        after.append(changedTo)
                        isNew.append(sqlite3_column_int64(raw, 4) >= spans[j].after)
                    }
                }
                flush()
            }
            return groups
        }
    }
}

/// A span's subscriptions alike: their signatures' numbers and whether they are new.
private struct GroupKey: Hashable {
    var before: Int
    var after: Int
    var isNew: Bool
}

/// An `originalTransactionId` as a dictionary key read straight from a column: Apple's ids are
/// decimal numbers, kept as one integer (no allocation, a short hash); any other text as itself.
private enum SubscriptionKey: Hashable {
    case number(Int64)
    case text(String)

    init(_ statement: OpaquePointer, column: Int32) {
        let bytes = ColumnTexts.bytes(statement, column: column)
        let count = bytes.count
        // 18 digits fit an Int64; a leading zero would make two texts one number.
        if (1...18).contains(count), bytes[0] != UInt8(ascii: "0") || count == 1 {
            var value: Int64 = 0
            for byte in bytes {
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else {
                    self = .text(String(decoding: bytes, as: UTF8.self))
                    return
                }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            self = .number(value)
        } else {
            self = .text(String(decoding: bytes, as: UTF8.self))
        }
    }
}

/// ``Signatures`` read from a column's bytes (``ColumnTexts``): each distinct text parsed once.
private struct RawSignatures {
    let table: String
    private var texts = ColumnTexts()
    private var parsed: [[MRRKey]] = []

    init(table: String) { self.table = table }

    func keys(_ number: Int) -> [MRRKey] { parsed[number] }

    mutating func number(_ statement: OpaquePointer, column: Int32) throws -> Int {
        let number = texts.number(statement, column: column)
        if number < parsed.count { return number }
        guard let keys = texts.texts[number].flatMap(MRRKey.keys(ofSignature:)) else {
            throw StoreError("the store is damaged (a row of \(table) cannot be read); import into a new store")
        }
        parsed.append(keys)
        return number
    }
}
