import ArgumentParser
import CursesBackend
import Dashboard
import Foundation
import SubscriberAnalytics
import TerminalUI

struct OpenDashboard: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "dashboard", abstract: "Open the dashboard on a store.")

    @OptionGroup var store: StoreOptions

    @Option(help: "A theme name or path (default: the built-in default theme).")
    var theme: String?

    @Option(help: "Colour: auto, always or never (NO_COLOR also turns colour off under auto).")
    var color: String = "auto"

    @Flag(name: .customLong("read-only"), help: "Open the store read-only: no flag can be set or cleared.")
    var readOnly = false

    @Option(name: .customLong("operator"), help: "Who flag changes are written as in the audit log (default: $USER).")
    var operatorName: String?

    func validate() throws {
        guard ColorChoice(rawValue: color) != nil else { throw ValidationError("--color must be auto, always or never") }
    }

    func run() throws {
        let database = try store.open(readOnly: readOnly)
        let catalog = ThemeCatalog.standard()
        let chosenTheme: Theme
        do {
            chosenTheme = try theme.map { try catalog.load($0) } ?? .builtinDefault
        } catch {
            throw CLIError("\(error)")
        }
        let runner = EffectRunner(analytics: SubscriberAnalytics(database: database), themes: catalog)
        let backend = try CursesBackend(color: ColorChoice(rawValue: color)!)
        defer { backend.shutdown() }
        let terminal = Terminal(backend: backend)
        var palette = chosenTheme.palette(for: backend.colorSupport)
        let mailbox = Mailbox()
        var state = AppState(readOnly: readOnly, operatorName: Self.operatorName(operatorName),
                             themeNames: catalog.entries().map(\.name))

        func apply(_ action: Action) {
            for effect in update(&state, action) { runner.run(effect) { mailbox.post($0) } }
        }

        apply(.start)
        var shownTheme = state.theme
        let clock = ContinuousClock()
        var lastKey = clock.now
        while !state.shouldQuit {
            if state.theme != shownTheme, let theme = state.theme {
                // `:theme` switched: resolve the new palette once, then repaint every cell.
                palette = theme.palette(for: backend.colorSupport)
                shownTheme = theme
                terminal.invalidate()
            }
            terminal.draw { buffer in render(state, into: &buffer, palette: palette) }
            if let key = backend.readKey(timeout: .milliseconds(50)) {
                // Results that came in while waiting came before the key: apply them first.
                for action in mailbox.take() { apply(action) }
                if key.key == .resize { terminal.invalidate() }
                apply(.key(key))
                lastKey = clock.now
            } else if !state.pendingKeys.isEmpty, clock.now - lastKey > .seconds(1) {
                apply(.keyTimeout)
            }
            for action in mailbox.take() { apply(action) }
        }
    }

    /// `--operator`, else `$USER`, else `unknown`.
    static func operatorName(_ option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let option, !option.isEmpty { return option }
        if let user = environment["USER"], !user.isEmpty { return user }
        return "unknown"
    }
}

/// Results from the effect queue, waiting for the UI thread to pick them up.
private final class Mailbox: @unchecked Sendable {
    private let lock = NSLock()
    private var actions: [Action] = []

    func post(_ action: Action) { lock.withLock { actions.append(action) } }

    func take() -> [Action] {
        lock.withLock {
            defer { actions = [] }
            return actions
        }
    }
}
