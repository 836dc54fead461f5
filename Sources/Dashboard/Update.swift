import Foundation
import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// The one place state changes: pure, so every scenario is a unit test. Each action is one
/// line here or a call to the function below that handles it; what comes back from effects
/// (`loaded…`, `failed`) is handled in LoadedResults.swift.
public func update(_ state: inout AppState, _ action: Action) -> [Effect] {
    switch action {
    case .start:
        // The store's version is read before the first query, so a change after it is never missed.
        return tick(&state) + (state.asOf == nil ? [.loadHorizon] : load(&state, state.pane)) + [.loadProducts, .checkImport]
            + (pollsMassExtensions(state) ? [.loadMassExtensions] : [])
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
        return back(&state)
    case .quit:
        state.shouldQuit = true
        return []
    case .toggleHelp:
        state.overlay = state.overlay == .help ? nil : .help
        state.helpScroll = 0
        return []
    case .startSearch:
        startSearch(&state)
        return []
    case .startCommand:
        var prompt = Prompt(prefix: ":", history: state.commandHistory)
        prompt.candidates = commandCompletions(for: "", state)
        state.commandLine = CommandEntry(kind: .command, prompt: prompt)
        return []
    case .move(let delta):
        return move(&state, delta)
    case .moveColumn(let delta):
        return moveColumn(&state, delta)
    case .open:
        return openSelected(&state)
    case .mark(let operation):
        return markSelected(&state, operation)
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
        return cycleDuration(&state)
    case .toggleTrend:
        if state.pane == .cohorts { state.cohorts.trend.toggle() }
        return []
    case .switchFocus:
        guard state.pane == .subscriber else { return [] }
        state.subscriber.focus = state.subscriber.focus == .periods ? .events : .periods
        return []
    case .jumpToMark(let direction):
        return jumpToMark(&state, direction)
    case .flag, .clearFlag:
        return confirmFlags(&state, clear: action == .clearFlag)
    case .export:
        return state.pane == .money ? saveMoneyCharts(&state) : exportShown(&state)
    case .cycleList(let delta):
        return cycleList(&state, delta)
    case .cycleOfferOrder:
        return state.pane == .money ? cycleMoneyOrder(&state) : []
    case .cycleCurrency:
        return state.pane == .money ? cycleMoneyCurrency(&state) : []
    case .sort(let ascending):
        return sortList(&state, ascending: ascending)
    case .cycleOwnership:
        return cycleOwnership(&state)
    case .cycleEnvironment:
        return setEnvironment(&state, state.scope.environment.next)
    case .reload:
        return state.asOf == nil ? [.loadHorizon] : load(&state, state.pane)
    case .fetchFromApple:
        return fetchFromApple(&state)
    case .fetchedFromApple(let id, let summary):
        return fetchedFromApple(&state, id, summary: summary)
    case .fetchFromAppleFailed(let id, let message):
        state.fetchingFromApple.remove(id)
        state.status = "fetch \(id) from Apple: \(message)"
        return []
    case .extend:
        return startExtension(&state)
    case .extensionChecked(let check):
        return extensionChecked(&state, check)
    case .extensionAnswered(let id, let message, let success):
        return extensionAnswered(&state, id: id, message: message, success: success)
    case .trends(let intent):
        return trendsUpdate(&state, intent)
    case .loadedTrends(let data):
        trendsLoaded(&state, data)
        return []
    case .savedChart(let svg, let csv):
        ChartExport.saved(&state, svg: svg, csv: csv)
        return []
    case .consumptionChecked(let check):
        return consumptionChecked(&state, check)
    case .consumptionAnswered(let message, let success):
        return consumptionAnswered(&state, message: message, success: success)
    case .loadedSupport(let queue):
        state.overlay = supportOverlay(queue)
        state.messageScroll = 0
        return []
    case .loadedAuditLog(let target, let entries):
        state.overlay = auditLogOverlay(target: target, entries)
        state.messageScroll = 0
        return []
    case .orderLookedUp(let order, let ids):
        return orderLookedUp(&state, order: order, ids: ids)
    case .orderLookupFailed(let order, let message):
        return orderLookupFailed(&state, order: order, message: message)
    case .tick:
        return tick(&state) + massExtensionTick(&state)
    case .teamLogStatus(let line):
        state.teamLog = line
        return []
    case .storeVersion(let version):
        // Another process may have asked for a mass extension, or stored Apple's SUMMARY.
        let changed = version != nil && state.storeWatch.version != nil && version != state.storeWatch.version
        return storeVersionChecked(&state, version) + (changed && pollsMassExtensions(state) ? [.loadMassExtensions] : [])
    case .loadedMassExtensions(let rows):
        return massExtensionsLoaded(&state, rows)
    case .massExtensionPolled(let productId, let requestIdentifier, let poll):
        return massExtensionPolled(&state, productId: productId, requestIdentifier: requestIdentifier, poll)
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
        return subscribersLoaded(&state, offset: offset, rows: rows)
    case .countedSubscribers(let filter, let population, let count):
        return subscribersCounted(&state, filter: filter, population: population, count: count)
    case .loadedPopulationSize(let population, let size):
        guard population == state.subscribers.population else { return [] }
        state.subscribers.populationSize = size
        return []
    case .lookedUpSubscriber(let query, let matches):
        return subscriberLookedUp(&state, query: query, matches: matches)
    case .loadedSubscriber(let report):
        guard report.originalTransactionId == state.subscriber.id else { return [] }
        state.subscriber.report = report
        state.subscriber.loading = false
        return []
    case .loadedCohorts(let grid, let durations):
        cohortsLoaded(&state, grid, durations: durations)
        return []
    case .loadedStatesEvents(let figures):
        state.statesEvents.figures = figures
        state.statesEvents.loading = false
        return []
    case .loadedOffers(let board):
        state.offers.board = board
        state.offers.stream = nil
        state.offers.loading = false
        state.offers.refreshShown()
        return []
    case .loadedOffersFirst(let board, let scope):
        return offersFirstLoaded(&state, board, scope: scope)
    case .loadedOfferLists(let kinds, let asOf, let scope, let rows):
        offerListsLoaded(&state, kinds, asOf: asOf, scope: scope, rows)
        return []
    case .loadedCampaigns(let funnel):
        return campaignsLoaded(&state, funnel)
    case .loadedMoney(let figures):
        return moneyLoaded(&state, figures)
    case .loadedMoneySection(let asOf, let scope, let part):
        return moneySectionLoaded(&state, asOf: asOf, scope: scope, part)
    case .loadedMovementMembers(let members, let asOf, let scope):
        return movementMembersLoaded(&state, members, asOf: asOf, scope: scope)
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
        state.exporting = false
        guard let path else {
            state.notice = "nothing to export: the list is empty (no file written)"
            return []
        }
        state.notice = "exported \(CountText.grouped(rows)) row\(rows == 1 ? "" : "s") to \(path)"
        return []
    case .failed(let message):
        loadFailed(&state, message)
        return []
    }
}

// MARK: - Actions from keys

/// `esc`: a dialog or overlay, then a filter, then exactly what was entered last (a pane, a
/// drill-down, a search), as it was. The command line never gets here.
private func back(_ state: inout AppState) -> [Effect] {
    if state.confirmation != nil {
        state.confirmation = nil
        state.notice = "nothing changed"
        return []
    }
    if state.overlay != nil {
        state.overlay = nil
        return []
    }
    if closeMoneyMembers(&state) { return [] }
    if state.pane == .offers, state.offers.filter != nil {
        state.offers.filter = nil
        state.offers.refreshShown()
        return []
    }
    if state.pane == .offers, leaveCampaignMembers(&state) { return [] }
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
}

/// `/`: the Offers pane's filter, or pane 1's search (remembering the list to come back to).
private func startSearch(_ state: inout AppState) {
    if state.pane == .offers {
        state.commandLine = CommandEntry(kind: .filter, prompt: Prompt(prefix: "/", text: state.offers.filter ?? ""))
    } else if state.pane == .subscribers {
        // A new search starts empty; earlier ones (the list's own filter last) are one `↑` away.
        state.subscribers.searchOrigin = currentLocation(state)
        var history = state.searchHistory
        if let filter = state.subscribers.filter, history.last != filter { history.append(filter) }
        state.commandLine = CommandEntry(kind: .search, prompt: Prompt(prefix: "/", history: history))
    }
}

/// `h`/`l`: the column of the pane's table, or the month on the States & Events pane.
private func moveColumn(_ state: inout AppState, _ delta: Int) -> [Effect] {
    if state.pane == .offers {
        state.offers.column = clamp(state.offers.column + delta, 0, state.offers.list.columns.count - 1)
        return []
    }
    if state.pane == .statesEvents { return moveMonth(&state, delta) }
    if state.pane == .money { return moveMoneyBar(&state, delta) }
    if state.pane == .subscribers {
        state.subscribers.column = clamp(state.subscribers.column + delta, 0, shownSubscriberColumns(state) - 1)
        return []
    }
    guard state.pane == .cohorts, let grid = state.cohorts.grid else { return [] }
    state.cohorts.column = clamp(state.cohorts.column + delta, 0, grid.periods - 1)
    return []
}

/// `enter`: the subscriber under the cursor, or the drill-down of the figure under it.
private func openSelected(_ state: inout AppState) -> [Effect] {
    switch state.pane {
    case .subscribers:
        guard let id = state.subscribers.selectedId else {
            // Typed ahead of the results (a search just submitted): open when they arrive.
            if state.subscribers.loading { state.subscribers.openWhenLoaded = .selected }
            return []
        }
        return openSubscriber(&state, id)
    case .offers:
        if state.offers.list == .campaigns { return drillCampaign(&state) }
        guard let id = state.offers.selectedRow?.id else { return [] }
        return openSubscriber(&state, id)
    case .money:
        return openMoney(&state)
    case .cohorts, .statesEvents:
        return drillDown(&state)
    case .subscriber, .trends:
        return []
    }
}

/// Marks one row (`space`; `s`, `u`, `t` on Offers): the Offers row, or pane 1's subscriber (then the cursor moves on).
private func markSelected(_ state: inout AppState, _ operation: MarkOperation) -> [Effect] {
    if state.pane == .offers { return markRow(&state, operation) }
    guard state.pane == .subscribers, let id = state.subscribers.selectedId else { return [] }
    apply(operation, to: id, in: &state.marks)
    return move(&state, 1)
}

/// `d` on the Cohorts pane: the next billing duration, and the grid for it.
private func cycleDuration(_ state: inout AppState) -> [Effect] {
    guard state.pane == .cohorts else { return [] }
    let choices = state.cohorts.durationChoices
    let index = choices.firstIndex(of: state.cohorts.duration) ?? 0
    state.cohorts.duration = choices[(index + 1) % choices.count]
    state.cohorts.durationChosen = true
    state.cohorts.durationIsDefault = false
    state.cohorts.grid = nil
    return load(&state, .cohorts)
}

/// Sorts pane 1 by the cursor's column (a new list, loaded again) or the Offers rows.
private func sortList(_ state: inout AppState, ascending: Bool) -> [Effect] {
    if state.pane == .subscribers {
        var list = state.subscribers.view
        list.sort = SubscriberSort(SubscriberSort.Column.allCases[state.subscribers.column], ascending: ascending)
        showList(&state, list)
        return load(&state, .subscribers)
    }
    return sortOffers(&state, ascending: ascending)
}

/// A fetch from Apple finished: the notice says what came, and the pane shows it in place.
private func fetchedFromApple(_ state: inout AppState, _ id: String, summary: String) -> [Effect] {
    state.fetchingFromApple.remove(id)
    state.notice = "\(id) from Apple: \(summary)"
    // The pane updates in place (as it does when the store watch sees another commit).
    if state.subscriber.id == id {
        if state.pane == .subscriber { return refresh(&state, .subscriber) }
        state.storeWatch.stale.insert(.subscriber)
    }
    return []
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
        return moveMoneyRow(&state, delta)
    case .trends:
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
    state.offers.stream = nil
    state.offers.refreshShown()
    state.money.figures = nil
    state.trends.data = nil
    state.money.members = nil
    state.money.membersLoading = nil
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

private func loadIfNeeded(_ state: inout AppState, _ pane: Pane) -> [Effect] {
    if state.storeWatch.stale.contains(pane) { return refresh(&state, pane) }
    let empty: Bool =
        switch pane {
        case .subscribers: state.subscribers.rows.isEmpty && !state.subscribers.complete
        case .subscriber: state.subscriber.report == nil
        case .cohorts: state.cohorts.grid == nil
        case .statesEvents: state.statesEvents.figures == nil
        case .offers: state.offers.board == nil
        case .money: state.money.figures == nil
        case .trends: state.trends.data == nil
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
        return [
            .loadCohorts(
                asOf: asOf, scope: state.scope, duration: state.cohorts.duration, mostCommon: !state.cohorts.durationChosen)
        ]
    case .statesEvents:
        state.statesEvents.loading = true
        return [.loadStatesEvents(asOf: asOf, month: state.statesEvents.shownMonth(asOf: asOf), scope: state.statesEventsScope)]
    case .offers:
        state.offers.loading = true
        // The campaigns list reads its funnel again with the lists (a flag written, a new as-of).
        let campaigns = state.offers.list.isCampaigns ? loadCampaigns(&state) : []
        // A board already shown stays until the new one replaces it whole; a first visit draws the
        // first screen at once and streams the rest.
        guard state.offers.board == nil else { return [.loadOffers(asOf: asOf, scope: state.scope)] + campaigns }
        return [.loadOffersFirst(asOf: asOf, scope: state.scope, list: state.offers.list, limit: state.offers.firstScreenRows)]
            + campaigns
    case .money:
        state.money.loading = true
        return [.loadMoney(asOf: asOf, scope: state.scope)]
    case .trends:
        return loadTrends(&state)
    }
}

func clamp(_ value: Int, _ low: Int, _ high: Int) -> Int { max(low, min(high, value)) }

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
