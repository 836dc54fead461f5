import AppStorePayloads
import Foundation
import SubscriberStore
import Synchronization
import TeamLog

/// A dashboard started with `--team` (docs/team.md, "The dashboard"): follows the log while it
/// runs, as `subdash sync --follow` does (LISTEN/NOTIFY, entries applied through the import path;
/// the store watch then shows what changed), and keeps the status line's words on how far behind
/// the store is: `team log: 0 behind`, `team log: 12 behind · 3 s` (the oldest entry not applied
/// yet was committed 3 s ago), `team log unreachable`. A log lost is tried again every second.
final class DashboardTeamFollower: Sendable {
    let address: TeamLogAddress
    let database: AppDatabase
    let verifier: any SignatureVerifier
    let sharedSecret: String?
    private let status = Mutex<String>("team log: connecting")
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(address: TeamLogAddress, database: AppDatabase, verifier: any SignatureVerifier, sharedSecret: String?) {
        self.address = address
        self.database = database
        self.verifier = verifier
        self.sharedSecret = sharedSecret
    }

    /// The status line's words, as of the last check (about once a second).
    var line: String { status.withLock { $0 } }

    func start() {
        let follow = Task.detached { [self] in await run() }
        task.withLock { $0 = follow }
    }

    func stop() { task.withLock { $0?.cancel() } }

    private func run() async {
        while !Task.isCancelled {
            do {
                let log = try await TeamLogConnection.open(address, migrate: false)
                let sync = TeamSync(
                    log: log, database: database, verifier: verifier, sharedSecret: sharedSecret, report: { _ in })
                do {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { try await sync.follow { _ in } }
                        group.addTask { [self] in
                            while !Task.isCancelled {
                                let behind = try await log.behind(after: try sync.position())
                                status.withLock { $0 = Self.words(behind.entries, oldest: behind.oldest, now: Date()) }
                                try await Task.sleep(nanoseconds: 1_000_000_000)
                            }
                        }
                        try await group.next()
                        group.cancelAll()
                    }
                } catch {
                    if !Task.isCancelled { status.withLock { $0 = Self.words(error) } }
                }
                await log.close()
            } catch {
                status.withLock { $0 = Self.words(error) }
            }
            try? await Task.sleep(nanoseconds: 1_000_000_000)
        }
    }

    static func words(_ entries: Int64, oldest: Date?, now: Date) -> String {
        guard entries > 0 else { return "team log: 0 behind" }
        let seconds = oldest.map { max(0, Int(now.timeIntervalSince($0).rounded(.down))) }
        return "team log: \(entries) behind" + (seconds.map { " · \($0) s" } ?? "")
    }

    static func words(_ error: any Error) -> String {
        if case .unreachable = error as? TeamLogError { return "team log unreachable" }
        return "team log: \(error)"
    }
}

/// Runs `body` to its end from synchronous code (a command that is not async), on another task.
func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = WaitedOutcome<T>()
    Task.detached {
        do { outcome.result = .success(try await body()) } catch { outcome.result = .failure(error) }
        outcome.done.signal()
    }
    outcome.done.wait()
    return try outcome.result!.get()
}

/// `@unchecked Sendable`: `result` is written before `done` is signalled and read after it.
private final class WaitedOutcome<T: Sendable>: @unchecked Sendable {
    var result: Result<T, any Error>?
    let done = DispatchSemaphore(value: 0)
}
