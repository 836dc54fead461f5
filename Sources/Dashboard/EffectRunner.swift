import Dispatch
import GRDB
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel

/// Runs effects against the store on a background queue and hands each result back as an action.
public final class EffectRunner: Sendable {
    public let analytics: SubscriberAnalytics
    private let queue = DispatchQueue(label: "subdash.dashboard.effects")

    public init(analytics: SubscriberAnalytics) { self.analytics = analytics }

    /// Runs `effect` off the calling thread; `send` is called on the background queue.
    public func run(_ effect: Effect, send: @escaping @Sendable (Action) -> Void) {
        let analytics = analytics
        queue.async { send(EffectRunner.perform(effect, analytics: analytics)) }
    }

    /// Runs `effect` here and now: what tests and `run` both use.
    public func perform(_ effect: Effect) -> Action { EffectRunner.perform(effect, analytics: analytics) }

    static func perform(_ effect: Effect, analytics: SubscriberAnalytics) -> Action {
        do {
            switch effect {
            case .loadHorizon:
                return .loadedHorizon(try analytics.dataHorizon())
            case .loadSubscribers(let offset, let limit, let asOf, let scope, let filter):
                let rows = try subscriberRows(analytics.database, offset: offset, limit: limit, asOf: asOf, scope: scope,
                                              filter: filter)
                return .loadedSubscribers(offset: offset, rows: rows)
            case .loadSubscriber(let id, let asOf):
                return .loadedSubscriber(try analytics.subscriber(originalTransactionId: id, asOf: asOf))
            case .loadCohorts(let asOf, let scope):
                return .loadedCohorts(try analytics.cohorts(asOf: asOf, periods: 12, from: asOf.month.adding(months: -17),
                                                            to: asOf.month, scope: scope))
            case .loadStatesEvents(let asOf, let scope):
                let month = asOf.month
                return .loadedStatesEvents(try analytics.states(asOf: asOf, scope: scope),
                                           try analytics.events(from: month.start, to: month.end, asOf: asOf, scope: scope))
            }
        } catch {
            return .failed("\(error)")
        }
    }

    /// One page of the Subscribers list: subscriptions begun by `asOf`, joined with their segment then, by id.
    static func subscriberRows(_ database: AppDatabase, offset: Int, limit: Int, asOf: Instant, scope: ReportScope,
                               filter: String?) throws -> [SubscriberRow] {
        let ids: [String]? = try filter.map { try database.subscriptions(matching: $0) }
        if let ids, ids.isEmpty { return [] }
        return try database.writer.read { db in
            let environments = scope.environment.environments.map(\.rawValue)
            var sql = """
                SELECT s.originalTransactionId, s.productId, g.state, g.paidPeriods, g.autoRenew,
                       (SELECT COUNT(*) FROM offerFlag f WHERE f.originalTransactionId = s.originalTransactionId)
                FROM subscription s
                LEFT JOIN segment g ON g.originalTransactionId = s.originalTransactionId AND g.start <= ? AND g."end" > ?
                WHERE s.firstStart <= ? AND s.environment IN (\(environments.map { _ in "?" }.joined(separator: ", ")))
                """
            var arguments: StatementArguments = [asOf.milliseconds, asOf.milliseconds, asOf.milliseconds]
            arguments += StatementArguments(environments)
            if let product = scope.productId {
                sql += " AND s.productId = ?"
                arguments += [product]
            }
            if let ids {
                sql += " AND s.originalTransactionId IN (\(ids.map { _ in "?" }.joined(separator: ", ")))"
                arguments += StatementArguments(ids)
            }
            sql += " ORDER BY s.originalTransactionId LIMIT ? OFFSET ?"
            arguments += [limit, offset]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                SubscriberRow(id: row[0], productId: row[1], state: row[2], paidPeriods: row[3], autoRenew: row[4],
                              flagCount: row[5])
            }
        }
    }
}
