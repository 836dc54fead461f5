extension OffersPane {
    /// Pane 5's keys (the row keys every pane has, `j`, `k`, …, are in KeyBindings.swift).
    static let keys: [KeyBinding] = [
        KeyBinding(
            "/", .offers(.filter), name: "filter", description: "Filter the list by text in any column", shownInBar: true,
            panes: [.offers]),
        KeyBinding(
            "enter", .offers(.open), name: "open",
            description: "Open the selected subscriber; on the campaigns list, list the subscribers at the column's step",
            shownInBar: true, panes: [.offers]),
        KeyBinding(
            "space", .offers(.mark(.toggle)), name: "mark", description: "Mark or unmark the row", shownInBar: true,
            panes: [.offers]),
        KeyBinding("s", .offers(.mark(.mark)), name: "mark", description: "Mark the row", panes: [.offers]),
        KeyBinding("u", .offers(.mark(.unmark)), name: "unmark", description: "Unmark the row", panes: [.offers]),
        KeyBinding("t", .offers(.mark(.toggle)), name: "toggle", description: "Toggle the row's mark", panes: [.offers]),
        KeyBinding("g s", .offers(.markAll(.mark)), name: "mark all", description: "Mark every shown row", panes: [.offers]),
        KeyBinding(
            "g u", .offers(.markAll(.unmark)), name: "unmark all", description: "Unmark every shown row", panes: [.offers]),
        KeyBinding(
            "g t", .offers(.markAll(.toggle)), name: "toggle all", description: "Toggle the mark of every shown row",
            panes: [.offers]),
        KeyBinding(
            "ctrl-space", .offers(.markRange), name: "mark range", description: "Mark from the last marked row to the cursor",
            panes: [.offers]),
        KeyBinding(
            "|", .offers(.markMatching(true)), name: "mark matching",
            description: "Mark the rows whose cell in this column matches a regular expression", panes: [.offers]),
        KeyBinding(
            "\\", .offers(.markMatching(false)), name: "unmark matching",
            description: "Unmark the rows whose cell in this column matches a regular expression", panes: [.offers]),
        KeyBinding("}", .offers(.jumpToMark(1)), name: "next mark", description: "Go to the next marked row", panes: [.offers]),
        KeyBinding(
            "{", .offers(.jumpToMark(-1)), name: "previous mark", description: "Go to the previous marked row", panes: [.offers]),
        KeyBinding(
            "ctrl-\\", .offers(.markAll(.unmark)), name: "unmark all", description: "Unmark every shown row", panes: [.offers]),
        KeyBinding(
            "f", .offers(.flag), name: "flag", description: "Flag the marked rows (or the cursor row) for an offer",
            shownInBar: true, panes: [.offers], writes: true),
        KeyBinding(
            "F", .offers(.clearFlag), name: "unflag", description: "Clear an offer flag on the marked rows (or the cursor row)",
            panes: [.offers], writes: true),
        KeyBinding(
            "ctrl-s", .offers(.export), name: "export", description: "Export the shown rows to a CSV file", panes: [.offers]),
        KeyBinding(
            ">", .offers(.cycleList(1)), name: "next list", description: "Next offer list", shownInBar: true, panes: [.offers]),
        KeyBinding("<", .offers(.cycleList(-1)), name: "previous list", description: "Previous offer list", panes: [.offers]),
        KeyBinding(
            "[", .offers(.sort(ascending: true)), name: "sort ↑", description: "Sort ascending by the column under the cursor",
            panes: [.offers]),
        KeyBinding(
            "]", .offers(.sort(ascending: false)), name: "sort ↓", description: "Sort descending by the column under the cursor",
            panes: [.offers]),
        KeyBinding("right", .offers(.moveColumn(1)), name: "right", description: "Next column", panes: [.offers]),
        KeyBinding("l", .offers(.moveColumn(1)), name: "right", description: "Next column", panes: [.offers]),
        KeyBinding(
            "left", .offers(.moveColumn(-1)), name: "left", description: "Previous column", panes: [.offers]),
        KeyBinding("h", .offers(.moveColumn(-1)), name: "left", description: "Previous column", panes: [.offers]),
    ]
}
