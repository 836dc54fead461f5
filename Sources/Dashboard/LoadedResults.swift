import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel

// What comes back from the effects that load a pane: the state takes it, unless it answers a
// question the user has stopped asking.

/// A query failed: nothing is loading any more, and the status line says why.
func loadFailed(_ state: inout AppState, _ message: String) {
    state.exporting = false
    for pane in Pane.allCases { state[keyPath: pane.loadingFlag] = false }
    state.subscribers.openWhenLoaded = nil
    state.money.membersLoading = nil
    state.status = message
}
