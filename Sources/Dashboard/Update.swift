import Foundation
import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// The one place state changes: pure, so every scenario is a unit test. Each action is one
/// line here or a call to the function that handles it: a pane's intents and what its loads
/// answer (`loaded…`) go to its update in its folder under Panes/; a failure to LoadedResults.swift.
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
    case .startCommand:
        var prompt = Prompt(prefix: ":", history: state.commandHistory)
        prompt.candidates = commandCompletions(for: "", state)
        state.commandLine = CommandEntry(kind: .command, prompt: prompt)
        return []
    case .cohorts(let intent):
        return cohortsUpdate(&state, intent)
    case .statesEvents(let intent):
        return statesEventsUpdate(&state, intent)
    case .money(let intent):
        return moneyUpdate(&state, intent)
    case .subscriber(let intent):
        return subscriberUpdate(&state, intent)
    case .subscribers(let intent):
        return subscribersUpdate(&state, intent)
    case .offers(let intent):
        return offersUpdate(&state, intent)
    case .cycleEnvironment:
        return setEnvironment(&state, state.scope.environment.next)
    case .reload:
        return state.asOf == nil ? [.loadHorizon] : load(&state, state.pane)
    case .fetchedFromApple(let id, let summary):
        return fetchedFromApple(&state, id, summary: summary)
    case .fetchFromAppleFailed(let id, let message):
        state.fetchingFromApple.remove(id)
        state.status = "fetch \(id) from Apple: \(message)"
        return []
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
        subscriberLoaded(&state, report)
        return []
    case .loadedCohorts(let grid, let durations):
        cohortsLoaded(&state, grid, durations: durations)
        return []
    case .loadedStatesEvents(let figures):
        statesEventsLoaded(&state, figures)
        return []
    case .loadedOffers(let board):
        offersLoaded(&state, board)
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

// MARK: - Back

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
    // Then something of the pane's own (a filter, an open list).
    if state.pane.definition.back(&state) { return [] }
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

// MARK: - History and loading

/// Every pane forgets what it shows (a new as-of, environment, product or plan).
func invalidate(_ state: inout AppState) {
    for pane in Pane.allCases { pane.definition.invalidate(&state) }
}

/// Where `esc` would come back to now.
func currentLocation(_ state: AppState) -> Location {
    Location(pane: state.pane, list: state.subscribers.view, selected: state.subscribers.selected)
}

func pushLocation(_ state: inout AppState) {
    state.history.append(currentLocation(state))
}

private func loadIfNeeded(_ state: inout AppState, _ pane: Pane) -> [Effect] {
    if state.storeWatch.stale.contains(pane) { return refresh(&state, pane) }
    return pane.definition.isEmpty(state) ? load(&state, pane) : []
}

/// Loads `pane` afresh (a spinner until it answers).
func load(_ state: inout AppState, _ pane: Pane) -> [Effect] {
    guard let asOf = state.asOf else { return [] }
    state.status = nil
    return pane.definition.load(&state, asOf: asOf)
}

func clamp(_ value: Int, _ low: Int, _ high: Int) -> Int { max(low, min(high, value)) }

/// Applies a mark operation to one id of a mark set.
func apply(_ operation: MarkOperation, to id: String, in marks: inout Set<String>) {
    switch operation {
    case .mark: marks.insert(id)
    case .unmark: marks.remove(id)
    case .toggle: if marks.remove(id) == nil { marks.insert(id) }
    }
}

/// The latest month the panes show at `asOf`: the month as-of lies in, or, when as-of is a month's
/// first instant (`:asof 2025-12-01`), the month that ended there (none of the next has happened).
public func lastMonth(asOf: Instant) -> Month {
    asOf == asOf.month.start ? asOf.month.adding(months: -1) : asOf.month
}
