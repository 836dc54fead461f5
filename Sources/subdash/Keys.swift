import ArgumentParser
import Dashboard

/// `subdash keys --markdown`: the dashboard's key table as `docs/keybindings.md`.
struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Print the dashboard's key bindings (docs/keybindings.md).")

    @Flag(help: "Print docs/keybindings.md (the only format so far).")
    var markdown = false

    func run() {
        print(KeyBindingsDocument.markdown(), terminator: "")
    }
}
