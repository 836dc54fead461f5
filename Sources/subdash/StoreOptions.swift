import ArgumentParser
import Foundation
import SubscriberStore
import TerminalUI

/// `--db PATH`, shared by every command that opens the store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The store (default: $SUBDASH_DB, else ./subdash.sqlite).")
    var db: String?

    var path: String { AppDatabase.resolvePath(option: db) }

    /// Throws the dashboard's advice when there is no store at `path`: only `import` creates one.
    func requireExisting() throws {
        guard FileManager.default.fileExists(atPath: path) else {
            let fromOption = db != nil || ProcessInfo.processInfo.environment["SUBDASH_DB"].map { !$0.isEmpty } == true
            throw CLIError(OpenDashboard.noStoreMessage(path: path, fromOption: fromOption), code: ExitStatus.fatal)
        }
    }

    func open(readOnly: Bool = false) throws -> AppDatabase {
        if let warning = StoreFiles.exposureWarning(path: path) { printError("subdash: \(warning)") }
        do {
            return try AppDatabase.open(path: path, readOnly: readOnly)
        } catch let error as StoreError {
            throw CLIError(error.message, code: ExitStatus.fatal)
        } catch {
            throw CLIError("cannot open the store \(path): \(error)", code: ExitStatus.fatal)
        }
    }
}

/// A failure reported as one line on stderr with exit code 1 (2 is for usage errors).
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var code: Int32 = 1
    init(_ message: String, code: Int32 = 1) {
        self.message = message
        self.code = code
    }
    var description: String { message }
}

extension CLIError {
    /// Prints the message and exits with the code (swift-argument-parser would print usage).
    func exit() -> Never {
        printError("subdash: \(message)")
        Subdash.exit(withError: ExitCode(code))
    }
}

/// A line (or lines) for stderr: import messages quote the input, so control characters are
/// shown, never acted on.
func printError(_ line: String) {
    var standardError = StandardError()
    print(TextSanitizer.visibleLines(line), to: &standardError)
}

/// CSV for stdout: exact when it goes to a file or a pipe, its control characters shown (not
/// acted on) when it goes to a terminal.
func printCSV(_ text: String) {
    print(isatty(1) != 0 ? TextSanitizer.visibleLines(text) : text)
}

/// A line of results for stdout, shown the same way.
func printOutput(_ text: String) {
    print(TextSanitizer.visibleLines(text))
}

struct StandardError: TextOutputStream {
    /// A message that cannot be written (stderr piped to a reader that exited, a full disk) is
    /// lost, not fatal.
    mutating func write(_ string: String) {
        try? FileHandle.standardError.write(contentsOf: Data(string.utf8))
    }
}
