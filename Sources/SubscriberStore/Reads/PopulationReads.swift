import Foundation
import GRDB
import SubscriptionModel
import SubscriptionTimeline

/// The rows behind one figure, selected by the same rules as the figure (docs/metrics.md): one
/// member per run, subscription, event or offer use, as the figure counts them.
public enum PopulationMembers: Hashable, Sendable {
    /// Which runs of a cohort.
    public enum CohortPart: Hashable, Sendable {
        /// Every member: the `started` figure.
        case started
        /// Reached paid period `period` + 1: `retained[period]`.
        case retained(period: Int)
        /// Ended with 1…`period` paid periods.
        case ended(period: Int)
    }

    /// Runs with a paid period started by as-of whose first paid period started in the month
    /// (`Month.index`), of a product billed for `billingDays` when given.
    case cohort(month: Int, billingDays: Int?, CohortPart)
    /// Subscriptions whose segment at as-of is in one of the states.
    case states([SubscriptionState])
    /// Events of the type with from <= at < upper.
    case events(EventType, from: Int64, upper: Int64)
    /// Uses of one offer started in [from, upper).
    case offerUses(OfferKind, identifier: String?, from: Int64, upper: Int64)
}

/// How big a population is: its figure and its distinct subscriptions.
public struct PopulationCount: FetchableRecord, Sendable, Equatable {
    public var members: Int
    public var subscriptions: Int

    public init(row: Row) {
        members = row["members"] ?? 0
        subscriptions = row["subscriptions"] ?? 0
    }
}

extension AppDatabase {
    /// How many members `population` has at `asOf`, and how many subscriptions they are.
    public func count(of population: PopulationMembers, asOf: Int64, scope: RowScope) throws -> PopulationCount {
        let sql: SQL = """
            SELECT COUNT(*) AS members, COUNT(DISTINCT originalTransactionId) AS subscriptions
            FROM (\(Self.members(population, asOf: asOf, scope: scope)))
            """
        return try writer.read { db in
            try SQLRequest<PopulationCount>(literal: try db.presentIndexes(in: sql)).fetchOne(db)
        } ?? PopulationCount(row: [:])
    }

    /// `SELECT originalTransactionId …` of every member, one row per run, subscription, event or
    /// use. The scope's product narrows each population by its own rule (a cohort by its first
    /// paid product, a state by the segment's product…).
    static func members(_ population: PopulationMembers, asOf now: Int64, scope: RowScope) -> SQL {
        switch population {
        case .cohort(let month, let billingDays, let part):
            // As cohorts count them: runs with a paid period started on or before as-of, by first
            // paid month, product and billing duration.
            var sql: SQL = """
                SELECT r.originalTransactionId FROM run r
                WHERE \(scope.environment("r")) AND r.firstPaidStart IS NOT NULL AND r.firstPaidStart <= \(now) AND r.cohortMonth = \(month)
                """
            sql += scope.product("r.firstPaidProductId")
            if let billingDays { sql += " AND r.firstPaidProductId IN (\(productsBilled(days: billingDays)))" }
            switch part {
            case .started: break
            case .retained(let k): sql += " AND (\(paidPeriods(asOf: now))) >= \(k + 1)"
            case .ended(let k): sql += " AND (\(paidPeriods(asOf: now))) BETWEEN 1 AND \(k) AND r.endedAt <= \(now)"
            }
            return sql
        case .states(let states):
            // As states are counted: the segment covering as-of, by its product.
            let list = SQL(sql: RowScope.inList(states))
            return """
                SELECT originalTransactionId FROM segment
                WHERE \(scope.rows()) AND "end" > \(now) AND start <= \(now) AND state \(list)\(scope.product("productId"))
                """
        case .events(let type, let from, let upper):
            return """
                SELECT originalTransactionId FROM event
                WHERE \(scope.rows()) AND at >= \(from) AND at < \(upper) AND type = \(type.rawValue)\(scope.product("productId"))
                """
        case .offerUses(let kind, let identifier, let from, let upper):
            // One row per use, by its start and its first period's product; the index by start covers it.
            return """
                SELECT originalTransactionId FROM offerUse INDEXED BY offerUse_start
                WHERE \(scope.environment()) AND start >= \(from) AND start < \(upper) AND offerKind = \(kind.rawValue)
                  AND offerIdentifier IS \(identifier)\(scope.product("productId"))
                """
        }
    }
}
