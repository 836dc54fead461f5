import SubscriberStore
import SubscriptionModel

/// What the dashboard knows about changes to the store by others (an import running beside it).
///
/// The run loop sends ``Action/tick`` about once a second; `update` asks for the store's
/// `data_version` (``Effect/checkStore``, off the UI thread) and, when it moved, reloads the
/// visible pane in place — rows, cursor, scroll and marks stay — and marks the other panes stale,
/// to be reloaded when next shown.
public struct StoreWatch: Equatable, Sendable {
    /// The last version seen; nil before the first check.
    public var version: Int?
    /// A check is on its way: ticks don't pile up checks behind a slow query.
    public var checking = false
    /// The last data horizon loaded: while as-of is still it, as-of follows the data.
    public var horizon: Instant?
    /// Panes whose data predates the last change.
    public var stale: Set<Pane> = []
    /// An import running beside the dashboard, or one interrupted (by the import lock): looked
    /// at when the store changes, and at every tick while it is not idle.
    public var importActivity: ImportActivity = .idle

    public init() {}
}

func tick(_ state: inout AppState) -> [Effect] {
    if !state.fetchingFromApple.isEmpty { state.spinnerFrame += 1 }
    let team: [Effect] = state.teamLog == nil ? [] : [.checkTeamLog]
    guard !state.storeWatch.checking else { return team }
    state.storeWatch.checking = true
    return [.checkStore] + (state.storeWatch.importActivity == .idle ? [] : [.checkImport]) + team
}

func storeVersionChecked(_ state: inout AppState, _ version: Int?) -> [Effect] {
    state.storeWatch.checking = false
    guard let version else { return [] }
    let previous = state.storeWatch.version
    state.storeWatch.version = version
    guard let previous, previous != version, state.asOf != nil else { return [] }
    state.storeWatch.stale = Set(Pane.allCases).subtracting([state.pane])
    if state.asOf == state.storeWatch.horizon { return [.refreshHorizon, .checkImport] }
    return refresh(&state, state.pane) + [.checkImport]
}

func horizonRefreshed(_ state: inout AppState, _ horizon: Instant?) -> [Effect] {
    let asOf = horizon ?? Instant(milliseconds: 0)
    state.storeWatch.horizon = asOf
    state.asOf = asOf
    return refresh(&state, state.pane)
}

/// Reloads `pane` while it keeps showing what it has: no spinner, no reset of the cursor.
func refresh(_ state: inout AppState, _ pane: Pane) -> [Effect] {
    guard let asOf = state.asOf else { return [] }
    state.storeWatch.stale.remove(pane)
    return pane.definition.refresh(&state, asOf: asOf)
}
