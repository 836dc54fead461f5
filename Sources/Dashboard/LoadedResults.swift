import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel

// What comes back from the effects that load a pane is taken by the pane (its `…Loaded` functions
// in its folder under Panes/), unless it answers a question the user has stopped asking; a failure
// of any of them is handled here.

/// A query failed: nothing is loading any more, and the status line says why.
func loadFailed(_ state: inout AppState, _ message: String) {
    state.exporting = false
    for pane in Pane.allCases { state[keyPath: pane.loadingFlag] = false }
    state.subscribers.openWhenLoaded = nil
    state.money.membersLoading = nil
    state.status = message
}
