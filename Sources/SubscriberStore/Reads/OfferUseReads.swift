import GRDB
import SubscriptionModel

/// The uses of one offer started in a range and what became of them at as-of.
public struct OfferUseCounts: FetchableRecord, Sendable, Equatable {
    /// An `OfferKind` raw value.
    public var offerKind: String
    public var offerIdentifier: String?
    public var started: Int
    /// Followed by a standard period started by as-of.
    public var converted: Int
    /// Followed by another offer's period started by as-of.
    public var switched: Int
    /// Not followed, and the run ended by as-of.
    public var lapsed: Int

    public init(row: Row) {
        offerKind = row["offerKind"]
        offerIdentifier = row["offerIdentifier"]
        started = row["started"]
        converted = row["converted"]
        switched = row["switched"]
        lapsed = row["lapsed"]
    }
}

/// One converted use: the paid periods of its run from the conversion on, by as-of.
public struct ConvertedOfferUse: FetchableRecord, Sendable, Equatable {
    public var offerKind: String
    public var offerIdentifier: String?
    /// Counted as the cohort grid counts them (paid and not cut by an upgrade): kept with the use
    /// when as-of is past the run's last paid start (every use at the data horizon), counted from
    /// the periods only for an as-of in mid-run.
    public var paidPeriods: Int
    /// The run ended by as-of.
    public var ended: Bool

    public init(row: Row) {
        offerKind = row["offerKind"]
        offerIdentifier = row["offerIdentifier"]
        paidPeriods = row["paidPeriods"]
        ended = row["ended"]
    }
}

extension AppDatabase {
    /// The offer uses started in [from, upper), by offer, and the converted ones one by one, read
    /// in one transaction.
    public func offerUses(
        from: Int64, upper: Int64, asOf: Int64,
        scope: RowScope
    ) throws -> (counts: [OfferUseCounts], converted: [ConvertedOfferUse]) {
        let filter: SQL =
            "\(scope.environment("u")) AND u.start >= \(from) AND u.start < \(upper)\(scope.product("u.productId"))\(scope.plan("u.billingPlan"))"
        // Both read the uses by start from the index that covers them, named as the range column.
        let counts = { (db: Database) in
            SQLRequest<OfferUseCounts>(
                literal: try db.presentIndexes(
                    in: """
                        SELECT u.offerKind, u.offerIdentifier, COUNT(*) AS started,
                               SUM(IFNULL(u.nextStart <= \(asOf) AND u.nextIsStandard, 0)) AS converted,
                               SUM(IFNULL(u.nextStart <= \(asOf) AND NOT u.nextIsStandard, 0)) AS switched,
                               SUM(u.nextStart IS NULL AND u.runEndedAt <= \(asOf)) AS lapsed
                        FROM offerUse u INDEXED BY offerUse_start WHERE \(filter) GROUP BY 1, 2
                        """))
        }
        let converted = { (db: Database) in
            SQLRequest<ConvertedOfferUse>(
                literal: try db.presentIndexes(
                    in: """
                        SELECT u.offerKind, u.offerIdentifier,
                               CASE WHEN u.lastPaidStart IS NULL OR u.lastPaidStart <= \(asOf) THEN u.paidFromNext
                                    ELSE (SELECT COUNT(*) FROM period p
                                          WHERE p.originalTransactionId = u.originalTransactionId AND p.runIndex = u.runIndex
                                            AND p.start >= u.nextStart AND p.start <= \(asOf) AND p.countsForRetention) END AS paidPeriods,
                               u.runEndedAt <= \(asOf) AS ended
                        FROM offerUse u INDEXED BY offerUse_start
                        WHERE \(filter) AND u.nextStart <= \(asOf) AND u.nextIsStandard
                        """))
        }
        return try writer.read { db in (try counts(db).fetchAll(db), try converted(db).fetchAll(db)) }
    }
}
