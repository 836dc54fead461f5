import Foundation
import Synchronization
import ThreadKit

/// The listener's writer to the team log (`subdash listen --team`): one connection, and one thread
/// that commits the documents of concurrent requests together, in ONE transaction
/// (``TeamLogConnection/commitReceived(_:)``), and answers each request with its place in the log.
/// While a transaction runs, the requests that arrive wait for the next one, so under load a commit
/// carries many requests and its round trips and flush are shared (docs/team.md, "Listeners").
///
/// When the log cannot be reached — at the start, or a commit or a check fails — the writer is
/// *down*: every request is answered at once as not stored (the listener says 503, and Apple sends
/// it again), never held; `/healthz` gets the reason (``health()``). The thread tries to connect
/// again every `retrySeconds`, and while up it checks an idle connection as often (`SELECT 1`), so
/// a lost server is noticed without a request, and a server back is used again without a restart.
/// A commit that takes longer than `commitTimeout` (a server that stopped answering) is given up:
/// its connection is closed, which fails it.
///
/// `@unchecked Sendable`: `queue`, `stopped`, `connection`, `down`, `lastCommit` and `lastActivity`
/// are read and written only with `condition` locked; the rest is immutable.
public final class TeamLogWriter: @unchecked Sendable {
    /// What became of one document.
    public enum Outcome: Sendable, Equatable {
        /// Committed: the log's sequence number, whether this commit added it (false: it was in the
        /// log already), and the number of the writer's commit that carried it (1, 2, …).
        case logged(sequence: Int64, added: Bool, commit: Int)
        /// Not committed, and why (the log is unreachable, or refused the write).
        case notLogged(reason: String)
    }

    /// What `/healthz` says about the log.
    public struct Health: Sendable, Equatable {
        public var healthy: Bool
        /// One line: the log (its URL without the password) and its state.
        public var line: String
    }

    private struct Waiting {
        var document: LogDocument
        var answer: @Sendable (Outcome) -> Void
    }

    public let address: TeamLogAddress
    private let connect: @Sendable () async throws -> TeamLogConnection
    private let condition = NSCondition()
    private var queue: [Waiting] = []
    private var stopped = false
    private var connection: TeamLogConnection?
    private var down: (since: Date, reason: String)?
    private var lastCommit: (at: Date, sequence: Int64)?
    private var lastActivity = ContinuousClock.now
    private var commits = 0
    private let done = DispatchGroup()
    private let maxGroup: Int
    private let retrySeconds: Double
    private let commitTimeout: Double

    /// - Parameters:
    ///   - connection: the first connection (nil: the log could not be reached; `reason` says why).
    ///   - connect: makes a new connection after one was lost.
    ///   - maxGroup: the most documents in one transaction.
    ///   - retrySeconds: how often a lost log is tried again, and an idle connection checked.
    ///   - commitTimeout: seconds after which a commit is given up and its connection closed.
    public init(
        address: TeamLogAddress, connection: TeamLogConnection?, reason: String? = nil,
        connect: @escaping @Sendable () async throws -> TeamLogConnection, maxGroup: Int = 256,
        retrySeconds: Double = 1, commitTimeout: Double = 10
    ) {
        self.address = address
        self.connect = connect
        self.connection = connection
        self.maxGroup = maxGroup
        self.retrySeconds = retrySeconds
        self.commitTimeout = commitTimeout
        if connection == nil { down = (Date(), reason ?? "cannot reach the team log \(address)") }
        done.enter()
        let thread = Thread { [self] in
            nameCurrentThread("subdash-teamlog")
            run()
        }
        thread.start()
    }

    /// Commits `document` and returns its place in the log, or at once why it cannot be.
    public func commit(_ document: LogDocument) async -> Outcome {
        await withCheckedContinuation { continuation in
            enqueue(document) { continuation.resume(returning: $0) }
        }
    }

    private func enqueue(_ document: LogDocument, answer: @escaping @Sendable (Outcome) -> Void) {
        condition.lock()
        if stopped {
            condition.unlock()
            answer(.notLogged(reason: "the listener is shutting down"))
            return
        }
        if let down {
            condition.unlock()
            answer(.notLogged(reason: down.reason))
            return
        }
        queue.append(Waiting(document: document, answer: answer))
        condition.broadcast()
        condition.unlock()
    }

    /// The log's state for `/healthz`: never a round trip (the thread keeps it current).
    public func health() -> Health {
        condition.lock()
        defer { condition.unlock() }
        if let down {
            return Health(
                healthy: false,
                line: "team log: unreachable since \(Self.timestamp(down.since)) (tried again every "
                    + "\(Self.seconds(retrySeconds))): \(down.reason)")
        }
        let last = lastCommit.map { ", last commit at \(Self.timestamp($0.at)) (log entry \($0.sequence))" } ?? ""
        return Health(healthy: true, line: "team log: ok, \(address)\(last)")
    }

    /// Commits what is waiting, stops the thread and closes the connection. Idempotent.
    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
        done.wait()
    }

    private func run() {
        defer { done.leave() }
        var lastAttempt = ContinuousClock.now
        while true {
            condition.lock()
            let idleUntil = Date(timeIntervalSinceNow: retrySeconds)
            while queue.isEmpty && !stopped {
                if !condition.wait(until: idleUntil) { break }
            }
            let group = Array(queue.prefix(maxGroup))
            queue.removeFirst(group.count)
            let finished = stopped && queue.isEmpty && group.isEmpty
            let current = connection
            let idle = ContinuousClock.now - lastActivity
            condition.unlock()

            if finished {
                if let current { _ = Self.blocking(timeout: commitTimeout, closing: nil) { await current.close() } }
                return
            }
            guard let current else {
                for waiting in group { waiting.answer(.notLogged(reason: downReason)) }
                if ContinuousClock.now - lastAttempt >= .seconds(retrySeconds) {
                    lastAttempt = ContinuousClock.now
                    reconnect()
                }
                continue
            }
            if group.isEmpty {
                // Idle: check the connection, so that /healthz knows without a request.
                if idle >= .seconds(retrySeconds) { check(current) }
                continue
            }
            commitGroup(group, on: current)
        }
    }

    private var downReason: String {
        condition.lock()
        defer { condition.unlock() }
        return down?.reason ?? "cannot reach the team log \(address)"
    }

    private func commitGroup(_ group: [Waiting], on current: TeamLogConnection) {
        let documents = group.map(\.document)
        let result = Self.blocking(timeout: commitTimeout, closing: current) { try await current.commitReceived(documents) }
        switch result {
        case .success(let receipts):
            condition.lock()
            commits += 1
            let number = commits
            lastActivity = .now
            let top = receipts.values.map(\.sequence).max() ?? 0
            lastCommit = (Date(), max(lastCommit?.sequence ?? 0, top))
            condition.unlock()
            for waiting in group {
                // commitReceived returns a receipt for every document, or throws.
                let receipt = receipts[waiting.document.sha256]!
                waiting.answer(.logged(sequence: receipt.sequence, added: receipt.added, commit: number))
            }
        case .failure(let error):
            let reason = Self.describe(error, address: address, timeout: commitTimeout)
            lose(current, reason: reason)
            for waiting in group { waiting.answer(.notLogged(reason: reason)) }
        }
    }

    private func check(_ current: TeamLogConnection) {
        let result = Self.blocking(timeout: 2 * retrySeconds, closing: current) { try await current.ping() }
        switch result {
        case .success:
            condition.lock()
            lastActivity = .now
            condition.unlock()
        case .failure(let error):
            lose(current, reason: Self.describe(error, address: address, timeout: 2 * retrySeconds))
        }
    }

    /// The connection failed: closed, and the writer down until a new one works. Requests waiting
    /// are answered by the caller; those that arrive from now on are answered at once.
    private func lose(_ current: TeamLogConnection, reason: String) {
        // In the background: PostgresNIO closes a connection once its queries are done, and a
        // query to a server that stopped answering may never be.
        Task { await current.close() }
        condition.lock()
        connection = nil
        if down == nil { down = (Date(), reason) }
        let waiting = queue
        queue.removeAll()
        condition.unlock()
        for w in waiting { w.answer(.notLogged(reason: reason)) }
    }

    private func reconnect() {
        let attempt = Self.blocking(timeout: 2 * commitTimeout, closing: nil) { try await self.connect() }
        switch attempt {
        case .success(let fresh):
            condition.lock()
            if stopped {
                condition.unlock()
                Task { await fresh.close() }
                return
            }
            connection = fresh
            down = nil
            lastActivity = .now
            condition.unlock()
        case .failure(let error):
            condition.lock()
            down = (down?.since ?? Date(), Self.describe(error, address: address, timeout: nil))
            condition.unlock()
        }
    }

    static func describe(_ error: any Error, address: TeamLogAddress, timeout: Double?) -> String {
        if let error = error as? TeamLogError { return error.description }
        if error is TimedOut, let timeout {
            return "the team log \(address) did not answer within \(seconds(timeout)): its connection was closed"
        }
        return "lost the team log \(address): \(TeamLogConnection.reason(error))"
    }

    struct TimedOut: Error {}

    /// Runs `body` on the concurrency pool and waits for it on this thread (the writer's own, never
    /// one of the pool's), at most `timeout` seconds: then the result is a ``TimedOut``, `body` is
    /// left to end when it may, and the connection `closing` is closed in the background (a query
    /// to a server that stopped answering is not failed by PostgresNIO: it waits for its answer).
    private static func blocking<T: Sendable>(
        timeout: Double?, closing connection: TeamLogConnection?, _ body: @escaping @Sendable () async throws -> T
    ) -> Result<T, any Error> {
        let result = Mutex<Result<T, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await body())
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = $0 ?? outcome }
            finished.signal()
        }
        if let timeout, finished.wait(timeout: .now() + timeout) == .timedOut {
            result.withLock { $0 = $0 ?? .failure(TimedOut()) }
            if let connection { Task { await connection.close() } }
        } else if timeout == nil {
            finished.wait()
        }
        return result.withLock { $0! }
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}
