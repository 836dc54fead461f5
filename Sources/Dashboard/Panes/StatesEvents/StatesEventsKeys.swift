extension StatesEventsPane {
    /// Pane 4's keys (the row keys every pane has, `j`, `k`, …, are in KeyBindings.swift).
    static let keys: [KeyBinding] = [
        KeyBinding(
            "enter", .statesEvents(.open), name: "members", description: "List the subscribers behind the row", shownInBar: true,
            panes: [.statesEvents]),
        KeyBinding(
            "h", .statesEvents(.previousMonth), name: "month -1", description: "Events of the previous month", shownInBar: true,
            panes: [.statesEvents]),
        KeyBinding(
            "left", .statesEvents(.previousMonth), name: "month -1", description: "Events of the previous month",
            panes: [.statesEvents]),
        KeyBinding(
            "l", .statesEvents(.nextMonth), name: "month +1", description: "Events of the next month", shownInBar: true,
            panes: [.statesEvents]),
        KeyBinding(
            "right", .statesEvents(.nextMonth), name: "month +1", description: "Events of the next month", panes: [.statesEvents]),
        KeyBinding(
            "o", .statesEvents(.cycleOwnership), name: "ownership",
            description: "Count purchased, family-shared (Family Sharing) or all subscriptions", shownInBar: true,
            panes: [.statesEvents]),
    ]
}
