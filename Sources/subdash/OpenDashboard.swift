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

    @Flag(name: .customLong("read-only"), help: "Open the store read-only.")
    var readOnly = false

    func validate() throws {
        guard ColorChoice(rawValue: color) != nil else { throw ValidationError("--color must be auto, always or never") }
    }

    func run() throws {
        let database = try store.open(readOnly: readOnly)
        let chosenTheme: Theme
        do {
            chosenTheme = try theme.map { try ThemeCatalog.standard().load($0) } ?? .builtinDefault
        } catch {
            throw CLIError("\(error)")
        }
        let runner = EffectRunner(analytics: SubscriberAnalytics(database: database))
        let backend = try CursesBackend(color: ColorChoice(rawValue: color)!)
        defer { backend.shutdown() }
        let session = DashboardSession(backend: backend, runner: runner,
                                       palette: chosenTheme.palette(for: backend.colorSupport))
        session.run()
    }
}
