import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel

// What comes back from the effects that load a pane: the state takes it, unless it answers a
// question the user has stopped asking.

/// A page of pane 1's list. A later page for a list that has since been reset is stale.
func subscribersLoaded(_ state: inout AppState, offset: Int, rows: [SubscriberRow]) -> [Effect] {
    let pane = state.subscribers
    guard offset == pane.first || offset == pane.first + pane.rows.count else { return [] }
    state.subscribers.loading = false
    let selectedId = pane.selectedId
    if offset == pane.first { state.subscribers.rows = rows } else { state.subscribers.rows += rows }
    state.subscribers.complete = rows.count < SubscribersPane.pageSize
    if state.subscribers.rows.isEmpty, pane.first > 0 {
        // The list shrank below the window: start again from its top.
        showList(&state, pane.view)
        return load(&state, .subscribers)
    }
    // A reload keeps the cursor on the same subscription when it is still listed.
    if let index = state.subscribers.rows.firstIndex(where: { $0.id == selectedId }) {
        state.subscribers.selected = pane.first + index
    }
    state.subscribers.selected = clamp(
        state.subscribers.selected, pane.first,
        max(pane.first, pane.first + state.subscribers.rows.count - 1))
    return openTypedAhead(&state)
}

/// How many subscribers pane 1's list holds; a drill-down nobody matches becomes a search of everyone.
func subscribersCounted(_ state: inout AppState, filter: String?, population: SubscriberPopulation?, count: Int) -> [Effect] {
    let view = state.subscribers.view
    guard filter == view.filter, population == view.queriedPopulation else { return [] }
    // More than a search's limit: the list holds the first `searchLimit`, the title says "5,000+".
    state.subscribers.count = min(count, AppDatabase.searchLimit)
    state.subscribers.capped = count > AppDatabase.searchLimit
    if count == 0, view.filter != nil, view.population != nil, !view.searchesEveryone {
        // Nobody in the drill-down matches: find them among everyone (the title says so).
        var everyone = view
        everyone.searchesEveryone = true
        let openWhenLoaded = state.subscribers.openWhenLoaded
        showList(&state, everyone)
        state.subscribers.openWhenLoaded = openWhenLoaded
        return load(&state, .subscribers)
    }
    return []
}

/// A query failed: nothing is loading any more, and the status line says why.
func loadFailed(_ state: inout AppState, _ message: String) {
    state.exporting = false
    for pane in Pane.allCases { state[keyPath: pane.loadingFlag] = false }
    state.subscribers.openWhenLoaded = nil
    state.money.membersLoading = nil
    state.status = message
}

/// Pane 5's first screen: shown at once, then the whole lists asked for in the background. One
/// answering an as-of or scope the pane has left, or coming after a board, is stale.
func offersFirstLoaded(_ state: inout AppState, _ board: OfferBoard, scope: ReportScope) -> [Effect] {
    guard state.offers.board == nil, board.asOf == state.asOf, scope == state.scope else { return [] }
    state.offers.stream = OfferStream(asOf: board.asOf, scope: scope, first: board.eligible)
    state.offers.board = board
    state.offers.refreshShown()
    return OfferStream.groups(first: state.offers.list).map { .loadOfferLists($0, asOf: board.asOf, scope: scope) }
}

/// Some of pane 5's whole lists: the rows already shown keep their cursor and marks (both are ids);
/// the last group makes the board the one a single load gives.
func offerListsLoaded(
    _ state: inout AppState, _ kinds: [OfferFlagKind], asOf: Instant, scope: ReportScope,
    _ rows: [EligibleSubscriber]
) {
    guard var stream = state.offers.stream, stream.asOf == asOf, stream.scope == scope,
        var board = state.offers.board
    else { return }
    for kind in kinds { stream.lists[kind] = rows.filter { $0.offer == kind } }
    board.eligible = stream.eligible
    state.offers.board = board
    if stream.isComplete {
        state.offers.stream = nil
        state.offers.loading = false
    } else {
        state.offers.stream = stream
    }
    state.offers.refreshShown()
}
