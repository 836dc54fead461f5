import AppStorePayloads
import ArgumentParser
import Foundation
import StoreImport
import SubscriberStore
import TeamLog

/// `--team URL`, shared by the commands that read or write the team log (docs/team.md).
struct TeamOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The team log: a postgres:// URL (default: $SUBDASH_TEAM). Its password is never printed (docs/team.md).",
            valueName: "url"))
    var team: String?

    /// The log's address from `--team` or `$SUBDASH_TEAM`; nil when neither is given.
    func address() throws -> TeamLogAddress? {
        do {
            return try TeamLogAddress.resolve(option: team)
        } catch {
            throw CLIError("\(error)", code: ExitStatus.usage)
        }
    }

    /// For a command that writes operator actions (flags, support actions): with a team log given,
    /// connects and refuses a role that may not write actions, before anything is asked, typed or
    /// sent (docs/team.md, "Operator writes"); nil without a team log.
    func actionLog() async throws -> TeamActionLog? {
        guard let address = try address() else { return nil }
        return try await Self.actionLog(address)
    }

    static func actionLog(_ address: TeamLogAddress) async throws -> TeamActionLog {
        let log = try await connect(address)
        do {
            try await log.requireActionInserts()
        } catch {
            await log.close()
            throw CLIError("\(error)", code: ExitStatus.fatal)
        }
        return TeamActionLog(log: log)
    }

    /// Makes `database` commit its operator writes to `actionLog` first. Refuses a store that is a
    /// view of another log: its writes would come back to no view of its own.
    static func attach(_ actionLog: TeamActionLog?, to database: AppDatabase) throws {
        guard let actionLog else { return }
        if let position = try database.teamLogPosition(), position.logId != actionLog.logId {
            throw CLIError(
                "\(database.path ?? "the store") is a view of another team log (log \(position.logId), not "
                    + "\(actionLog.logId) at \(actionLog.address)): nothing was written", code: ExitStatus.fatal)
        }
        database.writeOperatorActions(through: actionLog)
    }

    /// Connects (creating or migrating the log's schema when the role may).
    static func connect(_ address: TeamLogAddress) async throws -> TeamLogConnection {
        do {
            return try await TeamLogConnection.open(address)
        } catch {
            throw CLIError("\(error)", code: ExitStatus.fatal)
        }
    }
}

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Bring a local store up to date with the team log on PostgreSQL (a view of it).",
        discussion: """
            Imports every log entry after the store's last applied one through the import path: each \
            document is decoded and its Apple signatures verified here, exactly as `subdash import` does, \
            so a view trusts Apple, not whoever wrote to the log. The store's place in the log is kept \
            in the store and advances in the transaction that applies the entries, so a sync stopped at \
            any point resumes where it stopped. --follow then waits for new entries (PostgreSQL \
            LISTEN/NOTIFY) and applies each as it is committed, until SIGTERM or SIGINT. --rebuild makes \
            the view again from the whole log: for a store that is lost, damaged, from an older subdash \
            or a view of another log. The store is created when missing. See docs/team.md. \
            Exit status: 0 synced; 1 some entries were rejected (the rest applied); 2 usage error; \
            3 fatal: the log or the store could not be reached, read or written.
            """)

    @OptionGroup var store: StoreOptions
    @OptionGroup var team: TeamOptions
    @OptionGroup var verification: VerificationOptions
    @OptionGroup var app: AppTrustOptions
    @Flag(help: "Keep following the log: apply new entries as they are committed.") var follow = false
    @Flag(help: "Make the store again from the whole log (the old store's files are replaced).") var rebuild = false

    mutating func run() async throws {
        guard let address = try team.address() else {
            throw CLIError("give the team log with --team URL or $SUBDASH_TEAM (docs/team.md)", code: ExitStatus.usage)
        }
        let verifier = try verification.verifier()
        let log = try await TeamOptions.connect(address)
        if rebuild { try removeStoreFiles() }
        let database = try store.open()
        try app.recordApp(in: database)
        let sync = TeamSync(
            log: log, database: database, verifier: verifier, sharedSecret: app.sharedSecretValue,
            report: { printError($0) })
        let rejected: Bool
        do {
            let summary = try await sync.catchUp()
            printError(summary.line)
            printError("store: \(database.path ?? "memory"), team log: \(address)")
            rejected = summary.rejected > 0
            if follow {
                printError("following the team log (SIGTERM or SIGINT to stop)")
                try await withSignalsStopping {
                    try await sync.follow { round in printError(round.line) }
                }
            }
        } catch let error as TeamLogError {
            await log.close()
            throw CLIError("\(error)", code: ExitStatus.fatal)
        }
        await log.close()
        if rejected { throw ExitCode(1) }
    }

    /// The store's files, so that the view is made again from the log. Refuses a path that is not
    /// a regular file (a directory, a device).
    private func removeStoreFiles() throws {
        let path = store.path
        var info = stat()
        if lstat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
            throw CLIError("--rebuild: \(path) is not a store file; nothing was removed", code: ExitStatus.fatal)
        }
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            do {
                try FileManager.default.removeItem(atPath: file)
            } catch {
                throw CLIError("--rebuild: cannot remove \(file): \(error)", code: ExitStatus.fatal)
            }
        }
        printError("rebuilding \(path) from the team log")
    }
}

/// Runs `body` until it ends or SIGTERM/SIGINT arrives, which cancels it; a cancelled body is a
/// clean stop.
func withSignalsStopping(_ body: @escaping @Sendable () async throws -> Void) async throws {
    signal(SIGTERM, SIG_IGN)
    signal(SIGINT, SIG_IGN)
    let sources = [SIGTERM, SIGINT].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
    let task = Task { try await body() }
    for source in sources {
        source.setEventHandler { task.cancel() }
        source.resume()
    }
    defer { for source in sources { source.cancel() } }
    do {
        try await task.value
    } catch is CancellationError {
        return
    } catch {
        if task.isCancelled { return }
        throw error
    }
}
