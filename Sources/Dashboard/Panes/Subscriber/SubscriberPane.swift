import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

/// The list of pane 2 that `j`, `k`, `G` and `g g` move in.
public enum SubscriberFocus: Equatable, Sendable {
    case periods, events
}

/// What the keys ask of pane 2: its own intents, handled in SubscriberUpdate.swift.
public enum SubscriberIntent: Equatable, Sendable {
    /// `j` / `k` and the other row keys: the cursor in the focused list.
    case move(Int)
    /// `e`: the focus moves between the periods and the events.
    case switchFocus
    /// `f`: flag the subscriber shown, after a confirm dialog.
    case flag
    /// `F`: clear one of its flags, after a confirm dialog.
    case clearFlag
    /// `R`: fetch its history and statuses from the App Store Server API in the background.
    case fetchFromApple
    /// `x`: extend its renewal date at Apple, after a dialog (RenewalExtension.swift).
    case extend
}

/// Pane 2: one subscription's story (periods, events, flags, Apple's renewal details).
public struct SubscriberPane: Equatable, Sendable {
    public var id: String?
    public var report: SubscriberReport?
    public var loading = false
    public var focus = SubscriberFocus.periods
    /// The cursor in the periods (oldest first); nil: the latest period started by as-of, until
    /// the cursor moves.
    public var periodRow: Int?
    /// The cursor in the events (oldest first, as the periods); nil: the newest event, until the
    /// cursor moves.
    public var eventRow: Int?

    public init(id: String? = nil) { self.id = id }

    /// The periods cursor as shown: the latest period started by as-of until the cursor moved,
    /// always in range.
    public var shownPeriodRow: Int {
        guard let report else { return 0 }
        let periods = report.timeline.periods
        let latest = periods.lastIndex { $0.start <= report.asOf } ?? periods.count - 1
        return clamp(periodRow ?? latest, 0, max(0, periods.count - 1))
    }

    /// The events cursor as shown, always in range.
    public var shownEventRow: Int {
        let count = report?.events.count ?? 0
        return clamp(eventRow ?? count - 1, 0, max(0, count - 1))
    }
}

extension SubscriberPane: DashboardPane {
    static let title = "Subscriber"
    static let shortTitle = "Sub"
    static var loadingFlag: WritableKeyPath<AppState, Bool> { \.subscriber.loading }

    static func rows(_ delta: Int) -> Action? { .subscriber(.move(delta)) }

    static func isEmpty(_ state: AppState) -> Bool { state.subscriber.report == nil }

    static func load(_ state: inout AppState, asOf: Instant) -> [Effect] {
        let effects = refresh(&state, asOf: asOf)
        if !effects.isEmpty { state.subscriber.loading = true }
        return effects
    }

    /// The subscriber shown, else the one under pane 1's cursor.
    static func refresh(_ state: inout AppState, asOf: Instant) -> [Effect] {
        guard let id = state.subscriber.id ?? state.subscribers.selectedId else { return [] }
        state.subscriber.id = id
        return [.loadSubscriber(id: id, asOf: asOf)]
    }

    static func invalidate(_ state: inout AppState) { state.subscriber.report = nil }

    static func render(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
        renderSubscriber(state, in: area, buffer: &buffer, palette: palette)
    }
}
