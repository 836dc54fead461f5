import Foundation
import PostgresNIO
import SubscriberStore
import Synchronization

/// An operator action read back from the log, with its place in it; `action` is nil when its
/// detail is not one this subdash reads (written by hand, or by a newer subdash).
public struct LogAction: Sendable, Equatable {
    public var sequence: Int64
    public var action: OperatorAction?
}

extension TeamLogConnection {
    /// Whether this connection's role may write operator actions (flags, notes, support actions'
    /// audit entries): insert into `subdash_action`, take the writers' turn, number the entry.
    public func mayInsertActions() async throws -> Bool {
        do {
            let rows = try await connection.query(
                """
                SELECT has_table_privilege('subdash_action', 'INSERT')
                    AND has_table_privilege('subdash_writer_turn', 'SELECT')
                    AND has_table_privilege('subdash_writer_turn', 'UPDATE')
                    AND has_sequence_privilege('subdash_document_seq_seq', 'USAGE')
                """, logger: logger)
            for try await may in rows.decode(Bool.self) { return may }
            return false
        } catch {
            throw TeamLogError.unreachable("cannot ask the team log \(address) for this role's rights: \(Self.reason(error))")
        }
    }

    /// Refuses, with a message that says what to do, when this role may not write operator
    /// actions: asked when a command that writes starts, before anyone types a note.
    public func requireActionInserts() async throws {
        guard try await mayInsertActions() else {
            throw TeamLogError.refused(
                "the team log \(address) does not let this role write operator actions (flags, notes, support actions): "
                    + "use a support agent's or an operator's role (docs/team.md, \"Roles\"); nothing was written")
        }
    }

    /// Commits operator actions in one transaction that takes the writers' turn and ends with a
    /// NOTIFY to the views. A flag takes the log's clock at the commit as its instant, so "the later
    /// flag" means the same on every host.
    /// - Returns: the actions as committed.
    public func commitActions(_ actions: [OperatorAction]) async throws -> [OperatorAction] {
        guard !actions.isEmpty else { return [] }
        var committed = actions
        do {
            try await inWritersTurn {
                let clock = try await connection.query("SELECT clock_timestamp()", logger: logger)
                var now = Date()
                for try await date in clock.decode(Date.self) { now = date }
                let nowMilliseconds = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
                var last: Int64 = 0
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                for index in committed.indices {
                    if committed[index].kind == .flag { committed[index].at = nowMilliseconds }
                    let action = committed[index]
                    let detail = String(decoding: try encoder.encode(action), as: UTF8.self)
                    let actionId = UUID().uuidString.lowercased()
                    let kind = action.kind == .flag ? "flag" : "audit"
                    let actedAt = Date(timeIntervalSince1970: Double(action.at) / 1000)
                    let rows = try await connection.query(
                        """
                        INSERT INTO subdash_action (action_id, kind, subject, operator, detail, acted_at)
                        VALUES (\(actionId), \(kind), \(action.subject), \(action.operatorName), \(detail), \(actedAt))
                        RETURNING seq
                        """, logger: logger)
                    for try await seq in rows.decode(Int64.self) { last = max(last, seq) }
                }
                return last
            }
        } catch {
            throw Self.failure(error, doing: "write to", address: address)
        }
        return committed
    }

    /// Operator actions after `sequence` (and at most `through`), in order, at most `limit`.
    public func actions(after sequence: Int64, through: Int64? = nil, limit: Int = 2000) async throws -> [LogAction] {
        do {
            let upper = through ?? Int64.max
            let rows = try await connection.query(
                """
                SELECT seq, detail FROM subdash_action WHERE seq > \(sequence) AND seq <= \(upper)
                ORDER BY seq LIMIT \(Int64(limit))
                """, logger: logger)
            var actions: [LogAction] = []
            let decoder = JSONDecoder()
            for try await (seq, detail) in rows.decode((Int64, String).self) {
                actions.append(
                    LogAction(sequence: seq, action: try? decoder.decode(OperatorAction.self, from: Data(detail.utf8))))
            }
            return actions
        } catch {
            throw Self.failure(error, doing: "read", address: address)
        }
    }

    /// How many entries (documents and actions) the log holds after `sequence`, and the commit
    /// time of the oldest of them: how far behind a view at `sequence` is.
    public func behind(after sequence: Int64) async throws -> (entries: Int64, oldest: Date?) {
        do {
            let rows = try await connection.query(
                """
                SELECT (SELECT count(*) FROM subdash_document WHERE seq > \(sequence))
                    + (SELECT count(*) FROM subdash_action WHERE seq > \(sequence)),
                    LEAST((SELECT min(received_at) FROM subdash_document WHERE seq > \(sequence)),
                          (SELECT min(acted_at) FROM subdash_action WHERE seq > \(sequence)))
                """, logger: logger)
            for try await (count, oldest) in rows.decode((Int64, Date?).self) { return (count, oldest) }
            return (0, nil)
        } catch {
            throw Self.failure(error, doing: "read", address: address)
        }
    }
}

/// Operator writes of a view committed to the team log (``AppDatabase/writeOperatorActions(through:)``):
/// the store's writes are synchronous, so each commit runs on the connection's event loop while
/// the writing thread waits for it.
///
/// A dashboard holds one for as long as it runs, so it outlives its connection: a connection the
/// server closed (a restart, a failover, an idle timeout) is replaced by a new one before the next
/// write, and a log that does not answer within `timeout` seconds has its connection closed (which
/// makes the server roll back whatever that write had begun) and the write refused; the next write
/// connects again. A replacement connection must reach the same log (`logId`): a log restored or
/// replaced under the same address is refused, not written to.
public final class TeamActionLog: OperatorActionLog {
    private let state: Mutex<TeamLogConnection?>
    /// The log's address and identity, from the connection the log was opened with.
    public let address: TeamLogAddress
    public let logId: String
    private let wait: Mutex<Double>

    /// Seconds a write waits for the log before it is refused.
    public var timeout: Double {
        get { wait.withLock { $0 } }
        set { wait.withLock { $0 = newValue } }
    }

    public init(log: TeamLogConnection, timeout: Double = 15) {
        state = Mutex(log)
        address = log.address
        logId = log.logId
        wait = Mutex(timeout)
    }

    /// The connection the next write goes through (nil between a lost one and the next write).
    public var log: TeamLogConnection? { state.withLock { $0 } }

    public func commit(_ actions: [OperatorAction]) throws -> [OperatorAction] {
        let outcome = Outcome()
        let current = state.withLock { $0 }
        let (address, logId, timeout) = (self.address, self.logId, self.timeout)
        Task.detached {
            do {
                var connection = current
                if connection == nil || connection!.isClosed {
                    if let connection { await connection.close() }
                    let fresh = try await TeamLogConnection.open(address, migrate: false)
                    guard fresh.logId == logId else {
                        await fresh.close()
                        throw TeamLogError.integrity(
                            "the team log at \(address) is another log now (log \(fresh.logId), not \(logId)): nothing was written"
                        )
                    }
                    connection = fresh
                }
                guard let connection, outcome.use(connection) else {
                    // The writer stopped waiting while this connected: nothing is sent.
                    if let connection, connection !== current { await connection.close() }
                    throw TeamLogError.unreachable("abandoned")
                }
                outcome.result = .success(try await connection.commitActions(actions))
            } catch {
                outcome.result = .failure(error)
            }
            outcome.done.signal()
        }
        if outcome.done.wait(timeout: .now() + timeout) == .timedOut {
            // Closing the connection makes the server roll back the write it is in, unless its
            // commit was already through: then it reaches this view with the log's next entries.
            let stuck = [
                outcome.abandon(),
                state.withLock { held in
                    defer { held = nil }
                    return held
                },
            ]
            Task { for connection in stuck { await connection?.close() } }
            throw StoreError(
                "the team log \(address) did not answer within \(TeamLogWriter.seconds(timeout)): its connection was closed "
                    + "and the write is not in this store (if the log took it before, it comes with the log's next entries); "
                    + "the next write connects again")
        }
        // Keep the connection that answered; drop one the failure closed, so the next write reconnects.
        let used = outcome.connection
        state.withLock { held in held = used.flatMap { $0.isClosed ? nil : $0 } }
        switch outcome.result {
        case .success(let committed): return committed
        case .failure(let error): throw StoreError("\(error)")
        case nil: throw StoreError("the team log \(address) did not answer")
        }
    }

    /// Closes the connection the writes go through.
    public func close() async {
        let held = state.withLock { held in
            defer { held = nil }
            return held
        }
        await held?.close()
    }

    /// `@unchecked Sendable`: `result` is written before `done` is signalled and read after it;
    /// the connection in use and whether the writer stopped waiting are behind a lock.
    private final class Outcome: @unchecked Sendable {
        var result: Result<[OperatorAction], any Error>?
        let done = DispatchSemaphore(value: 0)
        private let held = Mutex<(connection: TeamLogConnection?, abandoned: Bool)>((nil, false))

        /// Records the connection the write goes through; false when the writer stopped waiting.
        func use(_ connection: TeamLogConnection) -> Bool {
            held.withLock { held in
                guard !held.abandoned else { return false }
                held.connection = connection
                return true
            }
        }

        /// The writer stops waiting: returns the connection in use, to be closed.
        func abandon() -> TeamLogConnection? {
            held.withLock { held in
                held.abandoned = true
                return held.connection
            }
        }

        var connection: TeamLogConnection? { held.withLock { $0.connection } }
    }
}
