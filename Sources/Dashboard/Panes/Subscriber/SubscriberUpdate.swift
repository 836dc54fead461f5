import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// Pane 2's intents: the cursor in its lists, and what can be done to the subscriber shown.
func subscriberUpdate(_ state: inout AppState, _ intent: SubscriberIntent) -> [Effect] {
    switch intent {
    case .move(let delta):
        // The cursor moves in the focused list and stays on a row of it, whatever the screen size.
        let pane = state.subscriber
        switch pane.focus {
        case .periods:
            let count = pane.report?.timeline.periods.count ?? 0
            state.subscriber.periodRow = clamp(pane.shownPeriodRow + delta, 0, max(0, count - 1))
        case .events:
            let count = pane.report?.events.count ?? 0
            state.subscriber.eventRow = clamp(pane.shownEventRow + delta, 0, max(0, count - 1))
        }
        return []
    case .switchFocus:
        state.subscriber.focus = state.subscriber.focus == .periods ? .events : .periods
        return []
    case .flag:
        return confirmSubscriberFlag(&state, clear: false)
    case .clearFlag:
        return confirmSubscriberFlag(&state, clear: true)
    case .fetchFromApple:
        return fetchFromApple(&state)
    case .extend:
        return startExtension(&state)
    }
}

/// The report arrived (dropped when another subscriber has been opened since).
func subscriberLoaded(_ state: inout AppState, _ report: SubscriberReport) {
    guard report.originalTransactionId == state.subscriber.id else { return }
    state.subscriber.report = report
    state.subscriber.loading = false
}

/// `f` / `F`: the subscriber shown, through the same dialog as pane 5. Flagging starts at
/// `service` (what support flags from here; `o` picks another); clearing at the subscriber's first flag.
private func confirmSubscriberFlag(_ state: inout AppState, clear: Bool) -> [Effect] {
    guard flagsAreWritable(&state) else { return [] }
    guard let report = state.subscriber.report else {
        state.notice = "nothing to \(clear ? "unflag" : "flag"): no subscriber shown"
        return []
    }
    let offer: OfferFlagKind
    if clear {
        guard let first = report.flags.first?.offer else {
            state.notice = "\(TextSanitizer.strip(report.originalTransactionId)) has no flag to clear"
            return []
        }
        offer = first
    } else {
        offer = .service
    }
    // The subscriber's flags go to the dialog, so it says "already flagged by … on …" and keeps them.
    state.confirmation = Confirmation(offer: offer, ids: [report.originalTransactionId], clear: clear, existing: report.flags)
    state.confirmation?.catalogue = state.catalogueOffers
    return []
}

/// `R`: starts a background fetch of the subscriber from Apple, unless one
/// runs already or there are no credentials (then the notice says why).
private func fetchFromApple(_ state: inout AppState) -> [Effect] {
    guard let id = state.subscriber.id else {
        state.notice = "fetch: open a subscriber first"
        return []
    }
    if let reason = state.appleFetchUnavailable {
        state.notice = "fetch from Apple is unavailable: \(reason)"
        return []
    }
    guard !state.fetchingFromApple.contains(id) else {
        state.notice = "already fetching \(id) from Apple"
        return []
    }
    state.fetchingFromApple.insert(id)
    state.notice = "fetching \(id)'s history and statuses from Apple…"
    return [.fetchFromApple(id: id)]
}

/// A fetch from Apple finished: the notice says what came, and the pane shows it in place.
func fetchedFromApple(_ state: inout AppState, _ id: String, summary: String) -> [Effect] {
    state.fetchingFromApple.remove(id)
    state.notice = "\(id) from Apple: \(summary)"
    // The pane updates in place (as it does when the store watch sees another commit).
    if state.subscriber.id == id {
        if state.pane == .subscriber { return refresh(&state, .subscriber) }
        state.storeWatch.stale.insert(.subscriber)
    }
    return []
}

/// Opens subscriber `id` on pane 2.
func openSubscriber(_ state: inout AppState, _ id: String) -> [Effect] {
    state.subscriber = SubscriberPane(id: id)
    _ = update(&state, .switchPane(.subscriber))
    return load(&state, .subscriber)
}
