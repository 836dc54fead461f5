import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// Pane 1's intents: the cursor, the list shown (search, sort, ownership), marks and flags, and
/// the export.
func subscribersUpdate(_ state: inout AppState, _ intent: SubscribersIntent) -> [Effect] {
    switch intent {
    case .move(let delta):
        return moveInSubscribers(&state, delta)
    case .moveColumn(let delta):
        state.subscribers.column = clamp(state.subscribers.column + delta, 0, shownSubscriberColumns(state) - 1)
        return []
    case .open:
        guard let id = state.subscribers.selectedId else {
            // Typed ahead of the results (a search just submitted): open when they arrive.
            if state.subscribers.loading { state.subscribers.openWhenLoaded = .selected }
            return []
        }
        return openSubscriber(&state, id)
    case .mark(let operation):
        guard let id = state.subscribers.selectedId else { return [] }
        apply(operation, to: id, in: &state.marks)
        return moveInSubscribers(&state, 1)
    case .flag:
        return confirmListFlags(&state, clear: false)
    case .clearFlag:
        return confirmListFlags(&state, clear: true)
    case .export:
        return exportList(&state)
    case .sort(let ascending):
        var list = state.subscribers.view
        list.sort = SubscriberSort(SubscriberSort.Column.allCases[state.subscribers.column], ascending: ascending)
        showList(&state, list)
        return load(&state, .subscribers)
    case .cycleOwnership:
        state.subscribers.ownership = state.subscribers.ownership.next
        return reloadSubscribers(&state)
    case .search:
        // A new search starts empty; earlier ones (the list's own filter last) are one `↑` away.
        state.subscribers.searchOrigin = currentLocation(state)
        var history = state.searchHistory
        if let filter = state.subscribers.filter, history.last != filter { history.append(filter) }
        state.commandLine = CommandEntry(kind: .search, prompt: Prompt(prefix: "/", history: history))
        return []
    }
}

/// `f` / `F`: pane 1's marks (or its cursor row), through the same dialog and write as pane 5's.
private func confirmListFlags(_ state: inout AppState, clear: Bool) -> [Effect] {
    guard flagsAreWritable(&state) else { return [] }
    let ids = state.marks.isEmpty ? state.subscribers.selectedId.map { [$0] } ?? [] : state.marks.sorted()
    guard !ids.isEmpty else {
        state.notice = "nothing to \(clear ? "unflag" : "flag"): the list is empty"
        return []
    }
    let loaded = Set(state.subscribers.rows.map(\.id))
    state.confirmation = Confirmation(
        offer: state.offers.lastOffer, ids: ids, clear: clear,
        hidden: ids.filter { !loaded.contains($0) }.count)
    state.confirmation?.catalogue = state.catalogueOffers
    return []
}

/// `ctrl-s`: every subscriber of the list (search or drill-down), not only the pages loaded.
private func exportList(_ state: inout AppState) -> [Effect] {
    guard let asOf = state.asOf else { return [] }
    if state.subscribers.count == 0 {
        state.notice = "nothing to export: the list is empty (no file written)"
        return []
    }
    var stem = "subscribers-\(asOf.isoDate)"
    if let population = state.subscribers.population {
        stem +=
            "-"
            + String(population.description.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "-" })
            .split(separator: "-").joined(separator: "-")
    }
    state.notice = "exporting…"
    state.exporting = true
    return [
        .exportSubscribers(
            stem: stem, asOf: asOf, scope: state.subscribersScope, filter: state.subscribers.filter,
            population: state.subscribers.view.queriedPopulation)
    ]
}

/// The cursor on pane 1: within the loaded window, the next page fetched near its end; further
/// (`G`, `g g` after it) a new window around the row, so `G` is the real last row of any list.
private func moveInSubscribers(_ state: inout AppState, _ delta: Int) -> [Effect] {
    let pane = state.subscribers
    guard let asOf = state.asOf else { return [] }
    let loadedEnd = pane.first + pane.rows.count
    let total = pane.count ?? (pane.complete ? loadedEnd : nil)
    let last = (total ?? loadedEnd) - 1
    guard last >= 0 else { return [] }
    let target = clamp(pane.selected + delta, 0, last)
    state.subscribers.selected = target
    let scope = state.subscribersScope
    let query = { (offset: Int) -> Effect in
        .loadSubscribers(
            offset: offset, limit: SubscribersPane.pageSize, asOf: asOf, scope: scope, filter: pane.filter,
            population: pane.view.queriedPopulation, sort: pane.view.sort)
    }
    if target < pane.first || target >= loadedEnd {
        let start = max(0, min(target - SubscribersPane.pageSize / 2, last + 1 - SubscribersPane.pageSize))
        state.subscribers.first = start
        state.subscribers.rows = []
        state.subscribers.complete = false
        state.subscribers.loading = true
        return [query(start)]
    }
    if target >= loadedEnd - 5, !pane.complete, !pane.loading {
        state.subscribers.loading = true
        return [query(loadedEnd)]
    }
    return []
}

func reloadSubscribers(_ state: inout AppState) -> [Effect] {
    showList(&state, state.subscribers.view)
    return load(&state, .subscribers)
}

/// Pane 1 is to list `list` (loaded when shown), the cursor on row `selected`.
func showList(_ state: inout AppState, _ list: SubscriberListView, selected: Int = 0) {
    var pane = state.subscribers
    if list.population != pane.population || list.ownership != pane.ownership { pane.populationSize = nil }
    pane.view = list
    pane.count = nil
    pane.capped = false
    pane.rows = []
    pane.complete = false
    pane.selected = selected
    pane.first = max(0, selected - SubscribersPane.pageSize / 2)
    pane.openWhenLoaded = nil
    state.subscribers = pane
}

/// The queries that fill pane 1: `limit` rows from the window's start, how many the list has and,
/// in a drill-down, the population's size.
func subscribersQueries(_ state: AppState, limit: Int, asOf: Instant) -> [Effect] {
    let view = state.subscribers.view
    var effects: [Effect] = [
        .loadSubscribers(
            offset: state.subscribers.first, limit: limit, asOf: asOf, scope: state.subscribersScope, filter: view.filter,
            population: view.queriedPopulation, sort: view.sort),
        .countSubscribers(asOf: asOf, scope: state.subscribersScope, filter: view.filter, population: view.queriedPopulation),
    ]
    if let population = view.population {
        effects.append(.loadPopulationSize(population, asOf: asOf, scope: state.subscribersScope))
    }
    return effects
}

/// Filters pane 1 by `text` (within a drill-down, its members; everyone when none of them match).
func searchSubscribers(_ state: inout AppState, _ text: String) -> [Effect] {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    var list = state.subscribers.view
    list.filter = trimmed.isEmpty ? nil : trimmed
    list.searchesEveryone = false
    guard list != state.subscribers.view else { return [] }
    showList(&state, list)
    return load(&state, .subscribers)
}

/// The Subscribers list has arrived: carry out an `enter` or `:user` that came before it.
func openTypedAhead(_ state: inout AppState) -> [Effect] {
    guard let intent = state.subscribers.openWhenLoaded, state.pane == .subscribers else { return [] }
    state.subscribers.openWhenLoaded = nil
    switch intent {
    case .selected:
        guard let id = state.subscribers.selectedId else { return [] }
        return openSubscriber(&state, id)
    case .single:
        // The lookup `:user` started answers it (``subscriberLookedUp(_:query:matches:)``).
        state.subscribers.openWhenLoaded = intent
        return []
    }
}

/// `:user QUERY` answered: one subscription opens, several are listed with how many match, none
/// says so; the same lookup and words as `report subscriber QUERY`.
func subscriberLookedUp(_ state: inout AppState, query: String, matches: [String]) -> [Effect] {
    guard state.subscribers.openWhenLoaded == .single(query) else { return [] }
    state.subscribers.openWhenLoaded = nil
    switch matches.count {
    case 0:
        state.status = "no subscription matches \(TextSanitizer.visible(query))"
        return []
    case 1:
        return state.pane == .subscribers ? openSubscriber(&state, matches[0]) : []
    default:
        let count =
            matches.count >= AppDatabase.searchLimit ? "\(CountText.grouped(AppDatabase.searchLimit))+" : "\(matches.count)"
        state.notice = "\(count) subscriptions match \(TextSanitizer.visible(query)): pick one"
        return []
    }
}

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
