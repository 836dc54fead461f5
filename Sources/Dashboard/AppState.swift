import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// The dashboard's panes, in tab order; the number key of a pane is `rawValue + 1`.
public enum Pane: Int, CaseIterable, Hashable, Sendable {
    case subscribers, subscriber, cohorts, statesEvents

    public var title: String {
        switch self {
        case .subscribers: "Subscribers"
        case .subscriber: "Subscriber"
        case .cohorts: "Cohorts"
        case .statesEvents: "States & Events"
        }
    }
}

public struct SubscribersPane: Equatable, Sendable {
    public static let pageSize = 100
    public var rows: [SubscriberRow] = []
    public var selected = 0
    public var filter: String?
    public var loading = false
    /// The last page came back short: there is nothing more to fetch.
    public var complete = false
    public var selectedId: String? { rows.indices.contains(selected) ? rows[selected].id : nil }
}

public struct SubscriberPane: Equatable, Sendable {
    public var id: String?
    public var report: SubscriberReport?
    public var loading = false
    public var scroll = 0
}

public struct CohortsPane: Equatable, Sendable {
    public var grid: CohortGrid?
    public var loading = false
    public var row = 0
    public var column = 0
}

public struct StatesEventsPane: Equatable, Sendable {
    public var figures: StatesEventsFigures?
    /// The month whose events are shown; nil: the month of as-of.
    public var month: Month?
    public var loading = false
}

public enum Overlay: Equatable, Sendable {
    case help
    case message(title: String, text: String)
}

/// What the command line at the bottom is collecting.
public enum CommandKind: Equatable, Sendable {
    case search
    case command
}

public struct CommandEntry: Equatable, Sendable {
    public var kind: CommandKind
    public var prompt: Prompt
}

/// Everything the dashboard shows; `update` is the only thing that changes it.
public struct AppState: Equatable, Sendable {
    public var pane: Pane = .subscribers
    public var history: [Pane] = []
    public var asOf: Instant?
    public var scope = ReportScope()
    public var subscribers = SubscribersPane()
    public var subscriber = SubscriberPane()
    public var cohorts = CohortsPane()
    public var statesEvents = StatesEventsPane()
    /// Marked subscriptions by original transaction id: survives paging, filtering and reloads.
    public var marks: Set<String> = []
    public var storeWatch = StoreWatch()
    public var commandLine: CommandEntry?
    public var overlay: Overlay?
    public var status: String?
    public var shouldQuit = false

    public init(asOf: Instant? = nil, scope: ReportScope = ReportScope()) {
        self.asOf = asOf
        self.scope = scope
    }
}
