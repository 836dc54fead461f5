import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel

/// Pane 4's intents: the cursor, the month of the events, whose subscriptions count, and the
/// list behind a row.
func statesEventsUpdate(_ state: inout AppState, _ intent: StatesEventsIntent) -> [Effect] {
    switch intent {
    case .move(let delta):
        state.statesEvents.row = clamp(state.statesEvents.row + delta, 0, StatesEventsPane.rowCount - 1)
        return []
    case .previousMonth:
        return moveMonth(&state, -1)
    case .nextMonth:
        return moveMonth(&state, 1)
    case .open:
        return openRow(&state)
    case .cycleOwnership:
        return cycleOwnership(&state)
    }
}

/// `enter`: pane 1 lists the subscriptions behind the row, of the ownership the pane counts.
private func openRow(_ state: inout AppState) -> [Effect] {
    guard let asOf = state.asOf,
        let population = StatesEventsPane.population(
            row: state.statesEvents.row, asOf: asOf, month: state.statesEvents.shownMonth(asOf: asOf))
    else { return [] }
    return showDrillDown(&state, population)
}

/// `h`/`l`: the events of the previous or next month (never past as-of's month).
private func moveMonth(_ state: inout AppState, _ delta: Int) -> [Effect] {
    guard let asOf = state.asOf else { return [] }
    let month = min(state.statesEvents.shownMonth(asOf: asOf).adding(months: delta), lastMonth(asOf: asOf))
    guard month != state.statesEvents.shownMonth(asOf: asOf) else { return [] }
    state.statesEvents.month = month == lastMonth(asOf: asOf) ? nil : month
    state.statesEvents.loading = true
    return [.loadStatesEvents(asOf: asOf, month: month, scope: state.statesEventsScope)]
}

/// `o`: purchased → family-shared → all, and the figures for it.
private func cycleOwnership(_ state: inout AppState) -> [Effect] {
    state.statesEvents.ownership = state.statesEvents.ownership.next
    guard let asOf = state.asOf else { return [] }
    state.statesEvents.loading = true
    return [.loadStatesEvents(asOf: asOf, month: state.statesEvents.shownMonth(asOf: asOf), scope: state.statesEventsScope)]
}

/// The figures arrived.
func statesEventsLoaded(_ state: inout AppState, _ figures: StatesEventsFigures) {
    state.statesEvents.figures = figures
    state.statesEvents.loading = false
}
