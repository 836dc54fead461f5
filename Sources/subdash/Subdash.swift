import ArgumentParser
import Foundation
import StoreImport

@main
struct Subdash: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subdash",
        abstract: "A keyboard-driven dashboard for App Store auto-renewable subscriptions.",
        discussion: ExitStatus.help,
        subcommands: [
            OpenDashboard.self, Demo.self, Import.self, Generate.self, GenerateRedemptions.self, Report.self, FlagCommand.self,
            Flags.self,
            Prices.self,
            Themes.self, Keys.self, Archive.self, Listen.self, Fetch.self, OfferCommand.self, OffersCommand.self,
            Extend.self, Link.self, Log.self, Consumption.self, Sync.self,
        ],
        defaultSubcommand: OpenDashboard.self
    )

    /// Exit codes are part of the contract (``ExitStatus``): 0 ok, 1 partly done, 2 usage, 3 fatal.
    static func main() async {
        ArchiveRereading.install(say: { printError("subdash: \($0)") })
        if let refusal = CommandSuggestion.message(for: Array(CommandLine.arguments.dropFirst())) {
            printError("subdash: \(refusal)")
            exit(withError: ExitCode(ExitStatus.usage))
        }
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                printError(fullMessage(for: error))
                exit(withError: ExitCode(ExitStatus.usage))
            }
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            error.exit()
        } catch let error as ExitCode {
            exit(withError: error)
        } catch let error as CleanExit {
            exit(withError: error)
        } catch let error as ValidationError {
            printError("subdash: \(error.message)")
            exit(withError: ExitCode(ExitStatus.usage))
        } catch  where String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") {
            // `--help` and the like come back from `run` as the parser's own errors.
            exit(withError: error)
        } catch {
            // The store failed under the command (disk full, I/O): nothing more was done.
            printError("subdash: \(error)")
            exit(withError: ExitCode(ExitStatus.fatal))
        }
    }
}
