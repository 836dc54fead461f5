import Foundation
import StoreImport
import SubscriberStore
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `subdash listen --team` as Apple and a load balancer see it: real processes, real sockets on
/// loopback, the private PostgreSQL server (in the serialized TeamLogTests suite, since one test
/// stops that server).
extension TeamLogTests {
    /// A `subdash listen` process on a free loopback port, its stderr in a file.
    final class Listener: @unchecked Sendable {
        let process: Process
        let port: Int
        let errors: String

        init(_ arguments: [String]) throws {
            errors = TemporaryDirectory.uniquePath("listen.err")
            guard FileManager.default.createFile(atPath: errors, contents: nil) else {
                throw TestSupportError("cannot create \(errors)")
            }
            let errors = self.errors
            let process = try Subdash.process(["listen", "--port", "0", "--trust-root", TeamLogTests.trustRoot] + arguments)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
            try process.run()
            self.process = process
            var found: Int?
            _ = waitUntil(timeout: 60, interval: 0.02) {
                let text = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
                if let r = text.range(of: #"listening on http://127\.0\.0\.1:\d+"#, options: .regularExpression) {
                    found = Int(text[r].split(separator: ":").last!)
                }
                return found != nil || !process.isRunning
            }
            guard let found else {
                if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
                let text = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
                throw TestSupportError("subdash listen did not start: \(text)")
            }
            port = found
        }

        var stderr: String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }

        func kill(_ signal: Int32) {
            Glibc.kill(process.processIdentifier, signal)
            process.waitUntilExit()
        }

        deinit { if process.isRunning { kill(SIGKILL) } }
    }

    struct Answer: Equatable, Sendable {
        var status: Int
        var body: String
    }

    /// One request on its own connection; nil when no whole answer came back (the connection was
    /// refused or cut: the request was not acknowledged).
    static func request(port: Int, _ head: String, body: Data = Data()) -> Answer? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        var out = Data((head + "\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").utf8)
        out.append(body)
        let sentAll = out.withUnsafeBytes { buffer -> Bool in
            var sent = 0
            while sent < buffer.count {
                let n = send(fd, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { return false }
                sent += n
            }
            return true
        }
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            received.append(contentsOf: chunk[0..<n])
        }
        let text = String(decoding: received, as: UTF8.self)
        guard let line = text.split(separator: "\r\n").first, line.hasPrefix("HTTP/1.1 "),
            let status = Int(line.dropFirst(9).prefix(3)), let split = text.range(of: "\r\n\r\n")
        else { return nil }
        // A refused body may be answered before it is all sent (413): that is an answer too.
        _ = sentAll
        return Answer(status: status, body: String(text[split.upperBound...]))
    }

    static func post(port: Int, _ body: Data) -> Answer? {
        request(
            port: port, "POST /notifications HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)",
            body: body)
    }

    static func healthz(port: Int) -> Answer? { request(port: port, "GET /healthz HTTP/1.1") }

    /// The log's digests, as psql lists them.
    static func loggedDigests(_ server: PostgresServer, _ url: String) throws -> [String] {
        try server.psql("SELECT sha256 FROM subdash_document ORDER BY sha256", database: PostgresServer.databaseName(of: url))
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A small deterministic generator: the stream's order and the listener each request goes to.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func twoListenersOnOneLogKeepEachDocumentOnceThroughAKill() throws {
        let server = try PostgresServer.server()
        let url = try server.createDatabase("listeners")
        let documents = try Self.notifications.get()
        let a = try Listener(["--team", url])
        let b = try Listener(["--team", url])

        // Every document once and a fifth of them again (Apple's retries), in a shuffled order;
        // four senders, each request to one listener or the other at random.
        var random = SplitMix(state: 35)
        var stream =
            Array(documents.indices) + (0..<documents.count / 5).map { _ in Int(random.next() % UInt64(documents.count)) }
        stream.shuffle(using: &random)
        let order = stream
        struct Progress {
            var next = 0
            var answered = 0
            var random = SplitMix(state: 3535)
            var aKilled = false
            var unacknowledged: [Int] = []
            var answers: [String: [Answer]] = ["a": [], "b": []]
        }
        final class Shared: Sendable { let state = Mutex(Progress()) }
        let shared = Shared()
        let killAfter = stream.count * 2 / 5
        let senders = DispatchGroup()
        for _ in 0..<4 {
            senders.enter()
            Thread {
                defer { senders.leave() }
                while true {
                    let (index, toA) = shared.state.withLock { p -> (Int?, Bool) in
                        guard p.next < order.count else { return (nil, false) }
                        p.next += 1
                        return (order[p.next - 1], p.random.next() % 2 == 0)
                    }
                    guard let index else { return }
                    let answer = Self.post(port: toA ? a.port : b.port, documents[index])
                    let killNow = shared.state.withLock { p -> Bool in
                        p.answered += 1
                        if let answer { p.answers[toA ? "a" : "b"]!.append(answer) }
                        // Not acknowledged: no answer (the listener died), or not a 200.
                        if answer?.status != 200 { p.unacknowledged.append(index) }
                        guard p.answered >= killAfter && !p.aKilled else { return false }
                        p.aKilled = true
                        return true
                    }
                    // SIGKILL mid-stream: the other senders' requests to it are in flight.
                    if killNow { a.kill(SIGKILL) }
                }
            }.start()
        }
        senders.wait()
        let sent = shared.state.withLock { $0 }
        #expect(sent.aKilled)
        #expect(a.process.terminationReason == .uncaughtSignal)
        // Everything not acknowledged is sent again, to the listener still running.
        for index in sent.unacknowledged {
            let answer = Self.post(port: b.port, documents[index])
            #expect(answer?.status == 200, "\(String(describing: answer))")
            #expect(answer?.body == "logged\n" || answer?.body == "duplicate\n", "\(String(describing: answer))")
        }
        let acknowledgedByA = sent.answers["a"]!.filter { $0.status == 200 }.count
        let acknowledgedByB = sent.answers["b"]!.filter { $0.status == 200 }.count
        #expect(acknowledgedByA > 0 && acknowledgedByB > 0, "both listeners answered: \(acknowledgedByA), \(acknowledgedByB)")
        // Every 200 said whether the document was new to the log or held already; none was new twice.
        let all = sent.answers["a"]! + sent.answers["b"]!
        #expect(all.allSatisfy { $0.status != 200 || $0.body == "logged\n" || $0.body == "duplicate\n" }, "\(all)")
        let expected = Set(documents.map { Importer.sha256Hex(SecretRedaction.redacted($0)) })
        #expect(all.filter { $0.body == "logged\n" }.count <= expected.count)
        #expect(all.contains { $0.body == "duplicate\n" }, "the repeated documents are found in the log")

        // The log holds each document exactly once, and nothing else.
        let logged = try Self.loggedDigests(server, url)
        #expect(logged.count == expected.count, "\(logged.count) entries for \(expected.count) documents")
        #expect(Set(logged) == expected)
        #expect(
            try Self.count(server, url, "SELECT count(*) FROM subdash_document WHERE source = 'listen' AND outcome = 'signed'")
                == expected.count)

        // A view synced from it reports what a clean file import of the same documents reports.
        let view = TemporaryDirectory.uniquePath("listened.sqlite")
        let sync = try Subdash.run(["sync", "--team", url, "--db", view, "--trust-root", Self.trustRoot])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stderr.contains("\(expected.count) log entries read: \(expected.count) applied"), "\(sync.stderr)")
        #expect(try Self.reports(view) == (try Self.cleanImportReports(documents)))

        b.kill(SIGTERM)
        #expect(b.process.terminationStatus == 0, "\(b.stderr)")
        #expect(b.stderr.contains("subdash listen: stopped; everything answered 200 is in the team log postgres://postgres@/"))
        // Each request's line gives the log's sequence number.
        #expect(b.stderr.contains("\"outcome\":\"logged\""), "\(b.stderr.suffix(2000))")
        #expect(b.stderr.range(of: #""seq":\d+"#, options: .regularExpression) != nil)
    }

    @Test func aListenerAnswers503WhileTheLogIsDownAndRecoversByItself() throws {
        let server = try PostgresServer.server()
        let plain = try server.createDatabase("outage")
        // A password in the URL (the test server does not ask for one): it must never be shown.
        let url = plain.replacingOccurrences(of: "postgres://postgres@", with: "postgres://postgres:s3cr3t-pw@")
        let shown = plain.replacingOccurrences(of: "postgres://postgres@", with: "postgres://postgres:***@")
        let documents = Array(try Self.notifications.get().prefix(3))
        // With a local store too: each notification goes to both before the 200.
        let store = TemporaryDirectory.uniquePath("outage.sqlite")
        _ = try AppDatabase.open(path: store)
        let listener = try Listener(["--team", url, "--db", store])
        #expect(listener.stderr.contains("team log \(shown) and store \(store)"), "\(listener.stderr)")

        #expect(Self.post(port: listener.port, documents[0]) == Answer(status: 200, body: "applied\n"))
        let healthy = Self.healthz(port: listener.port)
        #expect(healthy?.status == 200, "\(String(describing: healthy))")
        #expect(healthy?.body.contains("team log: ok, \(shown)") == true, "\(String(describing: healthy))")

        try server.stopServer()
        var restarted = false
        defer { if !restarted { try? server.startServer() } }
        // Noticed without a request (the idle connection is checked every second).
        var down: Answer?
        #expect(
            waitUntil(timeout: 10, interval: 0.1) {
                down = Self.healthz(port: listener.port)
                return down?.status == 503
            }, "\(String(describing: down))")
        let reason = down?.body ?? ""
        #expect(reason.hasPrefix("unhealthy: the team log is unreachable\n"), "\(reason)")
        #expect(reason.contains("team log: unreachable since "), "\(reason)")
        #expect(reason.contains(shown), "the reason names the log: \(reason)")
        #expect(!reason.contains("s3cr3t"))
        #expect(
            Self.post(port: listener.port, documents[1]) == Answer(status: 503, body: "not stored, send again later\n"))

        try server.startServer()
        restarted = true
        var back: Answer?
        #expect(
            waitUntil(timeout: 15, interval: 0.1) {
                back = Self.healthz(port: listener.port)
                return back?.status == 200
            }, "\(String(describing: back))")
        // Apple's retry: the store had it already (it was stored there before the log failed); the log now takes it.
        #expect(Self.post(port: listener.port, documents[1]) == Answer(status: 200, body: "duplicate\n"))
        #expect(Self.post(port: listener.port, documents[2]) == Answer(status: 200, body: "applied\n"))

        let expected = Set(documents.map { Importer.sha256Hex(SecretRedaction.redacted($0)) })
        #expect(Set(try Self.loggedDigests(server, url)) == expected)
        listener.kill(SIGTERM)
        #expect(listener.process.terminationStatus == 0, "\(listener.stderr)")
        #expect(try Self.reports(store) == (try Self.cleanImportReports(documents)))
        #expect(listener.stderr.contains("\"outcome\":\"not stored\""), "\(listener.stderr)")
        #expect(!listener.stderr.contains("s3cr3t"), "\(listener.stderr)")
    }

    @Test func aListenerWithoutAStoreRejectsWhatTheLocalListenerRejects() throws {
        let server = try PostgresServer.server()
        let url = try server.createDatabase("hostile")
        let documents = try Self.notifications.get()
        let store = TemporaryDirectory.uniquePath("hostile.sqlite")
        _ = try AppDatabase.open(path: store)
        let local = try Listener(["--db", store])
        let team = try Listener(["--team", url])
        // A notification whose signed payload was changed after signing.
        var tampered = String(decoding: documents[0], as: UTF8.self)
        if let r = tampered.range(of: "signedPayload\":\""), let dot = tampered[r.upperBound...].firstIndex(of: ".") {
            let at = tampered.index(dot, offsetBy: 40)
            let replacement: Character = tampered[at] == "A" ? "B" : "A"
            tampered.replaceSubrange(at...at, with: String(replacement))
        }
        let bodies: [Data] = [
            Data("{\"not\": \"a notification\"}".utf8), Data(tampered.utf8), Data("\u{1b}[31mnot json".utf8),
        ]
        for body in bodies {
            let fromLocal = Self.post(port: local.port, body)
            let fromTeam = Self.post(port: team.port, body)
            #expect(
                fromTeam != nil && fromTeam == fromLocal, "\(String(describing: fromTeam)) vs \(String(describing: fromLocal))")
            #expect(fromTeam?.status == 400 || fromTeam?.status == 413, "\(String(describing: fromTeam))")
        }
        let wrongMethod = Self.request(port: team.port, "GET /notifications HTTP/1.1")
        #expect(wrongMethod == Self.request(port: local.port, "GET /notifications HTTP/1.1"))
        #expect(wrongMethod?.status == 405)
        #expect(try Self.count(server, url, "SELECT count(*) FROM subdash_document") == 0)
        // A genuine one is logged; the store of the local listener is untouched by the team one.
        #expect(Self.post(port: team.port, documents[0]) == Answer(status: 200, body: "logged\n"))
        #expect(Self.post(port: team.port, documents[0]) == Answer(status: 200, body: "duplicate\n"))
        #expect(try Self.count(server, url, "SELECT count(*) FROM subdash_document") == 1)
        team.kill(SIGTERM)
        #expect(team.stderr.contains("\"outcome\":\"rejected\""), "\(team.stderr)")
        #expect(team.stderr.contains("\"archived\":false"), "no store to archive rejected requests in: \(team.stderr)")
    }

    @Test func aListenerTakesTheListenersRoleAndRefusesAnAnalysts() throws {
        let server = try PostgresServer.server()
        let url = try server.createDatabase("listenroles")
        let database = PostgresServer.databaseName(of: url)
        let documents = try Self.notifications.get()
        // The owner creates the schema; the roles are the docs' own statements.
        #expect(
            try Subdash.run([
                "import", "--team", url, "--trust-root", Self.trustRoot, try Self.ndjson([documents[0]], name: "lr"),
            ]).status == 0)
        let suffix = "l\(getpid())"
        try Self.createRoles(server, database: database, suffix: suffix)

        let listener = try Listener(["--team", server.url(database: database, role: "subdash_listener_\(suffix)")])
        #expect(Self.post(port: listener.port, documents[0]) == Answer(status: 200, body: "duplicate\n"))
        #expect(Self.post(port: listener.port, documents[1]) == Answer(status: 200, body: "logged\n"))
        #expect(try Self.count(server, url, "SELECT count(*) FROM subdash_document") == 2)
        listener.kill(SIGTERM)

        let refused = try Subdash.run([
            "listen", "--team", server.url(database: database, role: "subdash_analyst_\(suffix)"), "--port", "0",
            "--trust-root", Self.trustRoot,
        ])
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("does not let this role insert documents: use a listener's or an importer's role"),
            "\(refused.stderr)")
        #expect(!refused.stderr.contains("listening on"), "\(refused.stderr)")
    }
}
