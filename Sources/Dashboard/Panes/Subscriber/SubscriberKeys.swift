extension SubscriberPane {
    /// Pane 2's keys (the row keys every pane has, `j`, `k`, …, are in KeyBindings.swift).
    static let keys: [KeyBinding] = [
        KeyBinding(
            "e", .subscriber(.switchFocus), name: "periods/events", description: "Move the focus between periods and events",
            shownInBar: true, panes: [.subscriber]),
        KeyBinding(
            "f", .subscriber(.flag), name: "flag", description: "Flag this subscriber for an offer", shownInBar: true,
            panes: [.subscriber], writes: true),
        KeyBinding(
            "F", .subscriber(.clearFlag), name: "unflag", description: "Clear an offer flag on this subscriber",
            panes: [.subscriber], writes: true),
        KeyBinding(
            "R", .subscriber(.fetchFromApple), name: "fetch",
            description: "Fetch this subscriber's history and statuses from Apple (App Store Server API credentials)",
            shownInBar: true, panes: [.subscriber], writes: true),
        KeyBinding(
            "x", .subscriber(.extend), name: "extend",
            description:
                "Extend this subscriber's renewal date at Apple: days, reason, the new date (App Store Server API credentials)",
            panes: [.subscriber], writes: true),
    ]
}
