import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// Keys go to the first taker: a confirm dialog, the command line, the help overlay, then the
/// bindings of the focused pane (sequences such as `g s` wait in `pendingKeys`).
func handleKey(_ state: inout AppState, _ event: KeyEvent) -> [Effect] {
    if event.key == .resize { return [] }
    // ctrl-c quits from anywhere, a prompt or a dialog included (raw mode makes it a key, not a signal).
    if event.key == .ctrl("c") { return update(&state, .quit) }
    // A message stays until the next key; what this key does may leave a new one.
    state.notice = nil
    if state.commandLine == nil { state.status = nil }
    if let confirmation = state.confirmation, state.commandLine == nil { return confirmationKey(&state, confirmation, event) }
    if let dialog = state.extensionDialog { return extensionDialogKey(&state, dialog, event) }
    if let form = state.consumptionForm { return consumptionFormKey(&state, form, event) }
    if let entry = state.commandLine { return commandLineKey(&state, entry, event) }
    if state.overlay != nil { return overlayKey(&state, event) }
    return boundKey(&state, event)
}

/// A key in the flag dialog: `n` opens the note prompt over it; a yes writes the flags.
private func confirmationKey(_ state: inout AppState, _ confirmation: Confirmation, _ event: KeyEvent) -> [Effect] {
    var confirmation = confirmation
    if event.key == .char("n") {
        // The note prompt opens over the dialog; submitting it comes back to the dialog.
        state.commandLine = CommandEntry(kind: .note, prompt: Prompt(prefix: "note: ", text: confirmation.note ?? ""))
        return []
    }
    guard let confirmed = confirmation.handle(event) else {
        state.confirmation = confirmation
        return []
    }
    state.confirmation = nil
    guard confirmed else {
        state.notice = "nothing changed"
        return []
    }
    state.offers.lastOffer = confirmation.offer
    state.notice = (confirmation.clear ? "clearing " : "flagging ") + "\(confirmation.ids.count)…"
    return [
        .writeFlags(
            FlagWrite(
                offer: confirmation.offer, ids: confirmation.ids, clear: confirmation.clear,
                operatorName: state.operatorName, note: confirmation.note,
                replace: confirmation.replace && !confirmation.clear))
    ]
}

/// A key on the command line (`:`, `/`, a mark pattern, a note): edits it, cancels it or submits it.
private func commandLineKey(_ state: inout AppState, _ entry: CommandEntry, _ event: KeyEvent) -> [Effect] {
    var entry = entry
    switch entry.prompt.handle(event) {
    case .editing:
        // Completions follow the text: command names, then the arguments of the command typed.
        if entry.kind == .command { entry.prompt.candidates = commandCompletions(for: entry.prompt.value, state) }
        state.commandLine = entry
        // Filters apply as they are typed (the Offers rows are in memory; a search is index ranges).
        switch entry.kind {
        case .filter: return filterOffers(&state, entry.prompt.value)
        case .search: return searchSubscribers(&state, entry.prompt.value)
        default: return []
        }
    case .cancelled:
        state.commandLine = nil
        return commandLineCancelled(&state, entry)
    case .submitted(let text):
        state.commandLine = nil
        return commandLineSubmitted(&state, entry, text)
    }
}

/// `esc` on the command line: a filter is cleared, a search goes back to the list as it was before `/`.
private func commandLineCancelled(_ state: inout AppState, _ entry: CommandEntry) -> [Effect] {
    switch entry.kind {
    case .filter: return filterOffers(&state, "")
    case .search:
        guard let origin = state.subscribers.searchOrigin else { return [] }
        state.subscribers.searchOrigin = nil
        guard origin.list != state.subscribers.view else { return [] }
        showList(&state, origin.list, selected: origin.selected)
        return load(&state, .subscribers)
    default: return []
    }
}

/// `enter` on the command line: runs what was typed.
private func commandLineSubmitted(_ state: inout AppState, _ entry: CommandEntry, _ text: String) -> [Effect] {
    switch entry.kind {
    case .search:
        state.searchHistory = entry.prompt.history
        if let order = orderLookupOffer(state, submitted: true), order == text.trimmingCharacters(in: .whitespaces).uppercased() {
            return lookUpOrder(&state, order)
        }
        // The search is one step `esc` unwinds (to the list as it was before `/`).
        let effects = searchSubscribers(&state, text)
        if let origin = state.subscribers.searchOrigin, origin.list != state.subscribers.view {
            state.history.append(origin)
        }
        state.subscribers.searchOrigin = nil
        return effects
    case .filter: return filterOffers(&state, text)
    case .markPattern(let mark): return markMatching(&state, pattern: text, mark: mark)
    case .note:
        let note = text.trimmingCharacters(in: .whitespaces)
        state.confirmation?.note = note.isEmpty ? nil : note
        return []
    case .command:
        state.commandHistory = entry.prompt.history
        return runCommand(&state, text)
    }
}

/// A key over an overlay: `q` quits, the help overlay and a message taller than the screen
/// scroll, any other key closes it.
private func overlayKey(_ state: inout AppState, _ event: KeyEvent) -> [Effect] {
    if event.key == .char("q") { return update(&state, .quit) }
    // The help overlay scrolls when the pane has more keys than the screen has rows.
    let scroll: Int? =
        switch event.key {
        case .char("j"), .down: 1
        case .char("k"), .up: -1
        case .pageDown, .char(" "): 10
        case .pageUp: -10
        default: nil
        }
    if let scroll, state.overlay == .help {
        state.helpScroll = max(0, state.helpScroll + scroll)
        return []
    }
    if case .message(let title, let text) = state.overlay, scrollMessage(&state, title: title, text: text, event) {
        return []
    }
    state.overlay = nil
    return []
}

/// A key for the focused pane's bindings, after any keys of a sequence it continues.
private func boundKey(_ state: inout AppState, _ event: KeyEvent) -> [Effect] {
    if !state.pendingKeys.isEmpty && event.key == .esc {
        state.pendingKeys = []
        return []
    }
    let keys = state.pendingKeys + [event]
    state.pendingKeys = []
    switch KeyBindings.resolve(keys, on: state.pane) {
    case .binding(let binding):
        if binding.writes && state.readOnly {
            state.notice = "read-only: \(binding.name) is off (\(state.readOnlyReason))"
            return []
        }
        guard let action = binding.action(on: state.pane) else { return [] }
        return update(&state, action)
    case .prefix:
        state.pendingKeys = keys
        return []
    case .unbound:
        // An unfinished sequence then another key: the sequence is dropped, the key counts alone.
        return keys.count > 1 ? handleKey(&state, event) : []
    }
}
