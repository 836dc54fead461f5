import Foundation
import Logging
import NIOCore
import PostgresNIO

/// One document as the log holds it.
public struct LogDocument: Sendable, Equatable {
    public var sha256: String
    public var body: Data
    public var format: String
    /// `signed` (Apple's signature was verified when it was pushed) or `unsigned` (a format with no
    /// signature: v1 notifications, /verifyReceipt responses, customer CSVs).
    public var outcome: String
    public var source: String

    public init(sha256: String, body: Data, format: String, outcome: String, source: String) {
        self.sha256 = sha256
        self.body = body
        self.format = format
        self.outcome = outcome
        self.source = source
    }
}

/// A document read back from the log, with its place in it.
public struct LogEntry: Sendable, Equatable {
    public var sequence: Int64
    public var document: LogDocument
}

/// A connection to the team log: opened with ``open(_:migrate:)``, which creates or migrates the
/// schema when the role may and refuses a log from a newer subdash.
public final class TeamLogConnection: Sendable {
    public let address: TeamLogAddress
    let connection: PostgresConnection
    let logger: Logger
    /// The log's identity (`subdash_log.log_id`), recorded by every view.
    public let logId: String

    init(address: TeamLogAddress, connection: PostgresConnection, logger: Logger, logId: String) {
        self.address = address
        self.connection = connection
        self.logger = logger
        self.logId = logId
    }

    /// Connects and brings the schema up to date. A role that may not create tables can still use
    /// a log whose schema is current (a listener's or an analyst's role); when it is not, the
    /// message says to run subdash once with the owner's role.
    public static func open(_ address: TeamLogAddress, migrate: Bool = true) async throws -> TeamLogConnection {
        var logger = Logger(label: "subdash.teamlog")
        logger.logLevel = .critical
        let configuration = try address.connectionConfiguration()
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        } catch {
            throw TeamLogError.unreachable("cannot reach the team log \(address): \(Self.reason(error))")
        }
        do {
            let logId = try await Self.prepareSchema(connection, address: address, logger: logger, migrate: migrate)
            return TeamLogConnection(address: address, connection: connection, logger: logger, logId: logId)
        } catch {
            try? await connection.close()
            throw error
        }
    }

    public func close() async {
        try? await connection.close()
    }

    /// Whether the connection is closed (by this side, the server, or the network).
    public var isClosed: Bool { connection.isClosed }

    /// Why a PostgresNIO call failed, without the URL or anything else that could carry a secret:
    /// the server's message and SQLSTATE, or the connection's failure.
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                return message + state
            }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        if let error = error as? PostgresTransactionError {
            return reason(error.closureError ?? error.commitError ?? error.beginError ?? error.rollbackError ?? error)
        }
        return "\(error)"
    }

    static func sqlState(_ error: any Error) -> String? { (error as? PSQLError)?.serverInfo?[.sqlState] }

    private static func prepareSchema(
        _ connection: PostgresConnection, address: TeamLogAddress, logger: Logger, migrate: Bool
    ) async throws -> String {
        let known = TeamLogSchema.migrations.map(\.name)
        var applied = try await appliedMigrations(connection, logger: logger)
        if let applied, let newer = applied.first(where: { !known.contains($0) }) {
            throw TeamLogError.schema(
                "the team log \(address) is from a newer subdash (it has migration '\(TeamLogAddress.shown(newer))'): upgrade subdash"
            )
        }
        if applied.map({ Set(known).isSubset(of: $0) }) != true {
            guard migrate else {
                throw TeamLogError.schema("the team log \(address) has no subdash schema yet (or an older one)")
            }
            do {
                try await runMigrations(connection, logger: logger)
            } catch let error as TeamLogError {
                throw error
            } catch {
                let state = sqlState(error)
                if state == "42501" {
                    throw TeamLogError.refused(
                        "the team log \(address) has no subdash schema yet (or an older one), and this role may not create it: "
                            + "run `subdash sync` once with the log owner's role (docs/team.md)")
                }
                throw TeamLogError.schema("cannot create the team log's schema in \(address): \(reason(error))")
            }
            applied = try await appliedMigrations(connection, logger: logger)
        }
        do {
            let rows = try await connection.query("SELECT log_id FROM subdash_log WHERE id = 1", logger: logger)
            for try await logId in rows.decode(String.self) { return logId }
        } catch {
            throw TeamLogError.refused("cannot read the team log \(address): \(reason(error))")
        }
        throw TeamLogError.schema("the team log \(address) has no identity row (subdash_log): it was changed by hand")
    }

    /// The migrations the log records; nil when it has no migration table yet.
    private static func appliedMigrations(_ connection: PostgresConnection, logger: Logger) async throws -> Set<String>? {
        do {
            let rows = try await connection.query("SELECT name FROM subdash_migration", logger: logger)
            var names: Set<String> = []
            for try await name in rows.decode(String.self) { names.insert(name) }
            return names
        } catch {
            if sqlState(error) == "42P01" { return nil }  // undefined_table
            throw TeamLogError.refused("cannot read the team log's migrations: \(reason(error))")
        }
    }

    /// Each missing migration in a transaction of its own, under a lock on the migration table so
    /// that two processes starting at once apply each migration once.
    private static func runMigrations(_ connection: PostgresConnection, logger: Logger) async throws {
        do {
            try await connection.query(PostgresQuery(unsafeSQL: TeamLogSchema.migrationTable), logger: logger)
        } catch {
            // Two processes creating the table at once: one wins (unique_violation), the table is there.
            guard sqlState(error) == "23505" else { throw error }
        }
        for migration in TeamLogSchema.migrations {
            try await transaction(connection, logger: logger) {
                try await connection.query("LOCK TABLE subdash_migration IN EXCLUSIVE MODE", logger: logger)
                let rows = try await connection.query(
                    "SELECT count(*) FROM subdash_migration WHERE name = \(migration.name)", logger: logger)
                var done = false
                for try await count in rows.decode(Int64.self) { done = count > 0 }
                if !done {
                    for statement in migration.sql {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    if migration.name == TeamLogSchema.migrations[0].name {
                        let logId = UUID().uuidString.lowercased()
                        try await connection.query(
                            "INSERT INTO subdash_log (id, log_id) VALUES (1, \(logId))", logger: logger)
                    }
                    try await connection.query(
                        "INSERT INTO subdash_migration (name) VALUES (\(migration.name))", logger: logger)
                }
            }
        }
    }

    /// Runs `body` in one transaction on `connection`: committed when it returns, rolled back when
    /// it throws.
    private static func transaction<T>(
        _ connection: PostgresConnection, logger: Logger, _ body: () async throws -> T
    ) async throws -> T {
        try await connection.query("BEGIN", logger: logger)
        do {
            let result = try await body()
            try await connection.query("COMMIT", logger: logger)
            return result
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// Runs `body` in one transaction that first takes the writers' turn (so what other writers
    /// committed is visible and none inserts meanwhile) and, when `body` returns a sequence number
    /// above 0, ends with a NOTIFY of it to the views.
    func inWritersTurn(_ body: () async throws -> Int64) async throws {
        try await Self.transaction(connection, logger: logger) {
            try await connection.query("UPDATE subdash_writer_turn SET turns = turns + 1 WHERE id = 1", logger: logger)
            let last = try await body()
            if last > 0 {
                try await connection.query(
                    PostgresQuery(unsafeSQL: "NOTIFY \(TeamLogSchema.channel), '\(last)'"), logger: logger)
            }
        }
    }

    /// Whether this connection's role may insert documents, asked before anything is read or sent.
    public func mayInsertDocuments() async throws -> Bool {
        do {
            let rows = try await connection.query(
                """
                SELECT has_table_privilege('subdash_document', 'INSERT')
                    AND has_table_privilege('subdash_writer_turn', 'UPDATE')
                """, logger: logger)
            for try await may in rows.decode(Bool.self) { return may }
            return false
        } catch {
            throw TeamLogError.unreachable("cannot ask the team log \(address) for this role's rights: \(Self.reason(error))")
        }
    }

    /// Refuses, with a message that says what to do, when this role may not insert documents.
    public func requireDocumentInserts() async throws {
        guard try await mayInsertDocuments() else {
            throw TeamLogError.refused(
                "the team log \(address) does not let this role insert documents: "
                    + "use a listener's or an importer's role (docs/team.md, \"Roles\")")
        }
    }

    /// Rows per INSERT: six parameters each, far under PostgreSQL's 65,535.
    static let rowsPerInsert = 500

    /// Inserts the documents the log does not hold yet (by sha256, decided by the database), in one
    /// transaction that first takes the writers' turn and ends with a NOTIFY to the views.
    /// - Returns: the sha256 of each document inserted now; the others were in the log already.
    @discardableResult
    public func push(_ page: [LogDocument]) async throws -> Set<String> {
        guard !page.isEmpty else { return [] }
        var inserted: Set<String> = []
        do {
            // What the log holds already is neither sent again nor given a sequence number (an
            // insert that conflicts still uses one up): a backfill run twice sends its bytes once.
            let held = try await connection.query(
                "SELECT sha256 FROM subdash_document WHERE sha256 = ANY(\(page.map(\.sha256)))", logger: logger)
            var known: Set<String> = []
            for try await sha in held.decode(String.self) { known.insert(sha) }
            var seen: Set<String> = []
            let documents = page.filter { !known.contains($0.sha256) && seen.insert($0.sha256).inserted }
            guard !documents.isEmpty else { return [] }
            try await inWritersTurn {
                var last: Int64 = 0
                for (seq, sha) in try await insert(documents) {
                    inserted.insert(sha)
                    last = max(last, seq)
                }
                return last
            }
        } catch {
            throw Self.failure(error, doing: "write to", address: address)
        }
        return inserted
    }

    /// Inserts `documents` (inside the caller's transaction, which holds the writers' turn),
    /// `rowsPerInsert` rows a statement; the database skips those it holds (by sha256).
    /// - Returns: the sequence number and sha256 of each row inserted now.
    private func insert(_ documents: [LogDocument]) async throws -> [(Int64, String)] {
        var inserted: [(Int64, String)] = []
        var start = documents.startIndex
        while start < documents.endIndex {
            let end = min(start + Self.rowsPerInsert, documents.endIndex)
            var bindings = PostgresBindings(capacity: (end - start) * 6)
            var values: [String] = []
            values.reserveCapacity(end - start)
            for (i, document) in documents[start..<end].enumerated() {
                let p = i * 6
                values.append("($\(p + 1), $\(p + 2), $\(p + 3), $\(p + 4), $\(p + 5), $\(p + 6))")
                bindings.append(document.sha256)
                try bindings.append(document.body)
                bindings.append(Int32(clamping: document.body.count))
                bindings.append(document.format)
                bindings.append(document.outcome)
                bindings.append(document.source)
            }
            let sql = """
                INSERT INTO subdash_document (sha256, body, byte_count, format, outcome, source)
                VALUES \(values.joined(separator: ", "))
                ON CONFLICT (sha256) DO NOTHING RETURNING seq, sha256
                """
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
            for try await row in rows.decode((Int64, String).self) { inserted.append(row) }
            start = end
        }
        return inserted
    }

    /// Where a received document is in the log: its sequence number, and whether this commit added
    /// it (false: the log held it already, from any writer).
    public struct Receipt: Sendable, Equatable {
        public var sequence: Int64
        public var added: Bool

        public init(sequence: Int64, added: Bool) {
            self.sequence = sequence
            self.added = added
        }
    }

    /// Commits received documents (a listener's group) in one transaction, and returns each one's
    /// place in the log by sha256. The transaction takes the writers' turn first, so what other
    /// writers committed is visible and none of them is inserting meanwhile: a document the log
    /// holds already keeps its sequence number (none is used up). The insert still goes through
    /// the unique constraint (`ON CONFLICT (sha256) DO NOTHING`): the database, not this process,
    /// decides what is a duplicate, whichever listener, importer or version of subdash wrote first.
    public func commitReceived(_ documents: [LogDocument]) async throws -> [String: Receipt] {
        guard !documents.isEmpty else { return [:] }
        var receipts: [String: Receipt] = [:]
        do {
            try await inWritersTurn {
                let held = try await connection.query(
                    "SELECT seq, sha256 FROM subdash_document WHERE sha256 = ANY(\(documents.map(\.sha256)))",
                    logger: logger)
                for try await (seq, sha) in held.decode((Int64, String).self) {
                    receipts[sha] = Receipt(sequence: seq, added: false)
                }
                var seen: Set<String> = []
                let new = documents.filter { receipts[$0.sha256] == nil && seen.insert($0.sha256).inserted }
                var last: Int64 = 0
                for (seq, sha) in try await insert(new) {
                    receipts[sha] = Receipt(sequence: seq, added: true)
                    last = max(last, seq)
                }
                // Held by a writer that does not take the turn (by hand, an older subdash): the
                // insert above left them out, and the database says where they are.
                let missing = new.map(\.sha256).filter { receipts[$0] == nil }
                if !missing.isEmpty {
                    let rows = try await connection.query(
                        "SELECT seq, sha256 FROM subdash_document WHERE sha256 = ANY(\(missing))", logger: logger)
                    for try await (seq, sha) in rows.decode((Int64, String).self) {
                        receipts[sha] = Receipt(sequence: seq, added: false)
                    }
                }
                return last
            }
        } catch {
            throw Self.failure(error, doing: "write to", address: address)
        }
        guard documents.allSatisfy({ receipts[$0.sha256] != nil }) else {
            throw TeamLogError.integrity("the team log \(address) neither took a document nor holds it")
        }
        return receipts
    }

    /// A round trip to the server (`SELECT 1`): whether the connection still works.
    public func ping() async throws {
        do {
            try await connection.query("SELECT 1", logger: logger)
        } catch {
            throw Self.failure(error, doing: "reach", address: address)
        }
    }

    /// A failure of a statement as a ``TeamLogError``: refused when the role lacks the right.
    static func failure(_ error: any Error, doing what: String, address: TeamLogAddress) -> TeamLogError {
        if let error = error as? TeamLogError { return error }
        if sqlState(error) == "42501" {
            return .refused("the team log \(address) refused this role: \(reason(error)) (docs/team.md, \"Roles\")")
        }
        if let error = error as? PSQLError, error.serverInfo == nil {
            return .unreachable("lost the team log \(address): \(reason(error))")
        }
        return .schema("cannot \(what) the team log \(address): \(reason(error))")
    }

    /// The last sequence number the log holds, of a document or an action (0 when empty).
    public func lastSequence() async throws -> Int64 {
        do {
            let rows = try await connection.query(
                """
                SELECT GREATEST(COALESCE((SELECT MAX(seq) FROM subdash_document), 0),
                                COALESCE((SELECT MAX(seq) FROM subdash_action), 0))
                """, logger: logger)
            for try await last in rows.decode(Int64.self) { return last }
            return 0
        } catch {
            throw Self.failure(error, doing: "read", address: address)
        }
    }

    /// Entries after `sequence` in order: at most `limit` of them, and no more bytes than `maxBytes`
    /// past the first (which is always returned, whatever its size), so memory stays bounded.
    /// With `through`, none after it.
    public func entries(
        after sequence: Int64, through: Int64? = nil, limit: Int = 2000, maxBytes: Int = 32 << 20
    ) async throws -> [LogEntry] {
        do {
            let upper = through ?? Int64.max
            let sizes = try await connection.query(
                """
                SELECT seq, byte_count FROM subdash_document WHERE seq > \(sequence) AND seq <= \(upper)
                ORDER BY seq LIMIT \(Int64(limit))
                """,
                logger: logger)
            var through: Int64 = sequence
            var bytes = 0
            for try await (seq, count) in sizes.decode((Int64, Int32).self) {
                if through > sequence && bytes + Int(count) > maxBytes { break }
                bytes += Int(count)
                through = seq
            }
            guard through > sequence else { return [] }
            let rows = try await connection.query(
                """
                SELECT seq, sha256, body, format, outcome, source FROM subdash_document
                WHERE seq > \(sequence) AND seq <= \(through) ORDER BY seq
                """, logger: logger)
            var entries: [LogEntry] = []
            for try await (seq, sha, body, format, outcome, source) in rows.decode(
                (Int64, String, ByteBuffer, String, String, String).self)
            {
                entries.append(
                    LogEntry(
                        sequence: seq,
                        document: LogDocument(
                            sha256: sha, body: Data(body.readableBytesView), format: format, outcome: outcome,
                            source: source)))
            }
            return entries
        } catch {
            throw Self.failure(error, doing: "read", address: address)
        }
    }

    /// Runs `body` while this connection LISTENs to the log's channel: `body` gets the notifications
    /// (each the last sequence number a writer committed). LISTEN is in place before `body` runs,
    /// so a catch-up read inside it misses nothing committed afterwards.
    public func listening<Value>(_ body: (PostgresNotificationSequence) async throws -> Value) async throws -> Value {
        do {
            return try await connection.listen(on: TeamLogSchema.channel, consume: body)
        } catch let error as TeamLogError {
            throw error
        } catch {
            throw Self.failure(error, doing: "follow", address: address)
        }
    }
}
