extension CohortsPane {
    /// Pane 3's keys (the row keys every pane has, `j`, `k`, …, are in KeyBindings.swift).
    static let keys: [KeyBinding] = [
        KeyBinding(
            "enter", .cohorts(.openRetained), name: "retained",
            description: "List the cohort's subscribers retained at the cell's paid period",
            shownInBar: true, panes: [.cohorts]),
        KeyBinding(
            "c", .cohorts(.openEnded), name: "ended",
            description: "List the cohort's subscribers who ended by the cell's paid period",
            shownInBar: true, panes: [.cohorts]),
        KeyBinding(
            "d", .cohorts(.cycleDuration), name: "duration",
            description: "Next billing duration (every one, then weekly, monthly, … as the products have)",
            shownInBar: true, panes: [.cohorts]),
        KeyBinding(
            "t", .cohorts(.toggleTrend), name: "trend",
            description: "Show the column's rate across cohorts as a line (is P3 retention improving?), or the grid again",
            shownInBar: true, panes: [.cohorts]),
        KeyBinding("right", .cohorts(.moveColumn(1)), name: "right", description: "Next column", panes: [.cohorts]),
        KeyBinding("l", .cohorts(.moveColumn(1)), name: "right", description: "Next column", panes: [.cohorts]),
        KeyBinding(
            "left", .cohorts(.moveColumn(-1)), name: "left", description: "Previous column", panes: [.cohorts]),
        KeyBinding("h", .cohorts(.moveColumn(-1)), name: "left", description: "Previous column", panes: [.cohorts]),
    ]
}
