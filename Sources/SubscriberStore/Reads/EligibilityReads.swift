import GRDB
import SubscriptionModel
import SubscriptionTimeline

/// A live (not expired) segment covering as-of: what retention, upgrade, loyalty and service by
/// state are decided on.
public struct LiveSegmentRow: FetchableRecord {
    public var originalTransactionId: String
    public var productId: String
    public var state: SubscriptionState
    public var autoRenew: Bool
    public var paidPeriods: Int
    public var periodDays: Double?

    public init(row: Row) {
        originalTransactionId = row["originalTransactionId"]
        productId = row["productId"]
        // Written by the materialiser from `SubscriptionState`; never expired here.
        state = SubscriptionState(rawValue: row["state"]) ?? .expired
        autoRenew = row["autoRenew"]
        paidPeriods = row["paidPeriods"]
        periodDays = row["periodDays"]
    }
}

/// A subscription whose latest run ended (voluntarily or over a price increase) in the window.
public struct EndedRunRow: FetchableRecord {
    public var originalTransactionId: String
    /// The product of its latest segment started by as-of.
    public var productId: String
    public var endedAt: Instant
    /// An `ExpirationReason` raw value.
    public var expirationReason: String

    public init(row: Row) {
        originalTransactionId = row["originalTransactionId"]
        productId = row["productId"]
        endedAt = Instant(milliseconds: row["endedAt"])
        expirationReason = row["expirationReason"]
    }
}

/// A subscription with at least the asked number of billing failures in the window.
public struct RepeatedFailuresRow: FetchableRecord {
    public var originalTransactionId: String
    /// The product of its latest segment started by as-of.
    public var productId: String
    public var failures: Int

    public init(row: Row) {
        originalTransactionId = row["originalTransactionId"]
        productId = row["productId"]
        failures = row["failures"]
    }
}

/// Which live segments one offer reads: the store-side half of its rule, so the list and its
/// count (``EligibilityReads/countLiveSegments(_:)``) read the same rows.
public struct LiveSegmentFilter: Sendable, Hashable {
    /// The states kept.
    public var states: [SubscriptionState]
    /// Auto-renew on (true) or off (false); nil: either.
    public var autoRenew: Bool? = nil
    /// At least this many paid periods; nil: any.
    public var minimumPaidPeriods: Int? = nil
    /// On a period shorter than this many days (a segment outside a period never is); nil: any.
    public var periodDaysBelow: Double? = nil

    public init(
        states: [SubscriptionState], autoRenew: Bool? = nil, minimumPaidPeriods: Int? = nil,
        periodDaysBelow: Double? = nil
    ) {
        self.states = states
        self.autoRenew = autoRenew
        self.minimumPaidPeriods = minimumPaidPeriods
        self.periodDaysBelow = periodDaysBelow
    }

    /// The filter's conditions, each after ` AND `, on the columns of `alias` (none: unqualified).
    func sql(alias: String = "") -> SQL {
        let a = alias.isEmpty ? "" : alias + "."
        var sql: SQL = " AND \(sql: a)state \(sql: RowScope.inList(states))"
        if let autoRenew { sql += " AND \(sql: a)autoRenew = \(autoRenew ? 1 : 0)" }
        if let minimumPaidPeriods { sql += " AND \(sql: a)paidPeriods >= \(minimumPaidPeriods)" }
        if let periodDaysBelow { sql += " AND \(sql: a)periodDays < \(periodDaysBelow)" }
        return sql
    }
}

/// One of the eligibility reads, row by row: a cursor over a statement of the read transaction
/// it was made in, used inside it only.
public struct EligibilityCursor<Record: FetchableRecord> {
    let base: RecordCursor<Record>

    /// The next row, nil after the last.
    public func next() throws -> Record? { try base.next() }
}

/// The reads offer eligibility is decided on, inside one read transaction of the store. Each is
/// an index range that never visits the subscriptions that ended long ago (most of a mature store),
/// except win-back's list, read in id order (below).
///
/// The lists come in `originalTransactionId` order (SQLite's, byte by byte of the UTF-8), so
/// `report eligibility` writes each offer's list as it is read; the counts are aggregate queries
/// over the same rows, for the figures printed before the list.
public struct EligibilityReads {
    let db: Database
    let asOf: Int64
    let scope: RowScope

    /// The live (not expired) segments covering as-of that `filter` keeps, by id: read from the
    /// index of the live segments, which leaves out every subscription's last, expired segment;
    /// only the offer's rows are sorted (a few percent of the subscriptions, not all of them).
    public func liveSegments(_ filter: LiveSegmentFilter) throws -> EligibilityCursor<LiveSegmentRow> {
        EligibilityCursor(
            base: try SQLRequest<LiveSegmentRow>(
                literal: try db.presentIndexes(
                    in: """
                        SELECT originalTransactionId, productId, state, autoRenew, paidPeriods, periodDays
                        FROM segment INDEXED BY segment_live WHERE \(liveCondition(filter))
                        ORDER BY originalTransactionId
                        """)
            ).fetchCursor(db))
    }

    /// How many rows ``liveSegments(_:)`` gives for `filter`.
    public func countLiveSegments(_ filter: LiveSegmentFilter) throws -> Int {
        try count(
            try db.presentIndexes(
                in: "SELECT COUNT(*) FROM segment INDEXED BY segment_live WHERE \(liveCondition(filter))")
        )
    }

    /// The live segments covering as-of in the scope that `filter` keeps, on the columns of `alias`.
    private func liveCondition(_ filter: LiveSegmentFilter, alias: String = "") -> SQL {
        let a = alias.isEmpty ? "" : alias + "."
        return """
            \(scope.rows(alias)) AND \(sql: a)state <> 'expired' AND \(sql: a)"end" > \(asOf) AND \(sql: a)start <= \(asOf)\(
            scope.product(a + "productId"))\(filter.sql(alias: alias))
            """
    }

    /// Subscriptions whose latest run ended voluntarily (or over a price increase) in
    /// (as-of − `windowDays`, as-of], with no later run started by as-of, by id; with `limit`, the
    /// first `limit` of them.
    ///
    /// Without a limit the runs come from the index of the runs ended for those reasons (the
    /// condition is its own, word for word, so SQLite can use it): only the window's runs are read
    /// and sorted by id (a few percent of the subscriptions), never the subscriptions that left long
    /// ago. With a limit (the Offers pane's first screen)
    /// they are read in primary-key (id) order with no index (`NOT INDEXED`, the conditions turned
    /// off with `+`): SQLite stops after `limit` rows found instead of reading the window's every
    /// run and sorting them, so the first screen reads about the same number of rows at any store
    /// size. ``countEndedRuns(windowDays:)`` counts the rows of the first way.
    public func endedRuns(windowDays: Int64, limit: Int? = nil) throws -> EligibilityCursor<EndedRunRow> {
        let runs: SQL
        if let limit {
            runs = """
                SELECT r.originalTransactionId, r.endedAt, r.expirationReason FROM run r NOT INDEXED
                WHERE \(endedRunCondition(windowDays: windowDays, plus: "+"))
                """
            return try endedRuns(runs, cut: " LIMIT \(limit)")
        }
        runs = """
            SELECT r.originalTransactionId, r.endedAt, r.expirationReason FROM run r INDEXED BY run_winBack
            WHERE \(endedRunCondition(windowDays: windowDays, plus: ""))
            """
        return try endedRuns(runs, cut: "")
    }

    /// The rows of `runs` (id, end and reason) with their product, in the scope's product, by id;
    /// `cut` after the product's condition.
    private func endedRuns(_ runs: SQL, cut: SQL) throws -> EligibilityCursor<EndedRunRow> {
        EligibilityCursor(
            base: try SQLRequest<EndedRunRow>(
                literal: try db.presentIndexes(
                    in: """
                        SELECT originalTransactionId, productId, endedAt, expirationReason FROM (
                            SELECT w.originalTransactionId, w.endedAt, w.expirationReason,
                                   (SELECT s.productId FROM segment s WHERE s.originalTransactionId = w.originalTransactionId
                                    AND s.start <= \(asOf) ORDER BY s.start DESC LIMIT 1) AS productId
                            FROM (\(runs)) w)
                        WHERE 1\(scope.product("productId")) ORDER BY originalTransactionId\(cut)
                        """)
            ).fetchCursor(db))
    }

    /// How many rows ``endedRuns(windowDays:limit:)`` gives without a limit, read from the index of
    /// the runs ended for those reasons (the condition is its own, word for word, so SQLite can use it).
    public func countEndedRuns(windowDays: Int64) throws -> Int {
        let product: SQL =
            scope.productId == nil
            ? ""
            : """
             AND (SELECT s.productId FROM segment s WHERE s.originalTransactionId = r.originalTransactionId
                AND s.start <= \(asOf) ORDER BY s.start DESC LIMIT 1) = \(scope.productId)
            """
        return try count(
            try db.presentIndexes(
                in: """
                    SELECT COUNT(*) FROM run r INDEXED BY run_winBack
                    WHERE \(endedRunCondition(windowDays: windowDays, plus: ""))\(product)
                    """)
        )
    }

    private func endedRunCondition(windowDays: Int64, plus: SQL) -> SQL {
        """
        \(plus)\(scope.environment("r")) AND \(plus)\(scope.ownership("r"))
          AND \(plus)r.endedAt <= \(asOf) AND \(plus)r.endedAt > \(asOf - windowDays * Instant.millisecondsPerDay)
          AND r.expirationReason IN ('voluntary', 'priceIncrease')
          AND NOT EXISTS (SELECT 1 FROM run n WHERE n.originalTransactionId = r.originalTransactionId
                          AND n.runIndex > r.runIndex AND n.start <= \(asOf))
        """
    }

    /// Subscriptions with at least `minimum` billing failures in (as-of − `windowDays`, as-of], by
    /// id: the window's failures grouped (only they are sorted).
    public func repeatedFailures(windowDays: Int64, minimum: Int) throws -> EligibilityCursor<RepeatedFailuresRow> {
        EligibilityCursor(
            base: try SQLRequest<RepeatedFailuresRow>(
                literal: """
                    SELECT originalTransactionId, productId, failures FROM (\(
                    repeatedFailures(windowDays: windowDays, minimum: minimum)))
                    WHERE 1\(scope.product("productId")) ORDER BY originalTransactionId
                    """
            ).fetchCursor(db))
    }

    /// How many rows ``repeatedFailures(windowDays:minimum:)`` gives whose subscription is not also
    /// one of the live segments `filter` keeps (those are on the list by state instead). Each is
    /// looked up by its subscription's segments (primary key): the live conditions are one term
    /// (`+(…)`) so SQLite cannot take the live index instead, which read every live segment for
    /// each failing subscription (45 s at 100,000 subscribers).
    public func countRepeatedFailures(windowDays: Int64, minimum: Int, notIn filter: LiveSegmentFilter) throws -> Int {
        try count(
            """
            SELECT COUNT(*) FROM (\(repeatedFailures(windowDays: windowDays, minimum: minimum))) g
            WHERE 1\(scope.product("g.productId")) AND NOT EXISTS (
                SELECT 1 FROM segment s WHERE s.originalTransactionId = g.originalTransactionId
                AND +(\(liveCondition(filter, alias: "s"))))
            """
        )
    }

    private func repeatedFailures(windowDays: Int64, minimum: Int) -> SQL {
        """
        SELECT f.originalTransactionId, COUNT(*) AS failures,
               (SELECT s.productId FROM segment s WHERE s.originalTransactionId = f.originalTransactionId
                AND s.start <= \(asOf) ORDER BY s.start DESC LIMIT 1) AS productId
        FROM billingFailure f
        WHERE \(scope.rows("f")) AND f.at <= \(asOf) AND f.at > \(asOf - windowDays * Instant.millisecondsPerDay)
        GROUP BY f.originalTransactionId HAVING COUNT(*) >= \(minimum)
        """
    }

    /// The one count `sql` reads.
    private func count(_ sql: SQL) throws -> Int { try SQLRequest<Int>(literal: sql).fetchOne(db) ?? 0 }

    /// The email of each of `ids` that has one (``AppDatabase/emails(of:)``), in this read.
    public func emails(of ids: [String]) throws -> [String: String] { try AppDatabase.emails(db, of: ids) }
}

extension AppDatabase {
    /// Runs `body` with the eligibility reads at `asOf`, all in one read transaction.
    public func readEligibility<T>(asOf: Int64, scope: RowScope, _ body: (EligibilityReads) throws -> T) throws -> T {
        try writer.read { db in try body(EligibilityReads(db: db, asOf: asOf, scope: scope)) }
    }

    /// The email of each of `ids` that has one: the customer pane 1 shows for the subscription
    /// (`subscriberSearch`), read by primary key a batch at a time, so it costs the rows asked for
    /// whatever the store's size.
    public func emails(of ids: [String]) throws -> [String: String] {
        try writer.read { db in try Self.emails(db, of: ids) }
    }

    static func emails(_ db: Database, of ids: [String]) throws -> [String: String] {
        var emails: [String: String] = [:]
        let batchSize = 500
        for start in stride(from: 0, to: ids.count, by: batchSize) {
            let batch = Array(ids[start..<min(ids.count, start + batchSize)])
            let marks = Array(repeating: "?", count: batch.count).joined(separator: ",")
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT originalTransactionId, email FROM subscriberSearch
                    WHERE originalTransactionId IN (\(marks)) AND email IS NOT NULL
                    """, arguments: StatementArguments(batch))
            while let row = try rows.next() { emails[row[0]] = row[1] }
        }
        return emails
    }
}
