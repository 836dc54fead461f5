import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

/// Pane 3's intents: the cursor, the duration and trend shown, and the lists behind a cell.
func cohortsUpdate(_ state: inout AppState, _ intent: CohortsIntent) -> [Effect] {
    switch intent {
    case .move(let delta):
        let count = state.cohorts.grid?.cohorts.count ?? 0
        state.cohorts.row = clamp(state.cohorts.row + delta, 0, max(0, count - 1))
        return []
    case .moveColumn(let delta):
        guard let grid = state.cohorts.grid else { return [] }
        state.cohorts.column = clamp(state.cohorts.column + delta, 0, grid.periods - 1)
        return []
    case .openRetained:
        return openCohortCell(&state, ended: false)
    case .openEnded:
        return openCohortCell(&state, ended: true)
    case .cycleDuration:
        return cycleDuration(&state)
    case .toggleTrend:
        state.cohorts.trend.toggle()
        return []
    }
}

/// `enter` (retained) or `c` (ended) on a cohort cell: pane 1 lists the cohort's subscribers
/// retained at its paid period, or who ended by it.
private func openCohortCell(_ state: inout AppState, ended: Bool) -> [Effect] {
    guard state.asOf != nil, let grid = state.cohorts.grid, grid.cohorts.indices.contains(state.cohorts.row) else {
        return []
    }
    let month = grid.cohorts[state.cohorts.row].month
    let period = state.cohorts.column + 1
    return showDrillDown(
        &state,
        ended
            ? .cohortEnded(month: month, period: period, duration: grid.duration)
            : .cohortRetained(month: month, period: period, duration: grid.duration))
}

/// `d`: the next billing duration, and the grid for it.
private func cycleDuration(_ state: inout AppState) -> [Effect] {
    let choices = state.cohorts.durationChoices
    let index = choices.firstIndex(of: state.cohorts.duration) ?? 0
    state.cohorts.duration = choices[(index + 1) % choices.count]
    state.cohorts.durationChosen = true
    state.cohorts.durationIsDefault = false
    state.cohorts.grid = nil
    return load(&state, .cohorts)
}

/// The cohort grid arrived. One asked for before `d` changed the duration is stale.
func cohortsLoaded(_ state: inout AppState, _ grid: CohortGrid, durations: [BillingDuration]) {
    if !state.cohorts.durationChosen {
        // The default: the store's most common billing duration.
        state.cohorts.duration = grid.duration
        state.cohorts.durationChosen = true
        state.cohorts.durationIsDefault = grid.duration != nil
    }
    guard grid.duration == state.cohorts.duration else { return }
    state.cohorts.grid = grid
    state.cohorts.durations = durations
    state.cohorts.loading = false
    state.cohorts.row = clamp(state.cohorts.row, 0, max(0, grid.cohorts.count - 1))
    state.cohorts.column = clamp(state.cohorts.column, 0, max(0, grid.periods - 1))
}
