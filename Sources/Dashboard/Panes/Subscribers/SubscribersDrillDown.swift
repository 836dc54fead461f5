import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel

/// Pane 1 lists `population`, the subscribers behind a figure of another pane; `esc` comes back.
func showDrillDown(_ state: inout AppState, _ population: SubscriberPopulation) -> [Effect] {
    pushLocation(&state)
    state.pane = .subscribers
    // The members of a pane 4 figure are those it counts; a cohort's are all purchased.
    let ownership: OwnershipFilter = population.isCohort ? .purchased : state.statesEvents.ownership
    showList(&state, SubscriberListView(population: population, sort: state.subscribers.view.sort, ownership: ownership))
    return load(&state, .subscribers)
}
