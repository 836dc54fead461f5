import GRDB
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// The subscriptions behind one figure of a report: a cohort cell, a state count, an event count,
/// an offer's uses.
///
/// Members are selected by the same rules as the figure (docs/metrics.md), so a population's
/// ``PopulationSize/figure`` is the number the report shows; the dashboard lists its
/// subscriptions page by page through ``SubscriberAnalytics/subscriberList(offset:limit:asOf:scope:matching:population:)``.
public enum SubscriberPopulation: Hashable, Sendable, CustomStringConvertible {
    /// The runs of the cohort `month` (all of them: the `started` figure), of one billing duration when given.
    case cohortStarted(month: Month, duration: BillingDuration? = nil)
    /// The runs of the cohort `month` retained at paid period `period` (`retained[period]`, 1-based as `P1`…):
    /// they reached paid period `period` + 1.
    case cohortRetained(month: Month, period: Int, duration: BillingDuration? = nil)
    /// The runs of the cohort `month` that ended by paid period `period`: with 1…`period` paid
    /// periods (`ended[1]` + … + `ended[period]`).
    case cohortEnded(month: Month, period: Int, duration: BillingDuration? = nil)
    /// Subscriptions in any of these states at as-of (one state, or the `active` / `total` rows).
    case states([SubscriptionState])
    /// Events of this type with their instant in [from, to) and at or before as-of.
    case events(EventType, from: Instant, to: Instant)
    /// Uses of one offer (kind and identifier, none for introductory offers) started in [from, to)
    /// and at or before as-of: the `started` figure of `report offers`.
    case offerUses(OfferKind, identifier: String?, from: Instant, to: Instant)

    public var description: String {
        switch self {
        case .cohortStarted(let month, let duration): "cohort \(Self.cohort(month, duration)) · started"
        case .cohortRetained(let month, let period, let duration): "cohort \(Self.cohort(month, duration)) · retained at P\(period)"
        case .cohortEnded(let month, let period, let duration): "cohort \(Self.cohort(month, duration)) · ended by P\(period)"
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
        case .offerUses(let kind, let identifier, let from, let to):
            "\(kind.rawValue)\(identifier.map { " \($0)" } ?? "") uses started in [\(from.isoDate), \(to.isoDate))"
        }
    }
}

extension SubscriberPopulation {
    /// A cohort cell's population (started, retained, ended), not a state or event count.
    public var isCohort: Bool {
        switch self {
        case .cohortStarted, .cohortRetained, .cohortEnded: true
        case .states, .events, .offerUses: false
        }
    }

    /// An offer's uses (pane 6), not a cohort, state or event count.
    public var isOfferUse: Bool {
        if case .offerUses = self { return true }
        return false
    }

    private static func cohort(_ month: Month, _ duration: BillingDuration?) -> String {
        duration.map { "\(month) \($0.adjective)" } ?? month.description
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
        case .cohortStarted(let month, let duration), .cohortRetained(let month, _, let duration),
             .cohortEnded(let month, _, let duration):
            // As in `cohorts(…)`: runs with a paid period started on or before as-of, by first paid
            // month, product and billing duration.
            var sql = """
                SELECT r.originalTransactionId FROM run r
                WHERE r.\(environment) AND r.firstPaidStart IS NOT NULL AND r.firstPaidStart <= ? AND r.cohortMonth = ?
                """
            var arguments: StatementArguments = [now, month.index]
            if let product = scope.productId { sql += " AND r.firstPaidProductId = ?"; arguments += [product] }
            if let duration {
                sql += " AND r.firstPaidProductId IN (\(productsBilledSQL(days: "?")))"
                arguments += [duration.days]
            }
            switch population {
            case .cohortRetained(_, let k, _):
                sql += " AND (\(paidPeriodsSQL(asOf: "?"))) >= ?"
                arguments += [now, now, k + 1]
            case .cohortEnded(_, let k, _):
                sql += " AND (\(paidPeriodsSQL(asOf: "?"))) BETWEEN 1 AND ? AND r.endedAt <= ?"
                arguments += [now, now, k, now]
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
        case .offerUses(let kind, let identifier, let from, let to):
            // As in `offerConversion(…)`: one row per use, by its start and its first period's product.
            var sql = """
                SELECT originalTransactionId FROM offerUse INDEXED BY offerUse_start
                WHERE \(environment) AND start >= ? AND start < ? AND offerKind = ? AND offerIdentifier IS ?
                """
            var arguments: StatementArguments = [from.milliseconds, min(to.milliseconds, now + 1), kind.rawValue, identifier]
            if let product = scope.productId { sql += " AND productId = ?"; arguments += [product] }
            return (sql, arguments)
        }
    }
}
