import ArgumentParser
import Foundation

@main
struct Subdash: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subdash",
        abstract: "A keyboard-driven dashboard for App Store auto-renewable subscriptions.",
        subcommands: [OpenDashboard.self, Demo.self, Import.self, Generate.self, Report.self, FlagCommand.self, Flags.self,
                      Themes.self, Keys.self, Archive.self, Listen.self, Fetch.self],
        defaultSubcommand: OpenDashboard.self
    )

    /// Exit codes are part of the contract: 0 ok, 1 some input rejected or a failure, 2 usage.
    static func main() async {
        if let refusal = CommandSuggestion.message(for: Array(CommandLine.arguments.dropFirst())) {
            printError("subdash: \(refusal)")
            exit(withError: ExitCode(2))
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            error.exit()
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                printError(fullMessage(for: error))
                exit(withError: ExitCode(2))
            }
            exit(withError: error)
        }
    }
}
