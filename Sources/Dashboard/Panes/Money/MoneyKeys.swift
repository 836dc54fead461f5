extension MoneyPane {
    /// Pane 6's keys (the row keys every pane has, `j`, `k`, …, are in KeyBindings.swift).
    static let keys: [KeyBinding] = [
        KeyBinding(
            "enter", .money(.open), name: "members",
            description:
                "List the subscriptions behind the movement bar, by movement (after j/k: those whose use of the offer started in the months shown; in a bar's list: open the subscriber)",
            shownInBar: true, panes: [.money]),
        KeyBinding(
            "h", .money(.previousMonth), name: "month -1", description: "Movement of the previous month", shownInBar: true,
            panes: [.money]),
        KeyBinding(
            "left", .money(.previousMonth), name: "month -1", description: "Movement of the previous month", panes: [.money]),
        KeyBinding(
            "l", .money(.nextMonth), name: "month +1", description: "Movement of the next month", shownInBar: true,
            panes: [.money]),
        KeyBinding("right", .money(.nextMonth), name: "month +1", description: "Movement of the next month", panes: [.money]),
        KeyBinding(
            "ctrl-s", .money(.save), name: "save",
            description: "Save the MRR and movement charts as SVG beside the movement's CSV",
            panes: [.money]),
        KeyBinding(
            "s", .money(.cycleOfferOrder), name: "sort", description: "Order the offers by offer, conversion or P6 retention",
            shownInBar: true, panes: [.money]),
        KeyBinding(
            "c", .money(.cycleCurrency), name: "currency", description: "Chart revenue in the next currency", shownInBar: true,
            panes: [.money]),
    ]
}
