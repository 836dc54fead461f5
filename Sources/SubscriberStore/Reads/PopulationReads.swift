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
    /// Subscriptions whose segment at the instant `at` is in one of the states.
    case statesAt([SubscriptionState], at: Int64)
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
        try writer.read { db in
            let sql: SQL = """
                SELECT COUNT(*) AS members, COUNT(DISTINCT originalTransactionId) AS subscriptions
                FROM (\(try Self.members(db, population, asOf: asOf, scope: scope)))
                """
            return try SQLRequest<PopulationCount>(literal: try db.presentIndexes(in: sql)).fetchOne(db)
        } ?? PopulationCount(row: [:])
    }

    /// `SELECT originalTransactionId …` of every member, one row per run, subscription, event or
    /// use. The scope's product narrows each population by its own rule (a cohort by its first
    /// paid product, a state by the segment's product…).
    static func members(_ db: Database, _ population: PopulationMembers, asOf now: Int64, scope: RowScope) throws -> SQL {
        switch population {
        case .cohort(let month, let billingDays, let part):
            // As cohorts count them: runs with a paid period started on or before as-of, by first
            // paid month, product and billing duration.
            var condition: SQL = """
                \(scope.environment("r")) AND r.firstPaidStart IS NOT NULL AND r.firstPaidStart <= \(now) AND r.cohortMonth = \(month)
                """
            condition += scope.product("r.firstPaidProductId")
            condition += scope.plan("r.firstPaidBillingPlan")
            if let billingDays { condition += " AND r.firstPaidProductId IN (\(productsBilled(days: billingDays)))" }
            // Retained and ended: the members that passed the cohort steps the grid counted them
            // by (``CohortMember``), one row per run.
            let asOf = Instant(milliseconds: now)
            let passed: (CohortMember) -> Bool
            switch part {
            case .started: return "SELECT r.originalTransactionId FROM run r WHERE \(condition)"
            case .retained(let k): passed = { $0.isRetained(k, asOf: asOf) }
            case .ended(let k): passed = { $0.hasEnded(within: k, asOf: asOf) }
            }
            let (text, arguments) = try condition.build(db)
            var ids: [String] = []
            try forEachCohortMember(db, where: text, arguments: arguments) { id, member in
                if passed(member) { ids.append(id) }
            }
            let json = String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)
            return "SELECT value AS originalTransactionId FROM json_each(\(json))"
        case .states(let states):
            return try members(db, .statesAt(states, at: now), asOf: now, scope: scope)
        case .statesAt(let states, let now):
            // As states are counted: the segment covering the instant (as-of), by its product and
            // billing plan.
            let list = SQL(sql: RowScope.inList(states))
            return """
                SELECT originalTransactionId FROM segment
                WHERE \(scope.rows()) AND "end" > \(now) AND start <= \(now) AND state \(list)\(scope.product("productId"))\(scope.plan("billingPlan"))
                """
        case .events(let type, let from, let upper):
            return """
                SELECT originalTransactionId FROM event
                WHERE \(scope.rows()) AND at >= \(from) AND at < \(upper) AND type = \(type.rawValue)\(scope.product("productId"))\(scope.plan("billingPlan"))
                """
        case .offerUses(let kind, let identifier, let from, let upper):
            // One row per use, by its start and its first period's product and billing plan; the
            // index by start covers it.
            return """
                SELECT originalTransactionId FROM offerUse INDEXED BY offerUse_start
                WHERE \(scope.environment()) AND start >= \(from) AND start < \(upper) AND offerKind = \(kind.rawValue)
                  AND offerIdentifier IS \(identifier)\(scope.product("productId"))\(scope.plan("billingPlan"))
                """
        }
    }
}
