import Foundation
import PostgresNIO
import SubscriberStore

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
public final class TeamActionLog: OperatorActionLog {
    public let log: TeamLogConnection

    public init(log: TeamLogConnection) { self.log = log }

    public func commit(_ actions: [OperatorAction]) throws -> [OperatorAction] {
        let outcome = Outcome()
        let log = self.log
        Task.detached {
            do { outcome.result = .success(try await log.commitActions(actions)) } catch { outcome.result = .failure(error) }
            outcome.done.signal()
        }
        outcome.done.wait()
        switch outcome.result {
        case .success(let committed): return committed
        case .failure(let error): throw StoreError("\(error)")
        case nil: throw StoreError("the team log \(log.address) did not answer")
        }
    }

    /// `@unchecked Sendable`: `result` is written before `done` is signalled and read after it.
    private final class Outcome: @unchecked Sendable {
        var result: Result<[OperatorAction], any Error>?
        let done = DispatchSemaphore(value: 0)
    }
}
