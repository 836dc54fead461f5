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
    /// Subscriptions in any of these states at an instant (at or before as-of): a point of a state
    /// or active over time (pane 7).
    case statesAt([SubscriptionState], at: Instant)
    /// Events of this type with their instant in [from, to) and at or before as-of.
    case events(EventType, from: Instant, to: Instant)
    /// Uses of one offer (kind and identifier, none for introductory offers) started in [from, to)
    /// and at or before as-of: the `started` figure of `report offers`.
    case offerUses(OfferKind, identifier: String?, from: Instant, to: Instant)

    public var description: String {
        switch self {
        case .cohortStarted(let month, let duration): "cohort \(Self.cohort(month, duration)) · started"
        case .cohortRetained(let month, let period, let duration):
            "cohort \(Self.cohort(month, duration)) · retained at P\(period)"
        case .cohortEnded(let month, let period, let duration): "cohort \(Self.cohort(month, duration)) · ended by P\(period)"
        case .states(let states):
            if Set(states) == Set(SubscriptionState.allCases) {
                "every state"
            } else if Set(states) == Set(SubscriptionState.allCases.filter(\.isActive)) {
                "active"
            } else {
                "state " + states.map(\.rawValue).joined(separator: ", ")
            }
        case .statesAt(let states, let at):
            Set(states) == Set(SubscriptionState.allCases.filter { $0.isActive && $0 != .freeTrial })
                ? "paying at \(at.asOfText)" : "\(SubscriberPopulation.states(states).description) at \(at.asOfText)"
        case .events(let type, let from, let to):
            from.month.start == from && from.month.end == to
                ? "\(type.rawValue) in \(from.month)"
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
        case .states, .statesAt, .events, .offerUses: false
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
    public func size(of population: SubscriberPopulation, asOf: Instant, scope: ReportScope = ReportScope()) throws
        -> PopulationSize
    {
        let count = try database.count(of: population.members(asOf: asOf), asOf: asOf.milliseconds, scope: scope.rows)
        return PopulationSize(figure: count.members, subscriptions: count.subscriptions)
    }
}

extension SubscriberPopulation {
    /// The store's selection of the members at `asOf`: the rows the figure counts, by the figure's
    /// own rules (an event or offer-use range ends at as-of).
    func members(asOf: Instant) -> PopulationMembers {
        let upper = { (to: Instant) in min(to.milliseconds, asOf.milliseconds + 1) }
        return switch self {
        case .cohortStarted(let month, let duration): .cohort(month: month.index, billingDays: duration?.days, .started)
        case .cohortRetained(let month, let k, let duration):
            .cohort(month: month.index, billingDays: duration?.days, .retained(period: k))
        case .cohortEnded(let month, let k, let duration):
            .cohort(month: month.index, billingDays: duration?.days, .ended(period: k))
        case .states(let states): .states(states)
        case .statesAt(let states, let at): .statesAt(states, at: min(at, asOf).milliseconds)
        case .events(let type, let from, let to): .events(type, from: from.milliseconds, upper: upper(to))
        case .offerUses(let kind, let identifier, let from, let to):
            .offerUses(kind, identifier: identifier, from: from.milliseconds, upper: upper(to))
        }
    }
}
