import Dispatch
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel

/// Runs effects against the store on a background queue and hands each result back as an action.
public final class EffectRunner: Sendable {
    public let analytics: SubscriberAnalytics
    /// Where ``Effect/checkStore`` looks; nil when the store cannot be watched.
    public let changes: StoreChangeMonitor?
    private let queue = DispatchQueue(label: "subdash.dashboard.effects")

    public init(analytics: SubscriberAnalytics) {
        self.analytics = analytics
        changes = try? StoreChangeMonitor(database: analytics.database)
    }

    /// Runs `effect` off the calling thread; `send` is called on the background queue.
    public func run(_ effect: Effect, send: @escaping @Sendable (Action) -> Void) {
        let analytics = analytics
        let changes = changes
        queue.async { send(EffectRunner.perform(effect, analytics: analytics, changes: changes)) }
    }

    /// Runs `effect` here and now: what tests and `run` both use.
    public func perform(_ effect: Effect) -> Action { EffectRunner.perform(effect, analytics: analytics, changes: changes) }

    static func perform(_ effect: Effect, analytics: SubscriberAnalytics, changes: StoreChangeMonitor?) -> Action {
        do {
            switch effect {
            case .checkStore:
                return .storeVersion(changes == nil ? 0 : try? changes?.version())
            case .refreshHorizon:
                return .refreshedHorizon(try analytics.dataHorizon())
            case .loadHorizon:
                return .loadedHorizon(try analytics.dataHorizon())
            case .loadSubscribers(let offset, let limit, let asOf, let scope, let filter):
                let rows = try analytics.subscriberList(offset: offset, limit: limit, asOf: asOf, scope: scope,
                                                        matching: filter)
                return .loadedSubscribers(offset: offset, rows: rows)
            case .loadSubscriber(let id, let asOf):
                return .loadedSubscriber(try analytics.subscriber(originalTransactionId: id, asOf: asOf))
            case .loadCohorts(let asOf, let scope):
                return .loadedCohorts(try analytics.cohorts(asOf: asOf, periods: 12, from: asOf.month.adding(months: -17),
                                                            to: asOf.month, scope: scope))
            case .loadStatesEvents(let asOf, let month, let scope):
                return .loadedStatesEvents(try StatesEventsFigures.load(analytics, asOf: asOf, month: month, scope: scope))
            }
        } catch {
            return .failed("\(error)")
        }
    }
}
