import Foundation
import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// The one place state changes: pure, so every scenario is a unit test.
public func update(_ state: inout AppState, _ action: Action) -> [Effect] {
    switch action {
    case .start:
        // The store's version is read before the first query, so a change after it is never missed.
        return tick(&state) + (state.asOf == nil ? [.loadHorizon] : load(&state, state.pane))
    case .key(let event):
        return handleKey(&state, event)
    case .switchPane(let pane):
        guard pane != state.pane else { return [] }
        state.history.append(state.pane)
        state.pane = pane
        return loadIfNeeded(&state, pane)
    case .nextPane, .previousPane:
        let all = Pane.allCases
        let step = action == .nextPane ? 1 : all.count - 1
        return update(&state, .switchPane(all[(state.pane.rawValue + step) % all.count]))
    case .back:
        if state.overlay != nil { state.overlay = nil; return [] }
        if state.pane == .subscribers, state.subscribers.filter != nil {
            state.subscribers.filter = nil
            return reloadSubscribers(&state)
        }
        guard let previous = state.history.popLast() else { return [] }
        state.pane = previous
        return loadIfNeeded(&state, previous)
    case .quit:
        state.shouldQuit = true
        return []
    case .toggleHelp:
        state.overlay = state.overlay == .help ? nil : .help
        return []
    case .startSearch:
        state.commandLine = CommandEntry(kind: .search, prompt: Prompt(prefix: "/", text: state.subscribers.filter ?? ""))
        return []
    case .startCommand:
        state.commandLine = CommandEntry(kind: .command, prompt: Prompt(prefix: ":"))
        return []
    case .move(let delta):
        return move(&state, delta)
    case .moveColumn(let delta):
        if state.pane == .statesEvents { return moveMonth(&state, delta) }
        guard state.pane == .cohorts, let grid = state.cohorts.grid else { return [] }
        state.cohorts.column = clamp(state.cohorts.column + delta, 0, grid.periods - 1)
        return []
    case .open:
        guard state.pane == .subscribers, let id = state.subscribers.selectedId else { return [] }
        state.subscriber = SubscriberPane(id: id)
        _ = update(&state, .switchPane(.subscriber))
        return load(&state, .subscriber)
    case .toggleMark:
        guard state.pane == .subscribers, let id = state.subscribers.selectedId else { return [] }
        if state.marks.remove(id) == nil { state.marks.insert(id) }
        return move(&state, 1)
    case .reload:
        return state.asOf == nil ? [.loadHorizon] : load(&state, state.pane)
    case .tick:
        return tick(&state)
    case .storeVersion(let version):
        return storeVersionChecked(&state, version)
    case .refreshedHorizon(let horizon):
        return horizonRefreshed(&state, horizon)

    case .loadedHorizon(let horizon):
        state.asOf = horizon ?? Instant(milliseconds: 0)
        state.storeWatch.horizon = state.asOf
        return load(&state, state.pane)
    case .loadedSubscribers(let offset, let rows):
        state.subscribers.loading = false
        let selectedId = state.subscribers.selectedId
        if offset == 0 { state.subscribers.rows = rows } else { state.subscribers.rows += rows }
        state.subscribers.complete = rows.count < SubscribersPane.pageSize
        // A reload keeps the cursor on the same subscription when it is still listed.
        if let index = state.subscribers.rows.firstIndex(where: { $0.id == selectedId }) { state.subscribers.selected = index }
        state.subscribers.selected = clamp(state.subscribers.selected, 0, max(0, state.subscribers.rows.count - 1))
        return []
    case .loadedSubscriber(let report):
        guard report.originalTransactionId == state.subscriber.id else { return [] }
        state.subscriber.report = report
        state.subscriber.loading = false
        return []
    case .loadedCohorts(let grid):
        state.cohorts.grid = grid
        state.cohorts.loading = false
        state.cohorts.row = clamp(state.cohorts.row, 0, max(0, grid.cohorts.count - 1))
        state.cohorts.column = clamp(state.cohorts.column, 0, max(0, grid.periods - 1))
        return []
    case .loadedStatesEvents(let figures):
        state.statesEvents.figures = figures
        state.statesEvents.loading = false
        return []
    case .failed(let message):
        state.subscribers.loading = false
        state.subscriber.loading = false
        state.cohorts.loading = false
        state.statesEvents.loading = false
        state.status = message
        return []
    }
}

// MARK: - Keys

private func handleKey(_ state: inout AppState, _ event: KeyEvent) -> [Effect] {
    if event.key == .resize { return [] }
    if var entry = state.commandLine {
        let outcome = entry.prompt.handle(event)
        switch outcome {
        case .editing:
            state.commandLine = entry
            return []
        case .cancelled:
            state.commandLine = nil
            return []
        case .submitted(let text):
            state.commandLine = nil
            return entry.kind == .search ? search(&state, text) : runCommand(&state, text)
        }
    }
    if state.overlay != nil {
        if event.key == .char("q") { return update(&state, .quit) }
        state.overlay = nil
        return []
    }
    guard let action = KeyBindings.action(for: event, on: state.pane) else { return [] }
    return update(&state, action)
}

private func search(_ state: inout AppState, _ text: String) -> [Effect] {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    state.subscribers.filter = trimmed.isEmpty ? nil : trimmed
    return reloadSubscribers(&state)
}

private func runCommand(_ state: inout AppState, _ text: String) -> [Effect] {
    let words = text.split(separator: " ").map(String.init)
    switch words.first {
    case "q", "quit":
        state.shouldQuit = true
        return []
    case "asof":
        guard words.count == 2, let day = Instant(parsing: words[1]) else {
            state.status = "usage: :asof YYYY-MM-DD"
            return []
        }
        state.asOf = day
        invalidate(&state)
        return load(&state, state.pane)
    case "product":
        state.scope.productId = words.count >= 2 ? words[1] : nil
        invalidate(&state)
        return load(&state, state.pane)
    default:
        state.status = "unknown command: \(TextSanitizer.strip(text))"
        return []
    }
}

// MARK: - Movement and loading

private func move(_ state: inout AppState, _ delta: Int) -> [Effect] {
    switch state.pane {
    case .subscribers:
        let pane = state.subscribers
        guard !pane.rows.isEmpty else { return [] }
        state.subscribers.selected = clamp(pane.selected + delta, 0, pane.rows.count - 1)
        if state.subscribers.selected >= pane.rows.count - 5, !pane.complete, !pane.loading, pane.filter == nil,
           let asOf = state.asOf {
            state.subscribers.loading = true
            return [.loadSubscribers(offset: pane.rows.count, limit: SubscribersPane.pageSize, asOf: asOf, scope: state.scope,
                                     filter: nil)]
        }
        return []
    case .subscriber:
        state.subscriber.scroll = max(0, state.subscriber.scroll + delta)
        return []
    case .cohorts:
        let count = state.cohorts.grid?.cohorts.count ?? 0
        state.cohorts.row = clamp(state.cohorts.row + delta, 0, max(0, count - 1))
        return []
    case .statesEvents:
        return []
    }
}

private func invalidate(_ state: inout AppState) {
    state.subscribers.rows = []
    state.subscribers.complete = false
    state.subscriber.report = nil
    state.cohorts.grid = nil
    state.statesEvents.figures = nil
}

private func reloadSubscribers(_ state: inout AppState) -> [Effect] {
    state.subscribers.rows = []
    state.subscribers.selected = 0
    state.subscribers.complete = false
    return load(&state, .subscribers)
}

private func loadIfNeeded(_ state: inout AppState, _ pane: Pane) -> [Effect] {
    if state.storeWatch.stale.contains(pane) { return refresh(&state, pane) }
    let empty: Bool = switch pane {
    case .subscribers: state.subscribers.rows.isEmpty && !state.subscribers.complete
    case .subscriber: state.subscriber.report == nil
    case .cohorts: state.cohorts.grid == nil
    case .statesEvents: state.statesEvents.figures == nil
    }
    return empty ? load(&state, pane) : []
}

private func load(_ state: inout AppState, _ pane: Pane) -> [Effect] {
    guard let asOf = state.asOf else { return [] }
    state.status = nil
    switch pane {
    case .subscribers:
        state.subscribers.loading = true
        return [.loadSubscribers(offset: 0, limit: SubscribersPane.pageSize, asOf: asOf, scope: state.scope,
                                 filter: state.subscribers.filter)]
    case .subscriber:
        guard let id = state.subscriber.id ?? state.subscribers.selectedId else { return [] }
        state.subscriber.id = id
        state.subscriber.loading = true
        return [.loadSubscriber(id: id, asOf: asOf)]
    case .cohorts:
        state.cohorts.loading = true
        return [.loadCohorts(asOf: asOf, scope: state.scope)]
    case .statesEvents:
        state.statesEvents.loading = true
        return [.loadStatesEvents(asOf: asOf, month: state.statesEvents.shownMonth(asOf: asOf), scope: state.scope)]
    }
}

func clamp(_ value: Int, _ low: Int, _ high: Int) -> Int { max(low, min(high, value)) }
