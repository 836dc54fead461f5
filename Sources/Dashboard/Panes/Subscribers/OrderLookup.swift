import Foundation
import TerminalUI

/// The order ID of Apple's receipt email: letters and digits, 6 to 32 of them (e.g. MK4H9N2XQ1).
public enum OrderID {
    public static func isShaped(_ text: String) -> Bool {
        (6...32).contains(text.count)
            && text.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
    }
}

/// The order ID pane 1's `/` search offers to look up at Apple (README, "Support actions"): the
/// search line is open, what it holds is shaped like an order ID, nobody in the store matches it,
/// and the App Store Server API can be asked (credentials, not read-only). Nil otherwise;
/// `submitted`: the search line was just submitted (and is closed).
func orderLookupOffer(_ state: AppState, submitted: Bool = false) -> String? {
    guard submitted || state.commandLine?.kind == .search, state.pane == .subscribers, !state.readOnly,
        state.appleFetchUnavailable == nil, state.lookingUpOrder == nil
    else { return nil }
    let pane = state.subscribers
    guard let filter = pane.filter, OrderID.isShaped(filter), pane.rows.isEmpty, !pane.loading, pane.count == 0 else {
        return nil
    }
    return filter.uppercased()
}

/// `enter` on the offer: the lookup runs in the background; keys keep working.
func lookUpOrder(_ state: inout AppState, _ order: String) -> [Effect] {
    state.lookingUpOrder = order
    state.notice = "looking up order \(order) at Apple…"
    return [.lookUpOrder(order)]
}

/// Apple answered: the order's subscription opens on pane 2 (the first, when it holds several).
func orderLookedUp(_ state: inout AppState, order: String, ids: [String]) -> [Effect] {
    state.lookingUpOrder = nil
    guard let first = ids.first else {
        state.status = "order \(order): Apple returned no subscription of this app"
        return []
    }
    let effects = openSubscriber(&state, first)
    state.notice =
        "order \(order) from Apple: \(first)"
        + (ids.count > 1 ? " (and \(ids.count - 1) more: \(ids.dropFirst().joined(separator: ", ")))" : "")
    return effects
}

func orderLookupFailed(_ state: inout AppState, order: String, message: String) -> [Effect] {
    state.lookingUpOrder = nil
    state.status = "look up order \(order) at Apple: \(TextSanitizer.visible(message))"
    return []
}
