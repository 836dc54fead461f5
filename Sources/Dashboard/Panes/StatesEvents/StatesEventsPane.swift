import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

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

    static func rows(_ delta: Int) -> Action? { .move(delta) }

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
