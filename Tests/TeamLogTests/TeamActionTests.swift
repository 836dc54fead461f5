import Foundation
import GRDB
import SubscriberStore
import SubscriptionModel
import TeamLog
import TestSupport
import Testing

/// Operator writes through the team log (docs/team.md, "Operator writes"): flags and support
/// actions' audit entries committed to the log, shown at once in the writer's view and brought to
/// every other view by `subdash sync`, each once; a role that may not write them refused; and a
/// dashboard started with `--team` following the log, against a real PostgreSQL server.
/// In the one serialized suite of the team log tests: another of them stops the server.
extension TeamLogTests {
    /// A log holding the first five notifications, and two views of it synced.
    static func twoViews(_ label: String) throws -> (server: PostgresServer, url: String, a: String, b: String, id: String) {
        let server = try PostgresServer.server()
        let url = try server.createDatabase(label)
        let documents = Array(try TeamLogTests.notifications.get().prefix(5))
        let push = try Subdash.run([
            "import", "--team", url, "--trust-root", trustRoot, try TeamLogTests.ndjson(documents, name: label),
        ])
        guard push.status == 0 else { throw TestSupportError("import --team failed: \(push.stderr)") }
        let (a, b) = (TemporaryDirectory.uniquePath("\(label)-a.sqlite"), TemporaryDirectory.uniquePath("\(label)-b.sqlite"))
        for view in [a, b] {
            let sync = try Subdash.run(["sync", "--team", url, "--db", view, "--trust-root", trustRoot])
            guard sync.status == 0 else { throw TestSupportError("sync failed: \(sync.stderr)") }
        }
        let id = try DatabaseQueue(path: a).read { db in
            try String.fetchOne(db, sql: "SELECT originalTransactionId FROM subscription ORDER BY originalTransactionId")
        }
        guard let id else { throw TestSupportError("no subscription in the view") }
        return (server, url, a, b, id)
    }

    static func json(_ run: Subdash.Run) throws -> [[String: Any]] {
        guard run.status == 0 else { throw TestSupportError("failed: \(run.stderr)") }
        return (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    /// `subdash flags` of a view: (subscription, operator, note) of each current flag.
    static func flags(_ view: String) throws -> [[String]] {
        try json(try Subdash.run(["flags", "--db", view, "--format", "json"])).map {
            [$0["originalTransactionId"] as? String ?? "", $0["operator"] as? String ?? "", $0["note"] as? String ?? ""]
        }
    }

    /// `subdash log` of a view: (operator, what) of each line, oldest first.
    static func audit(_ view: String) throws -> [[String]] {
        try json(try Subdash.run(["log", "--db", view, "--format", "json"])).map {
            [$0["operator"] as? String ?? "", $0["what"] as? String ?? "", $0["answer"] as? String ?? ""]
        }
    }

    /// Runs `body` to its end on a thread of its own (the store's team writes wait for the log).
    static func offThread<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    static func rows(_ view: String, _ table: String) throws -> Int {
        try DatabaseQueue(path: view).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? -1 }
    }

    @Test func aFlagSetInOneViewAppearsInTheOtherAndTheLaterOfTwoWins() throws {
        let (server, url, a, b, id) = try Self.twoViews("flags")

        // Alice flags in view A: A shows it at once, B after a sync.
        let alice = try Subdash.run([
            "flag", "--team", url, "--db", a, id, "--offer", "winBack", "--note", "called: offered a month", "--operator",
            "alice",
        ])
        #expect(alice.status == 0, "\(alice.stderr)")
        #expect(alice.stdout.contains("flagged for winBack: 1 subscription as alice"), "\(alice.stdout)")
        #expect(try Self.flags(a) == [[id, "alice", "called: offered a month"]])
        #expect(try TeamLogTests.count(server, url, "SELECT count(*) FROM subdash_action WHERE kind = 'flag'") == 1)

        // Bob, in view B before it has synced Alice's, flags the same subscriber.
        #expect(try Self.flags(b) == [])
        let bob = try Subdash.run([
            "flag", "--team", url, "--db", b, id, "--offer", "winBack", "--note", "asked for a discount", "--operator", "bob",
        ])
        #expect(bob.status == 0, "\(bob.stderr)")
        #expect(try Self.flags(b) == [[id, "bob", "asked for a discount"]])

        // Both views synced: both entries kept, the later (Bob's) wins everywhere.
        for view in [a, b] {
            let sync = try Subdash.run(["sync", "--team", url, "--db", view, "--trust-root", Self.trustRoot])
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(try Self.flags(view) == [[id, "bob", "asked for a discount"]], "\(view)")
            #expect(
                try Self.audit(view) == [
                    ["alice", "flag winBack set: called: offered a month", ""],
                    ["bob", "flag winBack changed: asked for a discount", ""],
                ], "\(view)")
        }
        let syncedA = try Subdash.run(["sync", "--team", url, "--db", a, "--trust-root", Self.trustRoot])
        #expect(syncedA.stderr.contains("0 log entries read"), "\(syncedA.stderr)")

        // A replay of the whole log on view A doubles nothing.
        try DatabaseQueue(path: a).write { db in try db.execute(sql: "UPDATE teamLogPosition SET lastSequence = 0") }
        let replay = try Subdash.run(["sync", "--team", url, "--db", a, "--trust-root", Self.trustRoot])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stderr.contains("5 log entries read: 0 applied, 5 duplicates"), "\(replay.stderr)")
        #expect(replay.stderr.contains("2 operator actions read: 0 new"), "\(replay.stderr)")
        #expect(try Self.rows(a, "offerFlagLog") == 2)
        #expect(try Self.flags(a) == [[id, "bob", "asked for a discount"]])

        // A view made again from the log has them too.
        let rebuilt = try Subdash.run(["sync", "--team", url, "--db", b, "--rebuild", "--trust-root", Self.trustRoot])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(rebuilt.stderr.contains("2 operator actions read: 2 new"), "\(rebuilt.stderr)")
        #expect(try Self.flags(b) == [[id, "bob", "asked for a discount"]])
        #expect(try Self.rows(b, "offerFlagLog") == 2)

        // Clearing goes the same way.
        let cleared = try Subdash.run([
            "flag", "--team", url, "--db", b, id, "--offer", "winBack", "--clear", "--operator", "bob",
        ])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect(try Self.flags(b) == [])
        #expect(try Subdash.run(["sync", "--team", url, "--db", a, "--trust-root", Self.trustRoot]).status == 0)
        #expect(try Self.flags(a) == [])
        #expect(try Self.audit(a).map { $0[1] }.last == "flag winBack cleared")
    }

    /// Runs `body` on a thread of its own, so that its waiting holds no thread of the cooperative
    /// pool the team log's client runs on (two on a two-core machine).
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// A dashboard's writer outlives its connection: a write while the server is down is refused
    /// and written nowhere, the first write after the restart connects again, a log that does not
    /// answer in time has its write refused (and rolled back on the server), and the next write
    /// goes through; the other view gets exactly the writes the log took.
    @Test func operatorWritesConnectAgainAfterTheLogRestartsAndGiveUpOnALogThatDoesNotAnswer() async throws {
        let (server, url, a, b, id) = try await Self.onThread { try Self.twoViews("reconnect") }
        let name = PostgresServer.databaseName(of: url)
        let messages = try await Self.onThread { () throws -> [String] in
            let log = try Self.offThread { try await TeamLogConnection.open(try TeamLogAddress(parsing: url)) }
            let actionLog = TeamActionLog(log: log, timeout: 300)
            defer { _ = try? Self.offThread { await actionLog.close() } }
            let database = try AppDatabase.open(path: a)
            database.writeOperatorActions(through: actionLog)
            func flag(_ note: String, at seconds: Int64) throws {
                try database.setFlags(
                    OfferFlagWrite(offer: .winBackOffer, ids: [id], operatorName: "erin", note: note, replace: true),
                    at: Instant(milliseconds: 1_790_000_000_000 + seconds * 1000))
            }
            var messages: [String] = []
            // The server stops (its clients' connections end): refused, nothing written here.
            try server.stopServer()
            var running = false
            defer { if !running { try? server.startServer() } }
            do {
                try flag("while the log is down", at: 1)
                messages.append("written")
            } catch { messages.append("\(error)") }
            try server.startServer()
            running = true
            // Back: the same writer connects again.
            try flag("after the restart", at: 2)
            // Another transaction holds the writers' turn longer than the writer waits.
            let holder = Thread {
                _ = try? server.psql(
                    "BEGIN; /* hold-turn */ UPDATE subdash_writer_turn SET turns = turns WHERE id = 1; SELECT pg_sleep(300); COMMIT;",
                    database: name)
            }
            holder.start()
            let held = "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%' || 'hold-' || 'turn%'"
            var waited = 0
            while try TeamLogTests.count(server, url, held) == 0, waited < 200 {
                usleep(50_000)
                waited += 1
            }
            // Only this write is given a short wait: the others may wait as long as the whole
            // suite's load makes a connection take.
            actionLog.timeout = 3
            do {
                try flag("while the turn is held", at: 3)
                messages.append("written")
            } catch { messages.append("\(error)") }
            actionLog.timeout = 300
            // The holder is ended (its transaction rolled back, as is the abandoned write's), and the
            // next write goes through.
            try server.psql(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE query LIKE '%' || 'hold-' || 'turn%' AND pid <> pg_backend_pid()
                """, database: name)
            waited = 0
            while try TeamLogTests.count(server, url, held) > 0, waited < 200 {
                usleep(50_000)
                waited += 1
            }
            try flag("once the turn is free", at: 4)
            return messages
        }
        #expect(messages.count == 2)
        #expect(messages[0].contains("cannot reach the team log"), "\(messages[0])")
        #expect(
            messages[1].contains(
                "did not answer within 3 s: its connection was closed and the write is not in this store"),
            "\(messages[1])")
        #expect(
            try TeamLogTests.count(server, url, "SELECT count(*) FROM subdash_action WHERE kind = 'flag'") == 2)
        let sync = try Subdash.run(["sync", "--team", url, "--db", b, "--trust-root", Self.trustRoot])
        #expect(sync.status == 0, "\(sync.stderr)")
        for view in [a, b] {
            #expect(try Self.flags(view) == [[id, "erin", "once the turn is free"]], "\(view)")
            let audit = try Self.audit(view)
            #expect(audit.map(\.[1]).filter { $0.hasPrefix("flag") }.count == 2, "\(view): \(audit)")
        }
    }

    @Test func aSupportActionAndItsAnswerReachTheOtherView() async throws {
        // The writes wait for the log's client, which runs on the cooperative pool: they run on a
        // thread of their own, and what they show is asserted here.
        let (url, a, b, id) = try await Self.onThread { () throws -> (String, String, String, String) in
            let (_, url, a, b, id) = try Self.twoViews("support")
            let log = try Self.offThread { try await TeamLogConnection.open(try TeamLogAddress(parsing: url)) }
            let database = try AppDatabase.open(path: a)
            database.writeOperatorActions(through: TeamActionLog(log: log))
            let asked = Instant(milliseconds: 1_790_000_000_000)
            let action = try database.beginSupportAction(
                kind: .extend, target: id, environment: "Sandbox", summary: "extend by 7 days (customer-satisfaction)",
                request: "{}", requestIdentifier: "req-1", operatorName: "carol", at: asked)
            try database.recordSupportAnswer(
                SupportAnswer(outcome: .done, answer: "effective 2026-12-14", at: asked.adding(milliseconds: 900)),
                action: action)
            _ = try Self.offThread { await log.close() }
            return (url, a, b, id)
        }
        _ = id
        let expected = [["carol", "extend by 7 days (customer-satisfaction)", "done: effective 2026-12-14"]]
        #expect(try Self.audit(a) == expected)
        for view in [a, b] {
            let sync = try Subdash.run(["sync", "--team", url, "--db", view, "--trust-root", Self.trustRoot])
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(try Self.audit(view) == expected, "\(view)")
            #expect(try Self.rows(view, "supportAction") == 1)
            #expect(try Self.rows(view, "supportAnswer") == 1)
        }
    }

    @Test func aRoleThatMayNotWriteActionsIsRefusedBeforeAnything() throws {
        let (server, url, a, _, id) = try Self.twoViews("actionroles")
        let database = PostgresServer.databaseName(of: url)
        let suffix = "a\(getpid())"
        try TeamLogTests.createRoles(server, database: database, suffix: suffix)
        // A role of its own, made here, that may read everything and insert nothing.
        try server.psql(
            """
            CREATE ROLE reader_\(suffix) LOGIN;
            GRANT SELECT ON subdash_migration, subdash_log, subdash_document, subdash_action, subdash_writer_turn
                TO reader_\(suffix);
            """, database: database)
        for role in ["subdash_analyst_\(suffix)", "reader_\(suffix)", "subdash_listener_\(suffix)"] {
            let refused = try Subdash.run([
                "flag", "--team", server.url(database: database, role: role), "--db", a, id, "--offer", "winBack", "--note",
                "never written", "--operator", "dave",
            ])
            #expect(refused.status == 3, "\(role): \(refused.stderr)")
            #expect(
                refused.stderr.contains(
                    "does not let this role write operator actions (flags, notes, support actions): "
                        + "use a support agent's or an operator's role (docs/team.md, \"Roles\"); nothing was written"),
                "\(role): \(refused.stderr)")
        }
        #expect(try Self.flags(a) == [])
        #expect(try TeamLogTests.count(server, url, "SELECT count(*) FROM subdash_action") == 0)

        // The support role of docs/team.md writes them.
        let support = try Subdash.run([
            "flag", "--team", server.url(database: database, role: "subdash_support_\(suffix)"), "--db", a, id, "--offer",
            "winBack", "--note", "written", "--operator", "erin",
        ])
        #expect(support.status == 0, "\(support.stderr)")
        #expect(try Self.flags(a) == [[id, "erin", "written"]])
        #expect(try TeamLogTests.count(server, url, "SELECT count(*) FROM subdash_action") == 1)
    }
}

/// `@unchecked Sendable`: `result` is written before a semaphore is signalled and read after it.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
