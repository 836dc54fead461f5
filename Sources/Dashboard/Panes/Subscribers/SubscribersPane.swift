import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

/// Which subscribers pane 1 lists: what `esc` brings back exactly as it was.
public struct SubscriberListView: Equatable, Sendable {
    /// The search typed after `/` (live) or given to `:user`.
    public var filter: String?
    /// A drill-down: only the subscriptions behind a cohort cell, a state or an event count.
    public var population: SubscriberPopulation?
    /// A search inside a drill-down found nobody there: the list shows everyone it finds instead.
    public var searchesEveryone = false
    public var sort = SubscriberSort()
    /// Whose subscriptions the list shows (`o` cycles): everyone's unless a drill-down from pane 4
    /// or the user narrowed it.
    public var ownership: OwnershipFilter = .all
    /// The pane a drill-down came from, when it does not follow from the population (pane 7).
    public var origin: Pane?

    public init(
        filter: String? = nil, population: SubscriberPopulation? = nil, sort: SubscriberSort = SubscriberSort(),
        ownership: OwnershipFilter = .all
    ) {
        self.filter = filter
        self.population = population
        self.sort = sort
        self.ownership = ownership
    }

    /// The population the queries use (none when the search reaches everyone).
    public var queriedPopulation: SubscriberPopulation? { searchesEveryone ? nil : population }
    /// The ownership the queries use (every one when the search reaches everyone).
    public var queriedOwnership: OwnershipFilter { searchesEveryone ? .all : ownership }
}

/// What the keys ask of pane 1: its own intents, handled in SubscribersUpdate.swift.
public enum SubscribersIntent: Equatable, Sendable {
    /// `j` / `k` and the other row keys: the cursor `delta` rows down or up (pages load as it goes).
    case move(Int)
    /// `h` / `l`: the column under the cursor, which `[` and `]` sort by.
    case moveColumn(Int)
    /// `enter`: the subscriber under the cursor on pane 2.
    case open
    /// `space`: mark, unmark or toggle the cursor row, then move down.
    case mark(MarkOperation)
    /// `f`: flag the marked rows, or the cursor row, after a confirm dialog.
    case flag
    /// `F`: clear a flag on them, after a confirm dialog.
    case clearFlag
    /// `ctrl-s`: every subscriber of the list as CSV.
    case export
    /// `[` / `]`: sort by the column under the cursor.
    case sort(ascending: Bool)
    /// `o`: all, purchased or family-shared subscriptions.
    case cycleOwnership
    /// `/`: the search line, the list filtered as it is typed.
    case search
}

/// Pane 1: every subscriber, a search, or the subscriptions behind another pane's figure.
public struct SubscribersPane: Equatable, Sendable {
    public static let pageSize = 100
    /// The loaded window of the list: `rows[0]` is row `first` of the whole list.
    public var rows: [SubscriberRow] = []
    public var first = 0
    /// The cursor, as a row number of the whole list.
    public var selected = 0
    /// The column under the cursor (`h` / `l`), which `[` and `]` sort by.
    public var column = 0
    public var view = SubscriberListView()
    /// How many rows the whole list has; nil until counted.
    public var count: Int?
    /// A search found more than the list holds (``AppDatabase/searchLimit``): the count is "5,000+".
    public var capped = false
    public var loading = false
    /// The last page came back short: there is nothing more to fetch.
    public var complete = false
    public var populationSize: PopulationSize?
    /// `enter` (or `:user`) came while the list was loading: open a row when it arrives.
    public var openWhenLoaded: OpenIntent?
    /// The list as it was when `/` opened the search line: `esc` there, or `esc` after it, returns to it.
    public var searchOrigin: Location?

    public var filter: String? {
        get { view.filter }
        set { view.filter = newValue }
    }
    public var population: SubscriberPopulation? {
        get { view.population }
        set { view.population = newValue }
    }
    public var ownership: OwnershipFilter {
        get { view.ownership }
        set { view.ownership = newValue }
    }
    public var selectedRow: SubscriberRow? { rows.indices.contains(selected - first) ? rows[selected - first] : nil }
    public var selectedId: String? { selectedRow?.id }
}

/// What to open when the Subscribers list arrives.
public enum OpenIntent: Equatable, Sendable {
    /// The row under the cursor (an `enter` typed ahead of the results).
    case selected
    /// The only row, as `:user ID` asks; several rows stay listed.
    case single(String)
}

extension SubscribersPane: DashboardPane {
    static let title = "Subscribers"
    static let shortTitle = "Subs"
    static var loadingFlag: WritableKeyPath<AppState, Bool> { \.subscribers.loading }

    static func rows(_ delta: Int) -> Action? { .subscribers(.move(delta)) }

    static func isEmpty(_ state: AppState) -> Bool { state.subscribers.rows.isEmpty && !state.subscribers.complete }

    static func load(_ state: inout AppState, asOf: Instant) -> [Effect] {
        state.subscribers.loading = true
        return subscribersQueries(state, limit: SubscribersPane.pageSize, asOf: asOf)
    }

    static func refresh(_ state: inout AppState, asOf: Instant) -> [Effect] {
        subscribersQueries(state, limit: max(SubscribersPane.pageSize, state.subscribers.rows.count), asOf: asOf)
    }

    static func invalidate(_ state: inout AppState) {
        state.subscribers.rows = []
        state.subscribers.complete = false
    }

    static func render(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
        renderSubscribers(state, in: area, buffer: &buffer, palette: palette)
    }
}
