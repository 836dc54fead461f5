extension SubscribersPane {
    /// Pane 1's keys (the row keys every pane has, `j`, `k`, …, are in KeyBindings.swift).
    static let keys: [KeyBinding] = [
        KeyBinding(
            "/", .subscribers(.search), name: "filter",
            description: "Filter the list as you type: any id, user id or email, by prefix or part, any case",
            shownInBar: true, panes: [.subscribers]),
        KeyBinding(
            "enter", .subscribers(.open), name: "open", description: "Open the selected subscriber", shownInBar: true,
            panes: [.subscribers]),
        KeyBinding(
            "space", .subscribers(.mark(.toggle)), name: "mark", description: "Mark or unmark the row", shownInBar: true,
            panes: [.subscribers]),
        KeyBinding(
            "f", .subscribers(.flag), name: "flag", description: "Flag the marked rows (or the cursor row) for an offer",
            shownInBar: true, panes: [.subscribers], writes: true),
        KeyBinding(
            "F", .subscribers(.clearFlag), name: "unflag",
            description: "Clear an offer flag on the marked rows (or the cursor row)",
            panes: [.subscribers], writes: true),
        KeyBinding(
            "ctrl-s", .subscribers(.export), name: "export", description: "Export every subscriber of the list to a CSV file",
            panes: [.subscribers]),
        KeyBinding(
            "[", .subscribers(.sort(ascending: true)), name: "sort ↑",
            description: "Sort ascending by the column under the cursor",
            panes: [.subscribers]),
        KeyBinding(
            "]", .subscribers(.sort(ascending: false)), name: "sort ↓",
            description: "Sort descending by the column under the cursor",
            panes: [.subscribers]),
        KeyBinding("right", .subscribers(.moveColumn(1)), name: "right", description: "Next column", panes: [.subscribers]),
        KeyBinding("l", .subscribers(.moveColumn(1)), name: "right", description: "Next column", panes: [.subscribers]),
        KeyBinding(
            "left", .subscribers(.moveColumn(-1)), name: "left", description: "Previous column", panes: [.subscribers]),
        KeyBinding("h", .subscribers(.moveColumn(-1)), name: "left", description: "Previous column", panes: [.subscribers]),
        KeyBinding(
            "o", .subscribers(.cycleOwnership), name: "ownership",
            description: "List all, purchased or family-shared (Family Sharing) subscriptions", panes: [.subscribers]),
    ]
}
