import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// The dashboard's panes, in tab order; the number key of a pane is `rawValue + 1`.
public enum Pane: Int, CaseIterable, Hashable, Sendable {
    case subscribers, subscriber, cohorts, statesEvents, offers, money, trends

    /// Whether the pane waits for a load in the background.
    var loadingFlag: WritableKeyPath<AppState, Bool> {
        switch self {
        case .subscribers: \.subscribers.loading
        case .subscriber: \.subscriber.loading
        case .cohorts: \.cohorts.loading
        case .statesEvents: \.statesEvents.loading
        case .offers: \.offers.loading
        case .money: \.money.loading
        case .trends: \.trends.loading
        }
    }

    public var title: String {
        switch self {
        case .subscribers: "Subscribers"
        case .subscriber: "Subscriber"
        case .cohorts: "Cohorts"
        case .statesEvents: "States & Events"
        case .offers: "Offers"
        case .money: "Money"
        case .trends: "Trends"
        }
    }

    /// The tab's title when the tab row is short of room.
    public var shortTitle: String {
        switch self {
        case .subscribers: "Subs"
        case .subscriber: "Sub"
        case .statesEvents: "States"
        default: title
        }
    }
}

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

/// Where `esc` goes back to: a pane, and what pane 1 listed then.
public struct Location: Equatable, Sendable {
    public var pane: Pane
    public var list: SubscriberListView
    /// The row pane 1's cursor was on.
    public var selected: Int
}

/// The list of pane 2 that `j`, `k`, `G` and `g g` move in.
public enum SubscriberFocus: Equatable, Sendable {
    case periods, events
}

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

public struct CohortsPane: Equatable, Sendable {
    /// A cohort cell whose rate rests on fewer members than this is dimmed.
    public static let fewMembers = 10

    public var grid: CohortGrid?
    public var loading = false
    public var row = 0
    public var column = 0
    /// The billing duration shown (`d` cycles it); nil: every duration.
    public var duration: BillingDuration?
    /// Whether `duration` is settled: until the first grid arrives, the store's most common
    /// billing duration is asked for; `d` settles it too.
    public var durationChosen = false
    /// `duration` is the store's most common one, chosen as the default (the title says so).
    public var durationIsDefault = false
    /// The billing durations of the store's products, shortest first: what `d` cycles through.
    public var durations: [BillingDuration] = []

    /// `t`: the selected column's rate across cohorts as a line instead of the grid.
    public var trend = false

    /// The durations `d` steps through: every duration, then each the store has.
    public var durationChoices: [BillingDuration?] { [nil] + durations.map(Optional.some) }
}

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

extension OwnershipFilter {
    /// The next choice of `o`: purchased → family-shared → all.
    var next: OwnershipFilter {
        switch self {
        case .purchased: .familyShared
        case .familyShared: .all
        case .all: .purchased
        }
    }

    /// How a pane title says it.
    public var title: String {
        switch self {
        case .purchased: "purchased"
        case .familyShared: "family-shared"
        case .all: "all ownerships"
        }
    }
}

/// What to open when the Subscribers list arrives.
public enum OpenIntent: Equatable, Sendable {
    /// The row under the cursor (an `enter` typed ahead of the results).
    case selected
    /// The only row, as `:user ID` asks; several rows stay listed.
    case single(String)
}

public enum Overlay: Equatable, Sendable {
    case help
    case message(title: String, text: String)
}

/// What the command line at the bottom is collecting.
public enum CommandKind: Equatable, Sendable {
    case search
    case command
    /// The text filter of the Offers lists.
    case filter
    /// A regular expression whose matching rows are marked (true) or unmarked.
    case markPattern(mark: Bool)
    /// The note of the flag the confirm dialog is about to set.
    case note
}

public struct CommandEntry: Equatable, Sendable {
    public var kind: CommandKind
    public var prompt: Prompt
}

/// Everything the dashboard shows; `update` is the only thing that changes it.
public struct AppState: Equatable, Sendable {
    public var pane: Pane = .subscribers
    /// What `esc` unwinds, latest last: every pane switch, drill-down, search and `:user`.
    public var history: [Location] = []
    public var asOf: Instant?
    public var scope = ReportScope()
    public var subscribers = SubscribersPane()
    public var subscriber = SubscriberPane()
    public var cohorts = CohortsPane()
    public var statesEvents = StatesEventsPane()
    public var offers = OffersPane()
    public var money = MoneyPane()
    public var trends = TrendsPane()
    /// How charts draw (`:chart braille|block|ascii`): braille in a UTF-8 locale, else blocks.
    public var chartGlyphs = ChartGlyphs.braille
    /// Marked subscriptions by original transaction id: survives paging, filtering and reloads.
    public var marks: Set<String> = []
    public var storeWatch = StoreWatch()
    public var commandLine: CommandEntry?
    /// `:` lines submitted so far, oldest first (↑ recalls them).
    public var commandHistory: [String] = []
    /// Pane 1's `/` searches submitted so far, oldest first (↑ recalls them; `/` starts empty).
    public var searchHistory: [String] = []
    public var overlay: Overlay?
    /// The first line the help overlay shows.
    public var helpScroll = 0
    /// The first line a message overlay (`:support`, `:log`) shows when it is taller than the
    /// screen (MessageOverlay.swift).
    public var messageScroll = 0
    /// The screen's rows as the session last saw them (nil: not known, as in tests without a
    /// session): how far a message overlay can scroll.
    public var screenRows: Int?
    /// The mass extensions polled in the background (MassExtensionWatch.swift).
    public var massExtensions = MassExtensionWatch()
    /// A flag change waiting for yes or no.
    public var confirmation: Confirmation?
    /// The offer catalogue the flag dialog names offers from; nil: the dashboard has none.
    public var catalogueOffers: CatalogueOffers?
    /// The keys of a sequence typed so far (`g` of `g s`).
    public var pendingKeys: [KeyEvent] = []
    /// An error, shown in the status line until the next load.
    public var status: String?
    /// What just happened ("flagged 2 …", "exported … to …"), shown when there is no error.
    public var notice: String?
    /// An export is being written: its notice shows even while a pane loads (an export started
    /// while pane 5 streams reads its whole list, which takes as long).
    public var exporting = false
    public var shouldQuit = false
    /// Opened with `--read-only`: no action that writes to the store is offered.
    public var readOnly = false
    /// Who flag changes are written as (`--operator NAME`, else `$USER`, else the login name).
    public var operatorName = "unknown"
    /// Why the writing keys are off, when `readOnly`.
    public var readOnlyReason = "the dashboard was opened with --read-only"
    /// Why `R` cannot fetch from Apple (no App Store Server API credentials), or nil when it can.
    public var appleFetchUnavailable: String? = "no App Store Server API credentials"
    /// Subscriptions being fetched from Apple in the background.
    public var fetchingFromApple: Set<String> = []
    /// The order ID being looked up at Apple (OrderLookup.swift), while it runs.
    public var lookingUpOrder: String?
    /// Pane 2's `x` dialog, while open.
    public var extensionDialog: ExtensionDialog?
    /// The subscription whose extension is being sent to Apple, while it is.
    public var extending: String?
    /// The `:answer` form (ConsumptionForm.swift), while open.
    public var consumptionForm: ConsumptionForm?
    /// Advances each tick while a fetch runs: the spinner's frame.
    public var spinnerFrame = 0
    /// Which store this is, shown at the right of the status line when set (the demo's path).
    public var storeLabel: String?
    /// How far behind the team log the store is ("team log: 0 behind"), for a dashboard that
    /// follows one (docs/team.md); nil without a team log.
    public var teamLog: String?
    /// The theme `:theme` switched to; nil: the one the dashboard was started with.
    public var theme: Theme?
    /// Theme names `:theme` completes.
    public var themeNames: [String] = []
    /// Product ids `:product` completes.
    public var products: [String] = []

    /// The scope of pane 1's list: the dashboard's, with the pane's ownership; a search (outside a
    /// drill-down) finds every environment, each row saying which.
    public var subscribersScope: ReportScope {
        var s = scope
        s.ownership = subscribers.view.queriedOwnership
        if subscribers.view.filter != nil, subscribers.view.queriedPopulation == nil { s.environment = .all }
        return s
    }

    /// The scope of pane 4's figures: the dashboard's, with the pane's ownership.
    public var statesEventsScope: ReportScope {
        var s = scope
        s.ownership = statesEvents.ownership
        return s
    }

    public init(
        asOf: Instant? = nil, scope: ReportScope = ReportScope(), readOnly: Bool = false,
        operatorName: String = "unknown", themeNames: [String] = []
    ) {
        self.asOf = asOf
        self.scope = scope
        self.readOnly = readOnly
        self.operatorName = operatorName
        self.themeNames = themeNames
    }
}
