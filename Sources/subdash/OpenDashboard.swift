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

    @Option(name: .customLong("export-dir"),
            help: "Where ctrl-s writes CSV files (default: $XDG_DOWNLOAD_DIR, else your home directory).")
    var exportDirectory: String?

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
        let runner = EffectRunner(analytics: SubscriberAnalytics(database: database), themes: catalog,
                                  exportDirectory: EffectRunner.exportDirectory(option: exportDirectory))
        let backend = try CursesBackend(color: ColorChoice(rawValue: color)!)
        defer { backend.shutdown() }
        let state = AppState(readOnly: readOnly, operatorName: Self.operatorName(operatorName),
                             themeNames: catalog.entries().map(\.name))
        let session = DashboardSession(backend: backend, runner: runner,
                                       palette: chosenTheme.palette(for: backend.colorSupport), state: state)
        session.run()
    }

    /// `--operator`, else `$USER`, else `unknown`.
    static func operatorName(_ option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let option, !option.isEmpty { return option }
        if let user = environment["USER"], !user.isEmpty { return user }
        return "unknown"
    }
}
