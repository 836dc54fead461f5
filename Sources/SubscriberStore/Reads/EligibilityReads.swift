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

/// The reads offer eligibility is decided on, inside one read transaction of the store. Each is
/// an index range that never visits the subscriptions that ended long ago (most of a mature store).
public struct EligibilityReads {
    let db: Database
    let asOf: Int64
    let scope: RowScope

    /// The segment covering as-of, in any state but `expired`: read from the index of the live
    /// segments, which leaves out every subscription's last, expired segment.
    public func forEachLiveSegment(_ body: (LiveSegmentRow) throws -> Void) throws {
        let cursor = try SQLRequest<LiveSegmentRow>(
            literal: try db.presentIndexes(
                in: """
                    SELECT originalTransactionId, productId, state, autoRenew, paidPeriods, periodDays FROM segment INDEXED BY segment_live
                    WHERE \(scope.rows()) AND state <> 'expired' AND "end" > \(asOf) AND start <= \(asOf)\(scope.product("productId"))
                    """)
        ).fetchCursor(db)
        while let row = try cursor.next() { try body(row) }
    }

    /// Subscriptions whose latest run ended voluntarily (or over a price increase) in
    /// (as-of − `windowDays`, as-of], with no later run started by as-of; with `limit`, the first
    /// `limit` of them by id.
    ///
    /// Without a limit the runs come from the index of the runs ended for those reasons (the
    /// condition below is its own, word for word, so SQLite can use it). With a limit they are read
    /// in primary-key (id) order with no index (`NOT INDEXED`, the conditions turned off with `+`):
    /// SQLite stops after `limit` rows found instead of reading the window's every run and sorting
    /// them, so the first screen of the list reads about the same number of rows at any store size.
    public func forEachEndedRun(windowDays: Int64, limit: Int? = nil, _ body: (EndedRunRow) throws -> Void) throws {
        let ordered = limit != nil
        let plus: SQL = ordered ? "+" : ""
        let index: SQL = ordered ? "NOT INDEXED" : "INDEXED BY run_winBack"
        let cut: SQL = limit.map { " ORDER BY originalTransactionId LIMIT \($0)" } ?? ""
        let cursor = try SQLRequest<EndedRunRow>(
            literal: try db.presentIndexes(
                in: """
                    SELECT originalTransactionId, productId, endedAt, expirationReason FROM (
                        SELECT r.originalTransactionId, r.endedAt, r.expirationReason,
                               (SELECT s.productId FROM segment s WHERE s.originalTransactionId = r.originalTransactionId
                                AND s.start <= \(asOf) ORDER BY s.start DESC LIMIT 1) AS productId
                        FROM run r \(index)
                        WHERE \(plus)\(scope.environment("r")) AND \(plus)\(scope.ownership("r"))
                          AND \(plus)r.endedAt <= \(asOf) AND \(plus)r.endedAt > \(asOf - windowDays * Instant.millisecondsPerDay)
                          AND r.expirationReason IN ('voluntary', 'priceIncrease')
                          AND NOT EXISTS (SELECT 1 FROM run n WHERE n.originalTransactionId = r.originalTransactionId
                                          AND n.runIndex > r.runIndex AND n.start <= \(asOf)))
                    WHERE 1\(scope.product("productId"))\(cut)
                    """)
        ).fetchCursor(db)
        while let row = try cursor.next() { try body(row) }
    }

    /// Subscriptions with at least `minimum` billing failures in (as-of − `windowDays`, as-of].
    public func forEachRepeatedFailures(windowDays: Int64, minimum: Int, _ body: (RepeatedFailuresRow) throws -> Void) throws {
        let cursor = try SQLRequest<RepeatedFailuresRow>(
            literal: """
                SELECT originalTransactionId, productId, n AS failures FROM (
                    SELECT f.originalTransactionId, COUNT(*) AS n,
                           (SELECT s.productId FROM segment s WHERE s.originalTransactionId = f.originalTransactionId
                            AND s.start <= \(asOf) ORDER BY s.start DESC LIMIT 1) AS productId
                    FROM billingFailure f
                    WHERE \(scope.rows("f")) AND f.at <= \(asOf) AND f.at > \(asOf - windowDays * Instant.millisecondsPerDay)
                    GROUP BY f.originalTransactionId HAVING COUNT(*) >= \(minimum))
                WHERE 1\(scope.product("productId"))
                """
        ).fetchCursor(db)
        while let row = try cursor.next() { try body(row) }
    }

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
