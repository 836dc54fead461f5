import GRDB
import GRDBSQLite
import SubscriptionModel

/// The uses of one offer started in a range and what became of them at as-of.
public struct OfferUseCounts: Sendable, Equatable {
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

    public init(offerKind: String, offerIdentifier: String?, started: Int, converted: Int, switched: Int, lapsed: Int) {
        (self.offerKind, self.offerIdentifier) = (offerKind, offerIdentifier)
        (self.started, self.converted, self.switched, self.lapsed) = (started, converted, switched, lapsed)
    }
}

/// Converted uses of one offer alike: the paid periods of their runs from the conversion on, by
/// as-of, and whether the run ended by then.
public struct ConvertedOfferUse: Sendable, Equatable {
    public var offerKind: String
    public var offerIdentifier: String?
    /// Counted as the cohort grid counts them (paid and not cut by an upgrade): kept with the use
    /// when as-of is past the run's last paid start (every use at the data horizon), counted from
    /// the periods only for an as-of in mid-run.
    public var paidPeriods: Int
    /// The run ended by as-of.
    public var ended: Bool
    /// How many uses.
    public var count: Int

    public init(offerKind: String, offerIdentifier: String?, paidPeriods: Int, ended: Bool, count: Int) {
        (self.offerKind, self.offerIdentifier) = (offerKind, offerIdentifier)
        (self.paidPeriods, self.ended, self.count) = (paidPeriods, ended, count)
    }
}

extension AppDatabase {
    /// The offer uses started in [from, upper), by offer, and the converted ones counted alike,
    /// read in one pass over the index by start and grouped in memory (a few offers: no sort;
    /// docs/performance.md, "Offer conversion in one pass").
    public func offerUses(
        from: Int64, upper: Int64, asOf: Int64,
        scope: RowScope
    ) throws -> (counts: [OfferUseCounts], converted: [ConvertedOfferUse]) {
        let filter: SQL =
            "\(scope.environment("u")) AND u.start >= \(from) AND u.start < \(upper)\(scope.product("u.productId"))\(scope.plan("u.billingPlan"))"
        // outcome: 1 converted (a standard period next, by as-of), 2 switched (another offer's),
        // 3 lapsed (nothing next, the run ended by as-of), 0 pending. The paid periods of a
        // converted use are kept with it when as-of is past the run's last paid start (every use
        // at the data horizon), counted from the periods only for an as-of in mid-run.
        let sql: SQL = """
            SELECT u.offerKind, u.offerIdentifier,
                   CASE WHEN u.nextStart <= \(asOf) THEN CASE WHEN u.nextIsStandard THEN 1 ELSE 2 END
                        WHEN u.nextStart IS NULL AND u.runEndedAt <= \(asOf) THEN 3 ELSE 0 END AS outcome,
                   CASE WHEN NOT (u.nextStart <= \(asOf) AND u.nextIsStandard) THEN 0
                        WHEN u.lastPaidStart IS NULL OR u.lastPaidStart <= \(asOf) THEN u.paidFromNext
                        ELSE (SELECT COUNT(*) FROM period p
                              WHERE p.originalTransactionId = u.originalTransactionId AND p.runIndex = u.runIndex
                                AND p.start >= u.nextStart AND p.start <= \(asOf) AND p.countsForRetention) END AS paidPeriods,
                   u.runEndedAt <= \(asOf) AS ended
            FROM offerUse u INDEXED BY offerUse_start WHERE \(filter)
            """
        struct Offer: Hashable {
            var kind: Int
            var identifier: Int
        }
        struct Converted: Hashable {
            var offer: Offer
            var paidPeriods: Int
            var ended: Bool
        }
        return try writer.read { db in
            let statement = try db.makeStatement(literal: try db.presentIndexes(in: sql))
            let rows = try Row.fetchCursor(statement)
            let raw = statement.sqliteStatement
            var (kinds, identifiers) = (ColumnTexts(), ColumnTexts())
            // started, converted, switched, lapsed
            var counts: [Offer: [Int]] = [:]
            var converted: [Converted: Int] = [:]
            while try rows.next() != nil {
                let offer = Offer(kind: kinds.number(raw, column: 0), identifier: identifiers.number(raw, column: 1))
                let outcome = Int(sqlite3_column_int64(raw, 2))
                counts[offer, default: [0, 0, 0, 0]][0] += 1
                if outcome > 0 { counts[offer]![outcome] += 1 }
                if outcome == 1 {
                    let use = Converted(
                        offer: offer, paidPeriods: Int(sqlite3_column_int64(raw, 3)), ended: sqlite3_column_int64(raw, 4) != 0)
                    converted[use, default: 0] += 1
                }
            }
            return (
                counts.map { offer, n in
                    OfferUseCounts(
                        offerKind: kinds.texts[offer.kind] ?? "", offerIdentifier: identifiers.texts[offer.identifier],
                        started: n[0], converted: n[1], switched: n[2], lapsed: n[3])
                },
                converted.map { use, n in
                    ConvertedOfferUse(
                        offerKind: kinds.texts[use.offer.kind] ?? "", offerIdentifier: identifiers.texts[use.offer.identifier],
                        paidPeriods: use.paidPeriods, ended: use.ended, count: n)
                }
            )
        }
    }
}
