import GRDB
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// The subscriptions behind one figure of a report: a cohort cell, a state count, an event count.
///
/// Members are selected by the same rules as the figure (DESIGN §3), so a population's
/// ``PopulationSize/figure`` is the number the report shows; the dashboard lists its
/// subscriptions page by page through ``SubscriberAnalytics/subscriberList(offset:limit:asOf:scope:matching:population:)``.
public enum SubscriberPopulation: Hashable, Sendable, CustomStringConvertible {
    /// The runs of the cohort `month` (all of them: the `started` figure).
    case cohortStarted(month: Month)
    /// The runs of the cohort `month` retained after `period` paid periods (`retained[period]`, 1-based as `M1`…).
    case cohortRetained(month: Month, period: Int)
    /// The runs of the cohort `month` whose retention at `period` is known (`eligible[period]`).
    case cohortEligible(month: Month, period: Int)
    /// The runs of the cohort `month` that ended before being retained at `period`: eligible, not retained.
    case cohortChurned(month: Month, period: Int)
    /// Subscriptions in any of these states at as-of (one state, or the `active` / `total` rows).
    case states([SubscriptionState])
    /// Events of this type with their instant in [from, to) and at or before as-of.
    case events(EventType, from: Instant, to: Instant)

    public var description: String {
        switch self {
        case .cohortStarted(let month): "cohort \(month) · started"
        case .cohortRetained(let month, let period): "cohort \(month) · retained at M\(period)"
        case .cohortEligible(let month, let period): "cohort \(month) · eligible at M\(period)"
        case .cohortChurned(let month, let period): "cohort \(month) · churned by M\(period)"
        case .states(let states):
            if Set(states) == Set(SubscriptionState.allCases) {
                "every state"
            } else if Set(states) == Set(SubscriptionState.allCases.filter(\.isActive)) {
                "active"
            } else {
                "state " + states.map(\.rawValue).joined(separator: ", ")
            }
        case .events(let type, let from, let to):
            from.month.start == from && from.month.end == to ? "\(type.rawValue) in \(from.month)"
                : "\(type.rawValue) in [\(from.isoDate), \(to.isoDate))"
        }
    }
}

/// How big a population is.
public struct PopulationSize: Hashable, Sendable {
    /// What the report counts: runs for cohort cells, subscriptions for states, events for events.
    public var figure: Int
    /// Distinct subscriptions (a subscription can have two runs in one cohort, or two renewals in a month).
    public var subscriptions: Int

    public init(figure: Int, subscriptions: Int) {
        self.figure = figure
        self.subscriptions = subscriptions
    }
}

extension SubscriberAnalytics {
    /// The size of `population` at `asOf`.
    public func size(of population: SubscriberPopulation, asOf: Instant, scope: ReportScope = ReportScope()) throws -> PopulationSize {
        let (members, arguments) = Self.memberSQL(population, asOf: asOf, scope: scope)
        return try database.writer.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), COUNT(DISTINCT originalTransactionId) FROM (\(members))",
                                       arguments: arguments)
            return PopulationSize(figure: row?[0] ?? 0, subscriptions: row?[1] ?? 0)
        }
    }

    /// `SELECT originalTransactionId …` of every member (one row per run, subscription or event, as
    /// the figure counts them), with its positional arguments in order.
    static func memberSQL(_ population: SubscriberPopulation, asOf: Instant,
                          scope: ReportScope) -> (sql: String, arguments: StatementArguments) {
        let environment = scope.environment.sql
        let now = asOf.milliseconds
        switch population {
        case .cohortStarted(let month), .cohortRetained(let month, _), .cohortEligible(let month, _),
             .cohortChurned(let month, _):
            // As in `cohorts(…)`: runs with a paid period started on or before as-of, by first paid month and product.
            var sql = """
                SELECT r.originalTransactionId FROM run r
                WHERE r.\(environment) AND r.firstPaidStart IS NOT NULL AND r.firstPaidStart <= ? AND r.cohortMonth = ?
                """
            var arguments: StatementArguments = [now, month.index]
            if let product = scope.productId { sql += " AND r.firstPaidProductId = ?"; arguments += [product] }
            switch population {
            case .cohortRetained(_, let k):
                sql += " AND (\(paidPeriodsSQL(asOf: "?"))) >= ?"
                arguments += [now, now, k + 1]
            case .cohortEligible(_, let k):
                sql += " AND ((\(paidPeriodsSQL(asOf: "?"))) >= ? OR r.endedAt <= ?)"
                arguments += [now, now, k + 1, now]
            case .cohortChurned(_, let k):
                sql += " AND (\(paidPeriodsSQL(asOf: "?"))) < ? AND r.endedAt <= ?"
                arguments += [now, now, k + 1, now]
            default:
                break
            }
            return (sql, arguments)
        case .states(let states):
            // As in `states(…)`: the segment covering as-of, by its product.
            let list = states.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            var sql = """
                SELECT originalTransactionId FROM segment
                WHERE \(scope.sql()) AND "end" > ? AND start <= ? AND state IN (\(list))
                """
            var arguments: StatementArguments = [now, now]
            if let product = scope.productId { sql += " AND productId = ?"; arguments += [product] }
            return (sql, arguments)
        case .events(let type, let from, let to):
            // As in `events(…)`: instants in [from, to) and at or before as-of.
            let upper = min(to.milliseconds, now + 1)
            var sql = """
                SELECT originalTransactionId FROM event
                WHERE \(scope.sql()) AND at >= ? AND at < ? AND type = ?
                """
            var arguments: StatementArguments = [from.milliseconds, upper, type.rawValue]
            if let product = scope.productId { sql += " AND productId = ?"; arguments += [product] }
            return (sql, arguments)
        }
    }
}
