extension TrendsPane {
    /// Pane 7's keys (the row keys every pane has, `j`, `k`, …, are in KeyBindings.swift).
    static let keys: [KeyBinding] = [
        KeyBinding(
            "m", .trends(.cycleMetric(1)), name: "metric",
            description: "Next metric: active, mrr, committed, each state, each event type (as :metric NAME)",
            shownInBar: true, panes: [.trends]),
        KeyBinding("M", .trends(.cycleMetric(-1)), name: "metric -1", description: "Previous metric", panes: [.trends]),
        KeyBinding(
            "]", .trends(.stepRange(1)), name: "range +", description: "Longer range: 30d, 90d, 6m, 1y, 2y, all (as :range)",
            shownInBar: true, panes: [.trends]),
        KeyBinding("[", .trends(.stepRange(-1)), name: "range -", description: "Shorter range", panes: [.trends]),
        KeyBinding(
            "b", .trends(.cycleBucket), name: "bucket", description: "Buckets of a day, a week or a month",
            shownInBar: true, panes: [.trends]),
        KeyBinding(
            "h", .trends(.moveCursor(-1)), name: "◂", description: "Cursor to the bucket before", panes: [.trends]),
        KeyBinding(
            "left", .trends(.moveCursor(-1)), name: "◂", description: "Cursor to the bucket before", panes: [.trends]),
        KeyBinding("l", .trends(.moveCursor(1)), name: "▸", description: "Cursor to the bucket after", panes: [.trends]),
        KeyBinding(
            "right", .trends(.moveCursor(1)), name: "▸", description: "Cursor to the bucket after", panes: [.trends]),
        KeyBinding("H", .trends(.moveCursor(-10)), name: "◂◂", description: "Cursor ten buckets back", panes: [.trends]),
        KeyBinding("L", .trends(.moveCursor(10)), name: "▸▸", description: "Cursor ten buckets on", panes: [.trends]),
        KeyBinding(
            "enter", .trends(.open), name: "subscriptions",
            description:
                "List the subscriptions behind the point: in the state (paying, for money) at its end, or whose event falls in it",
            shownInBar: true, panes: [.trends]),
        KeyBinding(
            "c", .trends(.cycleCurrency), name: "currency", description: "Money in the next currency", panes: [.trends]),
        KeyBinding(
            "ctrl-s", .trends(.save), name: "save",
            description: "Save the chart as an SVG picture beside its figures as CSV", shownInBar: true, panes: [.trends]),
    ]
}
