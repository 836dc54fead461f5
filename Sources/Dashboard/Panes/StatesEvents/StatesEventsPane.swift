import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

/// What the keys ask of pane 4: its own intents, handled in StatesEventsUpdate.swift.
public enum StatesEventsIntent: Equatable, Sendable {
    /// `j` / `k` and the other row keys: the cursor `delta` rows down or up.
    case move(Int)
    /// `h`: the events of the month before.
    case previousMonth
    /// `l`: the events of the month after (never past as-of's month).
    case nextMonth
    /// `enter`: pane 1 lists the subscriptions behind the row.
    case open
    /// `o`: purchased → family-shared → all.
    case cycleOwnership
}

/// Pane 4: the states at as-of and a month's events, each beside the figure before.
public struct StatesEventsPane: Equatable, Sendable {
    public var figures: StatesEventsFigures?
    /// The month whose events are shown; nil: the month of as-of.
    public var month: Month?
    public var loading = false
    /// The cursor: the state rows first (then active, total), then the event rows.
    public var row = 0
    /// Whose subscriptions the figures count (`o` cycles): purchased unless switched.
    public var ownership: OwnershipFilter = .purchased
}

extension StatesEventsPane: DashboardPane {
    static let title = "States & Events"
    static let shortTitle = "States"
    static var loadingFlag: WritableKeyPath<AppState, Bool> { \.statesEvents.loading }

    static func rows(_ delta: Int) -> Action? { .statesEvents(.move(delta)) }

    static func isEmpty(_ state: AppState) -> Bool { state.statesEvents.figures == nil }

    static func load(_ state: inout AppState, asOf: Instant) -> [Effect] {
        state.statesEvents.loading = true
        return refresh(&state, asOf: asOf)
    }

    static func refresh(_ state: inout AppState, asOf: Instant) -> [Effect] {
        [.loadStatesEvents(asOf: asOf, month: state.statesEvents.shownMonth(asOf: asOf), scope: state.statesEventsScope)]
    }

    static func invalidate(_ state: inout AppState) { state.statesEvents.figures = nil }

    static func render(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
        renderStatesEvents(state, in: area, buffer: &buffer, palette: palette)
    }
}

extension StatesEventsPane {
    /// The state rows of pane 4, in order: each state, then `active` and `total`.
    public static let stateRows: [(name: String, states: [SubscriptionState])] =
        SubscriptionState.allCases.map { ($0.rawValue, [$0]) }
        + [("active", SubscriptionState.allCases.filter(\.isActive)), ("total", SubscriptionState.allCases)]

    /// State rows, then one row per event type.
    public static var rowCount: Int { stateRows.count + EventType.allCases.count }

    /// The population behind cursor row `row` at as-of (events: those of `month`).
    public static func population(row: Int, asOf: Instant, month: Month) -> SubscriberPopulation? {
        if row < stateRows.count { return .states(stateRows[row].states) }
        let index = row - stateRows.count
        guard EventType.allCases.indices.contains(index) else { return nil }
        return .events(EventType.allCases[index], from: month.start, to: month.end)
    }
}
