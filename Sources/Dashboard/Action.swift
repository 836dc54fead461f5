import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// Everything that can happen to the dashboard: keys, commands bound to keys, and query results.
public enum Action: Equatable, Sendable {
    case start
    case key(KeyEvent)
    case switchPane(Pane)
    case nextPane
    case previousPane
    case back
    case quit
    case toggleHelp
    case startSearch
    case startCommand
    case move(Int)
    case moveColumn(Int)
    case open
    case toggleMark
    case reload
    /// About once a second from the run loop: time to look for changes by others.
    case tick

    case loadedHorizon(Instant?)
    case loadedSubscribers(offset: Int, rows: [SubscriberRow])
    case loadedSubscriber(SubscriberReport)
    case loadedCohorts(CohortGrid)
    case loadedStatesEvents(StatesEventsFigures)
    /// The store's change counter; nil when it could not be read this time.
    case storeVersion(Int?)
    case refreshedHorizon(Instant?)
    case failed(String)
}

/// Work `update` asks for; an `EffectRunner` does it off the UI thread and answers with an `Action`.
public enum Effect: Equatable, Sendable {
    case loadHorizon
    case loadSubscribers(offset: Int, limit: Int, asOf: Instant, scope: ReportScope, filter: String?)
    case loadSubscriber(id: String, asOf: Instant)
    case loadCohorts(asOf: Instant, scope: ReportScope)
    case loadStatesEvents(asOf: Instant, month: Month, scope: ReportScope)
    case checkStore
    case refreshHorizon
}
