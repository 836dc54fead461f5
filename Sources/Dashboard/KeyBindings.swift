import TerminalUI

/// One binding: the table the key dispatch, the help bar and the `?` overlay are all drawn from.
public struct KeyBinding: Equatable, Sendable {
    public var chord: KeyChord
    public var command: KeyCommand
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
        self.init(
            chord, command: .action(action), name: name, description: description, shownInBar: shownInBar, panes: panes,
            writes: writes)
    }

    /// A row key every pane has (`j`, `k`, …): `delta` rows of whichever pane is shown.
    init(_ chord: String, rows delta: Int, name: String, description: String) {
        self.init(chord, command: .rows(delta), name: name, description: description)
    }

    private init(
        _ chord: String, command: KeyCommand, name: String, description: String, shownInBar: Bool = false,
        panes: Set<Pane>? = nil, writes: Bool = false
    ) {
        do {
            self.chord = try KeyChord(parsing: chord)
        } catch {
            preconditionFailure("bad built-in key chord: \(error)")
        }
        self.command = command
        self.name = name
        self.description = description
        self.shownInBar = shownInBar
        self.panes = panes
        self.writes = writes
    }

    /// What the key does on `pane`: its action, or the pane's own intent for a row key (nil: the
    /// pane has no rows).
    public func action(on pane: Pane) -> Action? {
        switch command {
        case .action(let action): action
        case .rows(let delta): pane.definition.rows(delta)
        }
    }

    public func applies(to pane: Pane) -> Bool { panes.map { $0.contains(pane) } ?? true }

    /// Offered on `pane` in this mode: the bindings the help bar and `?` list.
    public func isOffered(on pane: Pane, readOnly: Bool) -> Bool { applies(to: pane) && !(readOnly && writes) }
}

/// What a key runs.
public enum KeyCommand: Equatable, Sendable {
    case action(Action)
    /// `delta` rows down (up when negative) of whichever pane is shown: each pane takes it as its
    /// own intent (``DashboardPane/rows(_:)``), so no action means "move" on every pane.
    case rows(Int)
}

public enum KeyBindings {
    /// Every key: the ones every pane has, each pane's own (from its folder, `Panes/…/…Keys.swift`, in
    /// tab order), then the row keys every pane takes as its own intent, and the last global ones.
    public static let all: [KeyBinding] = leading + Pane.allCases.flatMap { $0.definition.keys } + rows + trailing

    /// Quit, help, the pane keys, back and the command line.
    static let leading: [KeyBinding] = [
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
            ":", .startCommand, name: "command",
            description:
                "Command line (:user ID, :asof DATE, :product ID, :env NAME, :plan PLAN, :state NAME, :theme NAME, :log [ID], :support (consumption requests, mass extensions), :answer ID, :metric NAME, :range 90d/1y/all, :chart braille/block/ascii, :q; tab completes)"
        ),
    ]

    /// The rows of whichever pane is shown: each pane says what they are (``DashboardPane/rows(_:)``).
    static let rows: [KeyBinding] = [
        KeyBinding("down", rows: 1, name: "down", description: "Move down"),
        KeyBinding("j", rows: 1, name: "down", description: "Move down"),
        KeyBinding("up", rows: -1, name: "up", description: "Move up"),
        KeyBinding("k", rows: -1, name: "up", description: "Move up"),
        KeyBinding("pgdn", rows: 20, name: "page down", description: "Move down a page"),
        KeyBinding("pgup", rows: -20, name: "page up", description: "Move up a page"),
        KeyBinding("g g", rows: -1_000_000_000, name: "top", description: "Go to the first row"),
        KeyBinding("G", rows: 1_000_000_000, name: "bottom", description: "Go to the last row"),
    ]

    static let trailing: [KeyBinding] = [
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
        if case .binding(let binding) = resolve([event], on: pane) { return binding.action(on: pane) }
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
