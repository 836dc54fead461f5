import AppStorePayloads
import ArgumentParser
import Foundation
import StoreImport
import SubscriberStore
import SubscriptionModel

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import App Store notifications, receipts, API responses and customer CSVs into the store.",
        discussion: """
            Recognises v1 and v2 server notifications, /verifyReceipt responses, App Store Server API responses \
            (status, transaction history, notification history, transaction info), bare signed transactions and \
            renewal infos, and customer CSVs; one JSON document per file, \
            a JSON array, or NDJSON; .gz files are read transparently. Re-importing is harmless. \
            From a pipe (`-`), what has arrived is stored and shown whenever the stream pauses for half a \
            second or a document has waited two, so a receiver can pipe notifications in as they come. \
            Identical rejections are shown for the first few documents, then counted ("… and 2,581 more \
            documents: reason"). The store's own files and any other SQLite database are skipped. \
            Unsigned v1 documents need --shared-secret to change a subscription that has signed data: the \
            summary says how many were set aside and for how many subscriptions. A notification whose \
            notificationUUID is stored already with other content is a conflict: the first is kept, the \
            second archived and shown. \
            Exit status: 0 all applied or duplicate; 1 some documents were rejected or in conflict (the rest imported); 2 usage \
            error; 3 fatal: the store could not be opened or written (missing directory, not a store, from a newer \
            subdash, disk full): nothing more than the message says was imported.
            """)

    @OptionGroup var store: StoreOptions
    @OptionGroup var verification: VerificationOptions
    @OptionGroup var app: AppTrustOptions
    @OptionGroup var team: TeamOptions
    @Option(
        name: .customLong("max-document-bytes"),
        help:
            "A document larger than this many bytes is rejected on its own (default \(DocumentReader.defaultSizeLimit), 16 MiB).")
    var maxDocumentBytes = DocumentReader.defaultSizeLimit
    @Option(name: .customLong("batch-size"), help: ArgumentHelp("Documents decoded per chunk.", visibility: .hidden))
    var batchSize = Importer.defaultBatchSize
    @Option(name: .customLong("transaction-size"), help: ArgumentHelp("Documents per transaction.", visibility: .hidden))
    var documentsPerTransaction = Importer.defaultDocumentsPerTransaction
    @Option(name: .customLong("cache-mb"), help: ArgumentHelp("Page cache of the writing connection, MB.", visibility: .hidden))
    var cacheMegabytes = Importer.defaultCacheMegabytes
    @Argument(help: "Files, directories, or - for stdin.") var paths: [String]

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give at least one file, directory or - (stdin)") }
        if maxDocumentBytes < 1 { throw ValidationError("--max-document-bytes must be at least 1") }
        for path in paths where path != "-" && !FileManager.default.fileExists(atPath: path) {
            throw ValidationError("\(path): no such file or directory")
        }
    }

    mutating func run() async throws {
        if let address = try team.address() {
            try await importIntoTeamLog(address)
            return
        }
        let verifier = try verification.verifier()
        let database = try store.open()
        try app.recordApp(in: database)
        let secret = app.sharedSecretValue
        let interactive = isatty(2) != 0
        let report: @Sendable (String) -> Void = { line in
            if interactive { FileHandleOutput.clearLine() }
            printError(line)
        }
        var progress: (@Sendable (ImportProgress) -> Void)? = nil
        if interactive {
            progress = { FileHandleOutput.progress($0.line) }
        }
        let importer = Importer.appStore(
            database: database, verifier: verifier, batchSize: batchSize,
            maxDocumentBytes: maxDocumentBytes, sharedSecret: secret,
            documentsPerTransaction: documentsPerTransaction, cacheMegabytes: cacheMegabytes,
            report: report, progress: progress)
        let summary: ImportSummary
        do {
            summary = try importer.importPaths(paths)
        } catch let error as ImportError {
            guard case .stopped = error else { throw error }
            if interactive { FileHandleOutput.clearLine() }
            throw CLIError(error.description, code: ExitStatus.fatal)
        }
        if interactive { FileHandleOutput.clearLine() }
        printError(summary.line)
        printError("store: \(database.path ?? "memory")")
        if summary.rejected > 0 || summary.conflicts > 0 { throw ExitCode(1) }
    }
}

enum FileHandleOutput {
    static func progress(_ text: String) { FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8)) }
    static func clearLine() { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
}
