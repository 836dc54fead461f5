import Foundation
import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// The one place state changes: pure, so every scenario is a unit test.
public func update(_ state: inout AppState, _ action: Action) -> [Effect] {
    switch action {
    case .start:
        // The store's version is read before the first query, so a change after it is never missed.
        return tick(&state) + (state.asOf == nil ? [.loadHorizon] : load(&state, state.pane)) + [.loadProducts, .checkImport]
    case .key(let event):
        return handleKey(&state, event)
    case .keyTimeout:
        state.pendingKeys = []
        return []
    case .switchPane(let pane):
        guard pane != state.pane else { return [] }
        pushLocation(&state)
        state.pane = pane
        return loadIfNeeded(&state, pane)
    case .nextPane, .previousPane:
        let all = Pane.allCases
        let step = action == .nextPane ? 1 : all.count - 1
        return update(&state, .switchPane(all[(state.pane.rawValue + step) % all.count]))
    case .back:
        // esc precedence: a dialog or overlay, then a filter, then the page (the command line never gets here).
        if state.confirmation != nil { state.confirmation = nil; state.notice = "nothing changed"; return [] }
        if state.overlay != nil { state.overlay = nil; return [] }
        if state.pane == .offers, state.offers.filter != nil {
            state.offers.filter = nil
            state.offers.refreshShown()
            return []
        }
        // Then exactly what was entered last (a pane, a drill-down, a search), as it was.
        guard let previous = state.history.popLast() else {
            // Nothing left to unwind: a list reached some other way still comes back to everyone.
            guard state.pane == .subscribers, state.subscribers.view != SubscriberListView(sort: state.subscribers.view.sort) else {
                return []
            }
            showList(&state, SubscriberListView(sort: state.subscribers.view.sort))
            return load(&state, .subscribers)
        }
        state.pane = previous.pane
        var list = previous.list
        // A sort is not something entered: it stays.
        list.sort = state.subscribers.view.sort
        if list != state.subscribers.view { showList(&state, list, selected: previous.selected) }
        return loadIfNeeded(&state, previous.pane)
    case .quit:
        state.shouldQuit = true
        return []
    case .toggleHelp:
        state.overlay = state.overlay == .help ? nil : .help
        state.helpScroll = 0
        return []
    case .startSearch:
        if state.pane == .offers {
            state.commandLine = CommandEntry(kind: .filter, prompt: Prompt(prefix: "/", text: state.offers.filter ?? ""))
        } else if state.pane == .subscribers {
            state.subscribers.searchOrigin = currentLocation(state)
            state.commandLine = CommandEntry(kind: .search, prompt: Prompt(prefix: "/", text: state.subscribers.filter ?? ""))
        }
        return []
    case .startCommand:
        var prompt = Prompt(prefix: ":", history: state.commandHistory)
        prompt.candidates = commandCompletions(for: "", state)
        state.commandLine = CommandEntry(kind: .command, prompt: prompt)
        return []
    case .move(let delta):
        return move(&state, delta)
    case .moveColumn(let delta):
        if state.pane == .offers {
            state.offers.column = clamp(state.offers.column + delta, 0, state.offers.list.columns.count - 1)
            return []
        }
        if state.pane == .statesEvents { return moveMonth(&state, delta) }
        if state.pane == .subscribers {
            state.subscribers.column = clamp(state.subscribers.column + delta, 0, SubscriberSort.Column.allCases.count - 1)
            return []
        }
        guard state.pane == .cohorts, let grid = state.cohorts.grid else { return [] }
        state.cohorts.column = clamp(state.cohorts.column + delta, 0, grid.periods - 1)
        return []
    case .open:
        switch state.pane {
        case .subscribers:
            guard let id = state.subscribers.selectedId else {
                // Typed ahead of the results (a search just submitted): open when they arrive.
                if state.subscribers.loading { state.subscribers.openWhenLoaded = .selected }
                return []
            }
            return openSubscriber(&state, id)
        case .offers:
            guard let id = state.offers.selectedRow?.id else { return [] }
            return openSubscriber(&state, id)
        case .cohorts, .statesEvents, .money:
            return drillDown(&state)
        case .subscriber:
            return []
        }
    case .mark(let operation):
        if state.pane == .offers { return markRow(&state, operation) }
        guard state.pane == .subscribers, let id = state.subscribers.selectedId else { return [] }
        apply(operation, to: id, in: &state.marks)
        return move(&state, 1)
    case .markAll(let operation):
        return markShown(&state, operation)
    case .markRange:
        return markRange(&state)
    case .markMatching(let mark):
        guard state.pane == .offers else { return [] }
        state.commandLine = CommandEntry(kind: .markPattern(mark: mark), prompt: Prompt(prefix: mark ? "|" : "\\"))
        return []
    case .openEnded:
        return state.pane == .cohorts ? drillDown(&state, ended: true) : []
    case .cycleDuration:
        guard state.pane == .cohorts else { return [] }
        let choices = state.cohorts.durationChoices
        let index = choices.firstIndex(of: state.cohorts.duration) ?? 0
        state.cohorts.duration = choices[(index + 1) % choices.count]
        state.cohorts.grid = nil
        return load(&state, .cohorts)
    case .switchFocus:
        guard state.pane == .subscriber else { return [] }
        state.subscriber.focus = state.subscriber.focus == .periods ? .events : .periods
        return []
    case .jumpToMark(let direction):
        return jumpToMark(&state, direction)
    case .flag, .clearFlag:
        return confirmFlags(&state, clear: action == .clearFlag)
    case .export:
        return exportShown(&state)
    case .cycleList(let delta):
        return cycleList(&state, delta)
    case .cycleOfferOrder:
        return state.pane == .money ? cycleMoneyOrder(&state) : []
    case .cycleCurrency:
        return state.pane == .money ? cycleMoneyCurrency(&state) : []
    case .sort(let ascending):
        if state.pane == .subscribers {
            var list = state.subscribers.view
            list.sort = SubscriberSort(SubscriberSort.Column.allCases[state.subscribers.column], ascending: ascending)
            showList(&state, list)
            return load(&state, .subscribers)
        }
        return sortOffers(&state, ascending: ascending)
    case .cycleOwnership:
        return cycleOwnership(&state)
    case .reload:
        return state.asOf == nil ? [.loadHorizon] : load(&state, state.pane)
    case .fetchFromApple:
        return fetchFromApple(&state)
    case .fetchedFromApple(let id, let summary):
        state.fetchingFromApple.remove(id)
        state.notice = "\(id) from Apple: \(summary)"
        // The pane updates in place (as it does when the store watch sees another commit).
        if state.subscriber.id == id {
            if state.pane == .subscriber { return refresh(&state, .subscriber) }
            state.storeWatch.stale.insert(.subscriber)
        }
        return []
    case .fetchFromAppleFailed(let id, let message):
        state.fetchingFromApple.remove(id)
        state.status = "fetch \(id) from Apple: \(message)"
        return []
    case .tick:
        return tick(&state)
    case .storeVersion(let version):
        return storeVersionChecked(&state, version)
    case .importActivity(let activity):
        state.storeWatch.importActivity = activity
        return []
    case .refreshedHorizon(let horizon):
        return horizonRefreshed(&state, horizon)

    case .loadedHorizon(let horizon):
        state.asOf = horizon ?? Instant(milliseconds: 0)
        state.storeWatch.horizon = state.asOf
        return load(&state, state.pane)
    case .loadedSubscribers(let offset, let rows):
        // A later page for a list that has since been reset is stale.
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
        state.subscribers.selected = clamp(state.subscribers.selected, pane.first,
                                           max(pane.first, pane.first + state.subscribers.rows.count - 1))
        return openTypedAhead(&state)
    case .countedSubscribers(let filter, let population, let count):
        let view = state.subscribers.view
        guard filter == view.filter, population == view.queriedPopulation else { return [] }
        state.subscribers.count = count
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
    case .loadedPopulationSize(let population, let size):
        guard population == state.subscribers.population else { return [] }
        state.subscribers.populationSize = size
        return []
    case .loadedSubscriber(let report):
        guard report.originalTransactionId == state.subscriber.id else { return [] }
        state.subscriber.report = report
        state.subscriber.loading = false
        return []
    case .loadedCohorts(let grid, let durations):
        // A grid asked for before `d` changed the duration is stale.
        guard grid.duration == state.cohorts.duration else { return [] }
        state.cohorts.grid = grid
        state.cohorts.durations = durations
        state.cohorts.loading = false
        state.cohorts.row = clamp(state.cohorts.row, 0, max(0, grid.cohorts.count - 1))
        state.cohorts.column = clamp(state.cohorts.column, 0, max(0, grid.periods - 1))
        return []
    case .loadedStatesEvents(let figures):
        state.statesEvents.figures = figures
        state.statesEvents.loading = false
        return []
    case .loadedOffers(let board):
        state.offers.board = board
        state.offers.loading = false
        state.offers.refreshShown()
        return []
    case .loadedMoney(let figures):
        return moneyLoaded(&state, figures)
    case .loadedMoneySection(let asOf, let scope, let part):
        return moneySectionLoaded(&state, asOf: asOf, scope: scope, part)
    case .loadedProducts(let products):
        state.products = products
        return []
    case .loadedTheme(let theme):
        state.theme = theme
        state.notice = "theme \(theme.name)"
        return []
    case .flagsWritten(let write, let changed):
        return flagsWritten(&state, write, changed: changed)
    case .exported(let path, let rows):
        state.notice = "exported \(rows) row\(rows == 1 ? "" : "s") to \(path)"
        return []
    case .failed(let message):
        state.subscribers.loading = false
        state.subscribers.openWhenLoaded = nil
        state.subscriber.loading = false
        state.cohorts.loading = false
        state.statesEvents.loading = false
        state.offers.loading = false
        state.money.loading = false
        state.status = message
        return []
    }
}

/// `R` on the Subscriber pane: starts a background fetch of the subscriber from Apple, unless one
/// runs already or there are no credentials (then the notice says why).
func fetchFromApple(_ state: inout AppState) -> [Effect] {
    guard state.pane == .subscriber, let id = state.subscriber.id else {
        state.notice = "fetch: open a subscriber first"
        return []
    }
    if let reason = state.appleFetchUnavailable {
        state.notice = "fetch from Apple is unavailable: \(reason)"
        return []
    }
    guard !state.fetchingFromApple.contains(id) else {
        state.notice = "already fetching \(id) from Apple"
        return []
    }
    state.fetchingFromApple.insert(id)
    state.notice = "fetching \(id)'s history and statuses from Apple…"
    return [.fetchFromApple(id: id)]
}

// MARK: - Movement and loading

private func move(_ state: inout AppState, _ delta: Int) -> [Effect] {
    switch state.pane {
    case .subscribers:
        return moveInSubscribers(&state, delta)
    case .subscriber:
        // The cursor moves in the focused list and stays on a row of it, whatever the screen size.
        let pane = state.subscriber
        switch pane.focus {
        case .periods:
            let count = pane.report?.timeline.periods.count ?? 0
            state.subscriber.periodRow = clamp(pane.shownPeriodRow + delta, 0, max(0, count - 1))
        case .events:
            let count = pane.report?.events.count ?? 0
            state.subscriber.eventRow = clamp(pane.shownEventRow + delta, 0, max(0, count - 1))
        }
        return []
    case .cohorts:
        let count = state.cohorts.grid?.cohorts.count ?? 0
        state.cohorts.row = clamp(state.cohorts.row + delta, 0, max(0, count - 1))
        return []
    case .statesEvents:
        state.statesEvents.row = clamp(state.statesEvents.row + delta, 0, StatesEventsPane.rowCount - 1)
        return []
    case .offers:
        state.offers.selected = clamp(state.offers.selected + delta, 0, max(0, state.offers.shown.count - 1))
        return []
    case .money:
        state.money.row = clamp(state.money.row + delta, 0, max(0, state.money.offers.count - 1))
        return []
    }
}

func invalidate(_ state: inout AppState) {
    state.subscribers.rows = []
    state.subscribers.complete = false
    state.subscriber.report = nil
    state.cohorts.grid = nil
    state.statesEvents.figures = nil
    state.offers.board = nil
    state.offers.refreshShown()
    state.money.figures = nil
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
    pane.rows = []
    pane.complete = false
    pane.selected = selected
    pane.first = max(0, selected - SubscribersPane.pageSize / 2)
    pane.openWhenLoaded = nil
    state.subscribers = pane
}

/// Where `esc` would come back to now.
func currentLocation(_ state: AppState) -> Location {
    Location(pane: state.pane, list: state.subscribers.view, selected: state.subscribers.selected)
}

func pushLocation(_ state: inout AppState) {
    state.history.append(currentLocation(state))
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
        .loadSubscribers(offset: offset, limit: SubscribersPane.pageSize, asOf: asOf, scope: scope, filter: pane.filter,
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

private func loadIfNeeded(_ state: inout AppState, _ pane: Pane) -> [Effect] {
    if state.storeWatch.stale.contains(pane) { return refresh(&state, pane) }
    let empty: Bool = switch pane {
    case .subscribers: state.subscribers.rows.isEmpty && !state.subscribers.complete
    case .subscriber: state.subscriber.report == nil
    case .cohorts: state.cohorts.grid == nil
    case .statesEvents: state.statesEvents.figures == nil
    case .offers: state.offers.board == nil
    case .money: state.money.figures == nil
    }
    return empty ? load(&state, pane) : []
}

func load(_ state: inout AppState, _ pane: Pane) -> [Effect] {
    guard let asOf = state.asOf else { return [] }
    state.status = nil
    switch pane {
    case .subscribers:
        state.subscribers.loading = true
        return subscribersQueries(state, limit: SubscribersPane.pageSize, asOf: asOf)
    case .subscriber:
        guard let id = state.subscriber.id ?? state.subscribers.selectedId else { return [] }
        state.subscriber.id = id
        state.subscriber.loading = true
        return [.loadSubscriber(id: id, asOf: asOf)]
    case .cohorts:
        state.cohorts.loading = true
        return [.loadCohorts(asOf: asOf, scope: state.scope, duration: state.cohorts.duration)]
    case .statesEvents:
        state.statesEvents.loading = true
        return [.loadStatesEvents(asOf: asOf, month: state.statesEvents.shownMonth(asOf: asOf), scope: state.statesEventsScope)]
    case .offers:
        state.offers.loading = true
        return [.loadOffers(asOf: asOf, scope: state.scope)]
    case .money:
        state.money.loading = true
        return [.loadMoney(asOf: asOf, scope: state.scope)]
    }
}

func clamp(_ value: Int, _ low: Int, _ high: Int) -> Int { max(low, min(high, value)) }

/// The queries that fill pane 1: `limit` rows from the window's start, how many the list has and,
/// in a drill-down, the population's size.
func subscribersQueries(_ state: AppState, limit: Int, asOf: Instant) -> [Effect] {
    let view = state.subscribers.view
    var effects: [Effect] = [
        .loadSubscribers(offset: state.subscribers.first, limit: limit, asOf: asOf, scope: state.subscribersScope, filter: view.filter,
                         population: view.queriedPopulation, sort: view.sort),
        .countSubscribers(asOf: asOf, scope: state.subscribersScope, filter: view.filter, population: view.queriedPopulation),
    ]
    if let population = view.population {
        effects.append(.loadPopulationSize(population, asOf: asOf, scope: state.subscribersScope))
    }
    return effects
}
