import SubscriptionModel
import TerminalUI

/// The dashboard's panes, in tab order; the number key of a pane is `rawValue + 1`.
///
/// Each pane lives in its own folder under `Panes/` (its state, its intents and their update, its
/// view and its keys; docs/architecture.md, "Where a pane lives"): a new pane is its folder, a case
/// here and its line in ``definition``.
public enum Pane: Int, CaseIterable, Hashable, Sendable {
    case subscribers, subscriber, cohorts, statesEvents, offers, money, trends

    /// The pane's home: the one place the dashboard asks what the pane is, loads and draws.
    var definition: any DashboardPane.Type {
        switch self {
        case .subscribers: SubscribersPane.self
        case .subscriber: SubscriberPane.self
        case .cohorts: CohortsPane.self
        case .statesEvents: StatesEventsPane.self
        case .offers: OffersPane.self
        case .money: MoneyPane.self
        case .trends: TrendsPane.self
        }
    }

    public var title: String { definition.title }

    /// The tab's title when the tab row is short of room.
    public var shortTitle: String { definition.shortTitle }

    /// Whether the pane waits for a load in the background.
    var loadingFlag: WritableKeyPath<AppState, Bool> { definition.loadingFlag }
}

/// What the dashboard asks of every pane: the pane's state type answers, in the pane's folder.
protocol DashboardPane {
    static var title: String { get }
    /// The tab's title when the tab row is short of room (the title unless said).
    static var shortTitle: String { get }
    /// Whether the pane waits for a load in the background.
    static var loadingFlag: WritableKeyPath<AppState, Bool> { get }
    /// The pane's own keys, each bound to one of its intents, in the order the help bar, `?` and
    /// docs/keybindings.md list them.
    static var keys: [KeyBinding] { get }
    /// What the row keys every pane has (`j`, `k`, `pgdn`, `g g`, `G`, …) ask of this one: its own
    /// intent, or nil when it has no rows.
    static func rows(_ delta: Int) -> Action?
    /// Nothing to show yet: switching to the pane loads it.
    static func isEmpty(_ state: AppState) -> Bool
    /// The queries that fill the pane afresh at `asOf` (a spinner until they answer).
    static func load(_ state: inout AppState, asOf: Instant) -> [Effect]
    /// The same queries while the pane keeps showing what it has: no spinner, no cursor reset.
    static func refresh(_ state: inout AppState, asOf: Instant) -> [Effect]
    /// Forgets what the pane shows (a new as-of, environment, product or plan).
    static func invalidate(_ state: inout AppState)
    /// `esc` on the pane, before history unwinds: closes something of the pane's own (true), or not.
    static func back(_ state: inout AppState) -> Bool
    /// Draws the pane's body.
    static func render(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette)
}

extension DashboardPane {
    static var shortTitle: String { title }
    static func back(_ state: inout AppState) -> Bool { false }
}
