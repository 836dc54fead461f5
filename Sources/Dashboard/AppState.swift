import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// Where `esc` goes back to: a pane, and what pane 1 listed then.
public struct Location: Equatable, Sendable {
    public var pane: Pane
    public var list: SubscriberListView
    /// The row pane 1's cursor was on.
    public var selected: Int
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
