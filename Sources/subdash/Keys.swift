import ArgumentParser
import Dashboard
import ReportOutputs

/// `subdash keys`: the dashboard's key table, aligned for a terminal; `--markdown` prints
/// `docs/keybindings.md` instead.
struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Print the dashboard's key bindings.")

    @Flag(help: "Print docs/keybindings.md (markdown) instead of the aligned table.")
    var markdown = false

    func run() {
        if markdown {
            print(KeyBindingsDocument.markdown(), terminator: "")
        } else {
            print(Self.table().render())
        }
    }

    /// One row per binding: its key, the panes it works on, and what it does.
    static func table(_ bindings: [KeyBinding] = KeyBindings.all) -> TextTable {
        var table = TextTable(headers: ["key", "pane", "what it does"])
        table.rows = bindings.map { binding in
            let panes =
                binding.panes.map { panes in
                    panes.sorted { $0.rawValue < $1.rawValue }.map { "\($0.rawValue + 1) \($0.title)" }.joined(separator: ", ")
                } ?? "all"
            return [binding.chord.description, panes, binding.description + (binding.writes ? " (writes)" : "")]
        }
        return table
    }
}
