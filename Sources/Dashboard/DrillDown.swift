import SubscriberAnalytics
import SubscriptionModel
import SubscriptionTimeline

extension StatesEventsPane {
    /// The state rows of pane 4, in order: each state, then `active` and `total`.
    public static let stateRows: [(name: String, states: [SubscriptionState])] =
        SubscriptionState.allCases.map { ($0.rawValue, [$0]) }
        + [("active", SubscriptionState.allCases.filter(\.isActive)), ("total", SubscriptionState.allCases)]

    /// State rows, then one row per event type.
    public static var rowCount: Int { stateRows.count + EventType.allCases.count }

    /// The population behind cursor row `row` at as-of (events: those of `month`).
    public static func population(row: Int, asOf: Instant, month: Month) -> SubscriberPopulation? {
        if row < stateRows.count { return .states(stateRows[row].states) }
        let index = row - stateRows.count
        guard EventType.allCases.indices.contains(index) else { return nil }
        return .events(EventType.allCases[index], from: month.start, to: month.end)
    }
}

/// `enter` on a pane 4 row or a pane 6 offer: pane 1 lists the subscribers behind that figure (on an
/// offer, those whose use of it started in the pane's months).
func drillDown(_ state: inout AppState) -> [Effect] {
    guard let asOf = state.asOf else { return [] }
    let population: SubscriberPopulation
    switch state.pane {
    case .statesEvents:
        guard
            let found = StatesEventsPane.population(
                row: state.statesEvents.row, asOf: asOf,
                month: state.statesEvents.shownMonth(asOf: asOf))
        else { return [] }
        population = found
    case .money:
        guard let found = state.money.selectedPopulation else { return [] }
        population = found
    default:
        return []
    }
    return showDrillDown(&state, population)
}

/// Pane 1 lists `population`, the subscribers behind a figure of another pane; `esc` comes back.
func showDrillDown(_ state: inout AppState, _ population: SubscriberPopulation) -> [Effect] {
    pushLocation(&state)
    state.pane = .subscribers
    // The members of a pane 4 figure are those it counts; a cohort's are all purchased.
    let ownership: OwnershipFilter = population.isCohort ? .purchased : state.statesEvents.ownership
    showList(&state, SubscriberListView(population: population, sort: state.subscribers.view.sort, ownership: ownership))
    return load(&state, .subscribers)
}
