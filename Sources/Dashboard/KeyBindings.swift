import TerminalUI

/// One binding: the table the key dispatch, the help bar and the `?` overlay are all drawn from.
public struct KeyBinding: Equatable, Sendable {
    public var chord: KeyChord
    public var action: Action
    public var name: String
    public var description: String
    public var shownInBar: Bool
    /// nil: everywhere; otherwise only on these panes.
    public var panes: Set<Pane>?
    /// Writes to the store: hidden, and refused, in `--read-only`.
    public var writes: Bool

    public init(
        _ chord: String, _ action: Action, name: String, description: String, shownInBar: Bool = false,
        panes: Set<Pane>? = nil, writes: Bool = false
    ) {
        do {
            self.chord = try KeyChord(parsing: chord)
        } catch {
            preconditionFailure("bad built-in key chord: \(error)")
        }
        self.action = action
        self.name = name
        self.description = description
        self.shownInBar = shownInBar
        self.panes = panes
        self.writes = writes
    }

    public func applies(to pane: Pane) -> Bool { panes.map { $0.contains(pane) } ?? true }

    /// Offered on `pane` in this mode: the bindings the help bar and `?` list.
    public func isOffered(on pane: Pane, readOnly: Bool) -> Bool { applies(to: pane) && !(readOnly && writes) }
}

public enum KeyBindings {
    public static let all: [KeyBinding] = [
        KeyBinding("q", .quit, name: "quit", description: "Quit the dashboard", shownInBar: true),
        KeyBinding(
            "ctrl-c", .quit, name: "quit",
            description: "Quit the dashboard from anywhere (a prompt or a dialog too; q or ctrl-c at \"Terminal too small\")"),
        KeyBinding("?", .toggleHelp, name: "help", description: "Show or hide this help", shownInBar: true),
        KeyBinding("tab", .nextPane, name: "next", description: "Next pane", shownInBar: true),
        KeyBinding("shift-tab", .previousPane, name: "previous", description: "Previous pane"),
        KeyBinding("1", .switchPane(.subscribers), name: "subscribers", description: "Go to Subscribers"),
        KeyBinding("2", .switchPane(.subscriber), name: "subscriber", description: "Go to Subscriber"),
        KeyBinding("3", .switchPane(.cohorts), name: "cohorts", description: "Go to Cohorts"),
        KeyBinding("4", .switchPane(.statesEvents), name: "states", description: "Go to States & Events"),
        KeyBinding("5", .switchPane(.offers), name: "offers", description: "Go to Offers"),
        KeyBinding("6", .switchPane(.money), name: "money", description: "Go to Money"),
        KeyBinding("7", .switchPane(.trends), name: "trends", description: "Go to Trends"),
        KeyBinding(
            "esc", .back, name: "back", description: "Back: undo the last pane switch, drill-down or search", shownInBar: true),
        KeyBinding("-", .back, name: "back", description: "Back: undo the last pane switch, drill-down or search"),
        KeyBinding(
            "/", .startSearch, name: "filter",
            description: "Filter the list as you type: any id, user id or email, by prefix or part, any case",
            shownInBar: true, panes: [.subscribers]),
        KeyBinding(
            "/", .startSearch, name: "filter", description: "Filter the list by text in any column", shownInBar: true,
            panes: [.offers]),
        KeyBinding(
            ":", .startCommand, name: "command",
            description:
                "Command line (:user ID, :asof DATE, :product ID, :env NAME, :plan PLAN, :state NAME, :theme NAME, :log [ID], :support (consumption requests, mass extensions), :answer ID, :metric NAME, :range 90d/1y/all, :chart braille/block/ascii, :q; tab completes)"
        ),
        KeyBinding(
            "enter", .open, name: "open", description: "Open the selected subscriber", shownInBar: true,
            panes: [.subscribers]),
        KeyBinding(
            "enter", .open, name: "open",
            description: "Open the selected subscriber; on the campaigns list, list the subscribers at the column's step",
            shownInBar: true, panes: [.offers]),
        KeyBinding(
            "enter", .open, name: "retained", description: "List the cohort's subscribers retained at the cell's paid period",
            shownInBar: true, panes: [.cohorts]),
        KeyBinding(
            "c", .openEnded, name: "ended", description: "List the cohort's subscribers who ended by the cell's paid period",
            shownInBar: true, panes: [.cohorts]),
        KeyBinding(
            "d", .cycleDuration, name: "duration",
            description: "Next billing duration (every one, then weekly, monthly, … as the products have)",
            shownInBar: true, panes: [.cohorts]),
        KeyBinding(
            "enter", .open, name: "members", description: "List the subscribers behind the row", shownInBar: true,
            panes: [.statesEvents]),
        KeyBinding(
            "enter", .open, name: "members",
            description:
                "List the subscriptions behind the movement bar, by movement (after j/k: those whose use of the offer started in the months shown; in a bar's list: open the subscriber)",
            shownInBar: true, panes: [.money]),
        KeyBinding(
            "h", .moveColumn(-1), name: "month -1", description: "Movement of the previous month", shownInBar: true,
            panes: [.money]),
        KeyBinding("left", .moveColumn(-1), name: "month -1", description: "Movement of the previous month", panes: [.money]),
        KeyBinding(
            "l", .moveColumn(1), name: "month +1", description: "Movement of the next month", shownInBar: true, panes: [.money]),
        KeyBinding("right", .moveColumn(1), name: "month +1", description: "Movement of the next month", panes: [.money]),
        KeyBinding(
            "ctrl-s", .export, name: "save", description: "Save the MRR and movement charts as SVG beside the movement's CSV",
            panes: [.money]),
        KeyBinding(
            "t", .toggleTrend, name: "trend",
            description: "Show the column's rate across cohorts as a line (is P3 retention improving?), or the grid again",
            shownInBar: true, panes: [.cohorts]),
        KeyBinding(
            "s", .cycleOfferOrder, name: "sort", description: "Order the offers by offer, conversion or P6 retention",
            shownInBar: true, panes: [.money]),
        KeyBinding(
            "c", .cycleCurrency, name: "currency", description: "Chart revenue in the next currency", shownInBar: true,
            panes: [.money]),
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
        KeyBinding(
            "space", .mark(.toggle), name: "mark", description: "Mark or unmark the row", shownInBar: true,
            panes: [.subscribers, .offers]),
        KeyBinding("s", .mark(.mark), name: "mark", description: "Mark the row", panes: [.offers]),
        KeyBinding("u", .mark(.unmark), name: "unmark", description: "Unmark the row", panes: [.offers]),
        KeyBinding("t", .mark(.toggle), name: "toggle", description: "Toggle the row's mark", panes: [.offers]),
        KeyBinding("g s", .markAll(.mark), name: "mark all", description: "Mark every shown row", panes: [.offers]),
        KeyBinding("g u", .markAll(.unmark), name: "unmark all", description: "Unmark every shown row", panes: [.offers]),
        KeyBinding(
            "g t", .markAll(.toggle), name: "toggle all", description: "Toggle the mark of every shown row",
            panes: [.offers]),
        KeyBinding(
            "ctrl-space", .markRange, name: "mark range", description: "Mark from the last marked row to the cursor",
            panes: [.offers]),
        KeyBinding(
            "|", .markMatching(true), name: "mark matching",
            description: "Mark the rows whose cell in this column matches a regular expression", panes: [.offers]),
        KeyBinding(
            "\\", .markMatching(false), name: "unmark matching",
            description: "Unmark the rows whose cell in this column matches a regular expression", panes: [.offers]),
        KeyBinding("}", .jumpToMark(1), name: "next mark", description: "Go to the next marked row", panes: [.offers]),
        KeyBinding("{", .jumpToMark(-1), name: "previous mark", description: "Go to the previous marked row", panes: [.offers]),
        KeyBinding("ctrl-\\", .markAll(.unmark), name: "unmark all", description: "Unmark every shown row", panes: [.offers]),
        KeyBinding(
            "f", .flag, name: "flag", description: "Flag the marked rows (or the cursor row) for an offer",
            shownInBar: true, panes: [.subscribers, .offers], writes: true),
        KeyBinding(
            "F", .clearFlag, name: "unflag", description: "Clear an offer flag on the marked rows (or the cursor row)",
            panes: [.subscribers, .offers], writes: true),
        KeyBinding(
            "e", .switchFocus, name: "periods/events", description: "Move the focus between periods and events",
            shownInBar: true, panes: [.subscriber]),
        KeyBinding(
            "f", .flag, name: "flag", description: "Flag this subscriber for an offer", shownInBar: true,
            panes: [.subscriber], writes: true),
        KeyBinding(
            "F", .clearFlag, name: "unflag", description: "Clear an offer flag on this subscriber",
            panes: [.subscriber], writes: true),
        KeyBinding(
            "R", .fetchFromApple, name: "fetch",
            description: "Fetch this subscriber's history and statuses from Apple (App Store Server API credentials)",
            shownInBar: true, panes: [.subscriber], writes: true),
        KeyBinding(
            "x", .extend, name: "extend",
            description:
                "Extend this subscriber's renewal date at Apple: days, reason, the new date (App Store Server API credentials)",
            panes: [.subscriber], writes: true),
        KeyBinding("ctrl-s", .export, name: "export", description: "Export the shown rows to a CSV file", panes: [.offers]),
        KeyBinding(
            "ctrl-s", .export, name: "export", description: "Export every subscriber of the list to a CSV file",
            panes: [.subscribers]),
        KeyBinding(">", .cycleList(1), name: "next list", description: "Next offer list", shownInBar: true, panes: [.offers]),
        KeyBinding("<", .cycleList(-1), name: "previous list", description: "Previous offer list", panes: [.offers]),
        KeyBinding(
            "[", .sort(ascending: true), name: "sort ↑", description: "Sort ascending by the column under the cursor",
            panes: [.subscribers, .offers]),
        KeyBinding(
            "]", .sort(ascending: false), name: "sort ↓", description: "Sort descending by the column under the cursor",
            panes: [.subscribers, .offers]),
        KeyBinding("down", .move(1), name: "down", description: "Move down"),
        KeyBinding("j", .move(1), name: "down", description: "Move down"),
        KeyBinding("up", .move(-1), name: "up", description: "Move up"),
        KeyBinding("k", .move(-1), name: "up", description: "Move up"),
        KeyBinding("pgdn", .move(20), name: "page down", description: "Move down a page"),
        KeyBinding("pgup", .move(-20), name: "page up", description: "Move up a page"),
        KeyBinding("g g", .move(-1_000_000_000), name: "top", description: "Go to the first row"),
        KeyBinding("G", .move(1_000_000_000), name: "bottom", description: "Go to the last row"),
        KeyBinding("right", .moveColumn(1), name: "right", description: "Next column", panes: [.subscribers, .cohorts, .offers]),
        KeyBinding("l", .moveColumn(1), name: "right", description: "Next column", panes: [.subscribers, .cohorts, .offers]),
        KeyBinding(
            "left", .moveColumn(-1), name: "left", description: "Previous column", panes: [.subscribers, .cohorts, .offers]),
        KeyBinding("h", .moveColumn(-1), name: "left", description: "Previous column", panes: [.subscribers, .cohorts, .offers]),
        KeyBinding(
            "h", .moveColumn(-1), name: "month -1", description: "Events of the previous month", shownInBar: true,
            panes: [.statesEvents]),
        KeyBinding(
            "left", .moveColumn(-1), name: "month -1", description: "Events of the previous month", panes: [.statesEvents]),
        KeyBinding(
            "l", .moveColumn(1), name: "month +1", description: "Events of the next month", shownInBar: true,
            panes: [.statesEvents]),
        KeyBinding("right", .moveColumn(1), name: "month +1", description: "Events of the next month", panes: [.statesEvents]),
        KeyBinding(
            "o", .cycleOwnership, name: "ownership",
            description: "Count purchased, family-shared (Family Sharing) or all subscriptions", shownInBar: true,
            panes: [.statesEvents]),
        KeyBinding(
            "o", .cycleOwnership, name: "ownership",
            description: "List all, purchased or family-shared (Family Sharing) subscriptions", panes: [.subscribers]),
        KeyBinding(
            "E", .cycleEnvironment, name: "environment",
            description: "Count production, Sandbox or every environment on every pane (as :env; a search finds every one)"),
        KeyBinding("ctrl-r", .reload, name: "reload", description: "Reload the pane from the store"),
    ]

    /// What the keys typed so far mean on `pane`.
    public enum Resolution: Equatable, Sendable {
        /// A whole chord: run its binding.
        case binding(KeyBinding)
        /// The start of one or more chords (`g` of `g s`): wait for the next key; these could follow.
        case prefix([KeyBinding])
        case unbound
    }

    /// Resolves a key sequence (`[g]`, `[g, s]`) on `pane`. Every binding is considered, even writing
    /// ones in read-only mode, so that the key can say why it does nothing.
    public static func resolve(_ keys: [KeyEvent], on pane: Pane) -> Resolution {
        let candidates = all.filter { $0.applies(to: pane) && $0.chord.hasPrefix(keys) }
        if let exact = candidates.first(where: { $0.chord.keys == keys }) { return .binding(exact) }
        return candidates.isEmpty ? .unbound : .prefix(candidates)
    }

    /// The binding a single key press triggers on `pane`.
    public static func action(for event: KeyEvent, on pane: Pane) -> Action? {
        if case .binding(let binding) = resolve([event], on: pane) { return binding.action }
        return nil
    }

    /// The help bar's items for `pane`: the bar-worthy bindings, one per name, the pane's own first
    /// (none that write in read-only).
    public static func barItems(for pane: Pane, readOnly: Bool = false) -> [HelpBar.Item] {
        var seen: Set<String> = []
        let offered = all.filter { $0.shownInBar && $0.isOffered(on: pane, readOnly: readOnly) }
        // The pane's own keys first (lazygit): when the bar is short, the global ones give way.
        return (offered.filter { $0.panes != nil } + offered.filter { $0.panes == nil })
            .filter { seen.insert($0.name).inserted }
            .map { HelpBar.Item(key: $0.chord.description, description: $0.name) }
    }
}
