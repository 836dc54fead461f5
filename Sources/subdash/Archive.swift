import ArgumentParser
import Foundation
import SubscriberStore

/// `subdash archive export`: every archived document, byte for byte as it arrived.
struct Archive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Read the raw document archive kept in the store.",
        subcommands: [Export.self, Vacuum.self]
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

    /// `subdash archive vacuum`: SQLite's VACUUM, offered (never run by itself) after migration v30
    /// converted an existing archive to the compact layout and left its freed pages in the file.
    struct Vacuum: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give the store's free pages back to the file system (SQLite VACUUM).",
            discussion: """
                After the archive was converted to the compact layout (docs/architecture.md, "The archive's \
                layout") the store keeps the pages it freed for later writes; this rewrites the file without \
                them. It needs free disk space about the store's size and keeps other writers waiting while it runs.
                """
        )

        @OptionGroup var store: StoreOptions

        mutating func run() async throws {
            try store.requireExisting()
            let db: AppDatabase
            do { db = try store.open() } catch let e as CLIError { e.exit() }
            let before = try db.fileBytes()
            do { try db.vacuum() } catch { CLIError("VACUUM failed: \(error)").exit() }
            let after = try db.fileBytes()
            printError("\(store.path): \(before) bytes before, \(after) after")
        }
    }
}
