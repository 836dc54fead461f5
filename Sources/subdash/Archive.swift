import ArgumentParser
import Foundation
import SubscriberStore

/// `subdash archive export`: every archived document, byte for byte as it arrived.
struct Archive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Read the raw document archive kept in the store.",
        subcommands: [Export.self]
    )

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write every archived document, exactly as it arrived, to DIR/<sha256> (one file each).",
            discussion: """
                Documents too large to keep have no archived bytes and are listed on stderr. A document \
                archived with zstd needs the zstd library (libzstd.so.1) at run time; without it, it is \
                listed with the reason and the export exits 1.
                """
        )

        @OptionGroup var store: StoreOptions
        @Option(name: .long, help: "The directory to write into (created if missing).") var out: String

        mutating func run() async throws {
            let db: AppDatabase
            do { db = try store.open(readOnly: true) } catch let e as CLIError { e.exit() }
            let directory = URL(fileURLWithPath: out, isDirectory: true)
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            var written = 0
            var missing = 0
            var failed = 0
            try db.forEachArchivedDocument { sha, source, bytes in
                switch bytes {
                case nil:
                    missing += 1
                    printError("\(sha) (\(source)): not archived (too large to keep)")
                case .failure(let error)?:
                    failed += 1
                    printError("\(sha) (\(source)): \(error)")
                case .success(let data)?:
                    let file = directory.appendingPathComponent(sha)
                    guard
                        FileManager.default.createFile(
                            atPath: file.path, contents: data,
                            attributes: [.posixPermissions: 0o600])
                    else {
                        throw CLIError("cannot write \(file.path)")
                    }
                    written += 1
                }
            }
            printError(
                "exported \(written) document\(written == 1 ? "" : "s") to \(directory.path)"
                    + (missing > 0 ? "; \(missing) not archived" : "") + (failed > 0 ? "; \(failed) unreadable" : ""))
            if failed > 0 { throw CLIError("\(failed) archived document\(failed == 1 ? "" : "s") could not be read", code: 1) }
        }
    }
}
