import Foundation
import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// Pane 5's intents: the cursor, marks, flags, the list shown, its filter and sort, the export.
func offersUpdate(_ state: inout AppState, _ intent: OffersIntent) -> [Effect] {
    switch intent {
    case .move(let delta):
        state.offers.selected = clamp(state.offers.selected + delta, 0, max(0, state.offers.shown.count - 1))
        return []
    case .moveColumn(let delta):
        state.offers.column = clamp(state.offers.column + delta, 0, state.offers.list.columns.count - 1)
        return []
    case .open:
        if state.offers.list == .campaigns { return drillCampaign(&state) }
        guard let id = state.offers.selectedRow?.id else { return [] }
        return openSubscriber(&state, id)
    case .mark(let operation): return markRow(&state, operation)
    case .markAll(let operation): return markShown(&state, operation)
    case .markRange: return markRange(&state)
    case .markMatching(let mark):
        state.commandLine = CommandEntry(kind: .markPattern(mark: mark), prompt: Prompt(prefix: mark ? "|" : "\\"))
        return []
    case .jumpToMark(let direction): return jumpToMark(&state, direction)
    case .flag: return confirmFlags(&state, clear: false)
    case .clearFlag: return confirmFlags(&state, clear: true)
    case .export: return exportShown(&state)
    case .cycleList(let delta): return cycleList(&state, delta)
    case .sort(let ascending): return sortOffers(&state, ascending: ascending)
    case .filter:
        state.commandLine = CommandEntry(kind: .filter, prompt: Prompt(prefix: "/", text: state.offers.filter ?? ""))
        return []
    }
}

// MARK: - Marks

/// `space` / `s` / `u` / `t` on pane 5: the cursor row, then the cursor moves down.
func markRow(_ state: inout AppState, _ operation: MarkOperation) -> [Effect] {
    guard state.offers.list != .campaigns else { return [] }
    guard let id = state.offers.selectedRow?.id else { return [] }
    apply(operation, to: id, in: &state.offers.marks)
    if state.offers.marks.contains(id) { state.offers.lastMark = id }
    state.offers.selected = min(state.offers.selected + 1, max(0, state.offers.shown.count - 1))
    return []
}

/// `g s` / `g u` / `g t`: every shown row (the filter decides what "shown" is).
func markShown(_ state: inout AppState, _ operation: MarkOperation) -> [Effect] {
    guard state.offers.list != .campaigns else { return [] }
    for row in state.offers.shown { apply(operation, to: row.id, in: &state.offers.marks) }
    state.notice = "\(state.offers.marks.count) marked"
    return []
}

/// `ctrl-space`: marks every row between the last marked one and the cursor (k9s' span mark).
func markRange(_ state: inout AppState) -> [Effect] {
    let pane = state.offers
    guard let cursor = pane.selectedRow?.id else { return [] }
    guard let anchor = pane.lastMark, pane.marks.contains(anchor),
        let from = pane.shown.firstIndex(where: { $0.id == anchor })
    else {
        state.offers.marks.insert(cursor)
        state.offers.lastMark = cursor
        state.notice = "no marked row in view to start a range from: marked this one"
        return []
    }
    let range = min(from, pane.selected)...max(from, pane.selected)
    for row in pane.shown[range] { state.offers.marks.insert(row.id) }
    state.offers.lastMark = cursor
    state.notice = "marked \(range.count) rows · \(state.offers.marks.count) marked"
    return []
}

/// `|` / `\`: (un)marks the shown rows whose cell in the cursor's column matches `pattern`
/// (a regular expression, case-insensitive, found anywhere in the cell), as VisiData does.
func markMatching(_ state: inout AppState, pattern: String, mark: Bool) -> [Effect] {
    guard !pattern.isEmpty else { return [] }
    let expression: NSRegularExpression
    do {
        expression = try NSRegularExpression(pattern: pattern, options: [.caseInsensitive])
    } catch {
        state.status = "not a regular expression: \(TextSanitizer.visible(pattern))"
        return []
    }
    let pane = state.offers
    let column = pane.column
    var count = 0
    for row in pane.shown {
        let cell = row.cells(for: pane.list)[column]
        guard expression.firstMatch(in: cell, range: NSRange(cell.startIndex..., in: cell)) != nil else { continue }
        apply(mark ? .mark : .unmark, to: row.id, in: &state.offers.marks)
        count += 1
    }
    state.notice =
        "\(mark ? "marked" : "unmarked") \(count) row\(count == 1 ? "" : "s") whose \(pane.list.columns[column]) matches "
        + "/\(TextSanitizer.visible(pattern))/ · \(state.offers.marks.count) marked"
    return []
}

/// `}` / `{`: the next or previous shown row that is marked, wrapping around.
func jumpToMark(_ state: inout AppState, _ direction: Int) -> [Effect] {
    let pane = state.offers
    guard !pane.shown.isEmpty else { return [] }
    let count = pane.shown.count
    for step in 1...count {
        let index = ((pane.selected + direction * step) % count + count) % count
        if pane.marks.contains(pane.shown[index].id) {
            state.offers.selected = index
            return []
        }
    }
    state.notice = "no marked row in view"
    return []
}

// MARK: - Flags

/// Apple's win-back offers for `ids` on the eligible win-back list (docs/metrics.md, "Renewal
/// details from Apple").
func appleOffers(_ board: OfferBoard?, _ ids: [String]) -> [String: [String]] {
    let wanted = Set(ids)
    var found: [String: [String]] = [:]
    for row in board?.eligible ?? [] where row.offer == .winBackOffer && wanted.contains(row.originalTransactionId) {
        if !row.appleOfferIds.isEmpty { found[row.originalTransactionId] = row.appleOfferIds }
    }
    return found
}

/// `f` / `F`: asks to confirm a flag change on the marked rows, or on the cursor row when none is marked.
func confirmFlags(_ state: inout AppState, clear: Bool) -> [Effect] {
    guard flagsAreWritable(&state) else { return [] }
    let pane = state.offers
    guard pane.list != .campaigns else {
        state.notice = "the funnel's rows are campaigns: enter lists a step's subscribers, who can be flagged there"
        return []
    }
    let ids = pane.marks.isEmpty ? pane.selectedRow.map { [$0.id] } ?? [] : pane.marks.sorted()
    guard !ids.isEmpty else {
        state.notice = "nothing to \(clear ? "unflag" : "flag"): the list is empty"
        return []
    }
    let shown = Set(pane.shown.map(\.id))
    let offer: OfferFlagKind
    switch pane.list {
    case .eligible(let kind): offer = kind
    case .flagged, .campaigns: offer = clear ? pane.selectedRow?.flags.first ?? pane.lastOffer : pane.lastOffer
    case .campaignMembers(let drill): offer = drill.flag
    }
    state.confirmation = Confirmation(
        offer: offer, ids: ids, clear: clear, hidden: ids.filter { !shown.contains($0) }.count,
        existing: pane.board?.flags ?? [])
    state.confirmation?.appleOffers = appleOffers(pane.board, ids)
    state.confirmation?.catalogue = state.catalogueOffers
    return []
}

/// The store has written a confirmed change: say so, and reload what shows flags.
func flagsWritten(_ state: inout AppState, _ write: FlagWrite, changed: Int) -> [Effect] {
    let unchanged = write.ids.count - changed
    let verb = write.clear ? "cleared \(write.offer.rawValue) on" : "flagged for \(write.offer.rawValue):"
    state.notice =
        "\(verb) \(changed) subscription\(changed == 1 ? "" : "s") as \(write.operatorName)"
        + (unchanged > 0
            ? " (\(unchanged) already \(write.clear ? "clear" : write.replace ? "flagged the same" : "flagged: kept"))" : "")
    // The rows just flagged (or cleared) are done with: their marks go, so the next flag starts afresh.
    state.marks.subtract(write.ids)
    state.offers.marks.subtract(write.ids)
    // Flag counts show on pane 1 and pane 2 too: fetch them again when next shown.
    state.subscribers.rows = []
    state.subscribers.complete = false
    if state.pane != .subscriber { state.subscriber.report = nil }
    var effects = load(&state, .offers)
    if state.pane == .subscribers { effects += load(&state, .subscribers) }
    if state.pane == .subscriber { effects += refresh(&state, .subscriber) }
    return effects
}

// MARK: - Lists, filter, sort, export

func cycleList(_ state: inout AppState, _ delta: Int) -> [Effect] {
    let all = OfferList.allCases
    // A step's members count as the funnel they were listed from.
    let index = all.firstIndex(of: state.offers.list.isCampaigns ? .campaigns : state.offers.list) ?? 0
    state.offers.list = all[(index + delta % all.count + all.count) % all.count]
    state.offers.sort = nil
    state.offers.selected = 0
    state.offers.refreshShown()
    return campaignsIfNeeded(&state)
}

func sortOffers(_ state: inout AppState, ascending: Bool) -> [Effect] {
    state.offers.sort = OfferSort(column: state.offers.column, ascending: ascending)
    state.offers.refreshShown()
    return []
}

func filterOffers(_ state: inout AppState, _ text: String) -> [Effect] {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    state.offers.filter = trimmed.isEmpty ? nil : trimmed
    state.offers.refreshShown()
    return []
}

/// `ctrl-s`: the shown rows, in their order, with the columns the pane shows; while the list is
/// still streaming, the whole list read for the export.
func exportShown(_ state: inout AppState) -> [Effect] {
    if state.offers.list.isCampaigns { return exportCampaigns(&state) }
    guard let board = state.offers.board else { return [] }
    let list = state.offers.list
    let stem = "offers-\(list.title)-\(board.asOf.isoDate)"
    if case .eligible(let kind) = list, let stream = state.offers.stream, stream.lists[kind] == nil {
        // Only the first screen of this list has come: the export reads the whole list itself.
        state.notice = "exporting the whole \(list.title) list…"
        state.exporting = true
        return [
            .exportOffers(
                stem: stem, kind: kind, asOf: stream.asOf, scope: stream.scope, flags: board.flags,
                filter: state.offers.filter, sort: state.offers.sort)
        ]
    }
    guard !state.offers.shown.isEmpty else {
        state.notice = "nothing to export: the list is empty (no file written)"
        return []
    }
    return [
        .exportCSV(stem: stem, header: list.csvHeader, rows: state.offers.shown.map { $0.exportCells(for: list) }, idColumn: 0)
    ]
}

// MARK: - Loading

/// The whole board arrived (a reload): it replaces the one shown.
func offersLoaded(_ state: inout AppState, _ board: OfferBoard) {
    state.offers.board = board
    state.offers.stream = nil
    state.offers.loading = false
    state.offers.refreshShown()
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
