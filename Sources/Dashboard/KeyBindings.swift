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

    public init(_ chord: String, _ action: Action, name: String, description: String, shownInBar: Bool = false,
                panes: Set<Pane>? = nil) {
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
    }

    public func applies(to pane: Pane) -> Bool { panes.map { $0.contains(pane) } ?? true }
}

public enum KeyBindings {
    public static let all: [KeyBinding] = [
        KeyBinding("q", .quit, name: "quit", description: "Quit the dashboard", shownInBar: true),
        KeyBinding("?", .toggleHelp, name: "help", description: "Show or hide this help", shownInBar: true),
        KeyBinding("tab", .nextPane, name: "next", description: "Next pane", shownInBar: true),
        KeyBinding("shift-tab", .previousPane, name: "previous", description: "Previous pane"),
        KeyBinding("1", .switchPane(.subscribers), name: "subscribers", description: "Go to Subscribers"),
        KeyBinding("2", .switchPane(.subscriber), name: "subscriber", description: "Go to Subscriber"),
        KeyBinding("3", .switchPane(.cohorts), name: "cohorts", description: "Go to Cohorts"),
        KeyBinding("4", .switchPane(.statesEvents), name: "states", description: "Go to States & Events"),
        KeyBinding("esc", .back, name: "back", description: "Back to the previous pane", shownInBar: true),
        KeyBinding("-", .back, name: "back", description: "Back to the previous pane"),
        KeyBinding("/", .startSearch, name: "search", description: "Search subscribers by any id or email", shownInBar: true,
                   panes: [.subscribers]),
        KeyBinding(":", .startCommand, name: "command", description: "Command line (:q, :asof DATE, :product ID)"),
        KeyBinding("enter", .open, name: "open", description: "Open the selected subscriber", shownInBar: true,
                   panes: [.subscribers]),
        KeyBinding("space", .toggleMark, name: "mark", description: "Mark or unmark the selected subscriber", shownInBar: true,
                   panes: [.subscribers]),
        KeyBinding("down", .move(1), name: "down", description: "Move down"),
        KeyBinding("j", .move(1), name: "down", description: "Move down"),
        KeyBinding("up", .move(-1), name: "up", description: "Move up"),
        KeyBinding("k", .move(-1), name: "up", description: "Move up"),
        KeyBinding("pgdn", .move(20), name: "page down", description: "Move down a page"),
        KeyBinding("pgup", .move(-20), name: "page up", description: "Move up a page"),
        KeyBinding("right", .moveColumn(1), name: "right", description: "Next column", panes: [.cohorts]),
        KeyBinding("l", .moveColumn(1), name: "right", description: "Next column", panes: [.cohorts]),
        KeyBinding("left", .moveColumn(-1), name: "left", description: "Previous column", panes: [.cohorts]),
        KeyBinding("h", .moveColumn(-1), name: "left", description: "Previous column", panes: [.cohorts]),
        KeyBinding("h", .moveColumn(-1), name: "month -1", description: "Events of the previous month", shownInBar: true,
                   panes: [.statesEvents]),
        KeyBinding("left", .moveColumn(-1), name: "month -1", description: "Events of the previous month", panes: [.statesEvents]),
        KeyBinding("l", .moveColumn(1), name: "month +1", description: "Events of the next month", shownInBar: true,
                   panes: [.statesEvents]),
        KeyBinding("right", .moveColumn(1), name: "month +1", description: "Events of the next month", panes: [.statesEvents]),
        KeyBinding("ctrl-r", .reload, name: "reload", description: "Reload the pane from the store"),
    ]

    /// The binding a key press triggers on `pane` (single-key chords only).
    public static func action(for event: KeyEvent, on pane: Pane) -> Action? {
        all.first { $0.chord.keys == [event] && $0.applies(to: pane) }?.action
    }

    /// The help bar's items for `pane`: the bar-worthy bindings, one per name.
    public static func barItems(for pane: Pane) -> [HelpBar.Item] {
        var seen: Set<String> = []
        return all.filter { $0.shownInBar && $0.applies(to: pane) && seen.insert($0.name).inserted }
            .map { HelpBar.Item(key: $0.chord.description, description: $0.name) }
    }
}
