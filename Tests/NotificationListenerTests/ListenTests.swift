import AppStorePayloads
import Foundation
import GRDB
import StoreImport
import SubscriberStore
import Synchronization
import TestSupport
import Testing

/// `subdash listen` as Apple meets it: the built binary, real sockets on loopback, the simulator's
/// signed notifications from SampleData.
@Suite(.serialized) struct ListenTests {
    static let generated = SampleData.generated
    static let trustRoot = SampleData.trustRoot

    /// The first `count` documents of a SampleData file, as Apple would post them.
    static func documents(_ version: String, count: Int) throws -> [Data] {
        let file = generated + "/\(version)/notifications-0001.ndjson.gz"
        return Array(try DocumentReader().documents(atPath: file).prefix(count)).compactMap(\.bytes)
    }

    static let v1 = Result { try documents("v1", count: 20) }
    static let v2 = Result { try documents("v2", count: 60) }

    static func temporaryPath(_ name: String) -> String {
        TemporaryDirectory.uniquePath("listen-\(name)")
    }

    static func remove(_ paths: String...) {
        for path in paths { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
    }

    static func binary() throws -> String { try Subdash.binary() }

    /// The store `subdash import` makes of the same documents, as one NDJSON file.
    static func cleanImport(_ documents: [Data]) throws -> (AppDatabase, String) {
        let file = temporaryPath("clean") + ".ndjson"
        defer { try? FileManager.default.removeItem(atPath: file) }
        var ndjson = Data()
        for d in documents {
            ndjson.append(d)
            ndjson.append(0x0A)
        }
        try ndjson.write(to: URL(fileURLWithPath: file))
        let path = temporaryPath("clean") + ".sqlite"
        let db = try AppDatabase.open(path: path)
        _ = try Importer.appStore(database: db, verifier: SampleDataStore.verifier(), report: { _ in }).importPaths([file])
        return (db, path)
    }

    /// Every table's content, but where a document came from (the archive's `source`).
    static func dump(_ path: String) throws -> [String: [String]] { try storeDump(AppDatabase.open(path: path)) }

    static func outcome(of body: Data, in path: String) throws -> String? {
        let sha = Importer.sha256Hex(body)
        return try AppDatabase.open(path: path).writer.read { db in
            try String.fetchOne(db, sql: "SELECT outcome FROM document WHERE sha256 = ?", arguments: [sha])
        }
    }

    /// The listener derives a commit's subscriptions after answering: waits until it has.
    static func waitForDerivation(_ path: String) throws {
        let database = try AppDatabase.open(path: path)
        if try !waitUntil(timeout: 5, { try database.pendingCount() == 0 }) {
            Issue.record("subscriptions still pending derivation after 5 s")
        }
    }

    static func report(_ binary: String, _ store: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["report", "states", "--db", store, "--format", "json", "--environment", "all"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func v1AndV2AreStoredAsTheImportStoresThemAndLoggedOneLineEach() throws {
        let binary = try Self.binary()
        let store = Self.temporaryPath("store") + ".sqlite"
        let log = Self.temporaryPath("log") + ".ndjson"
        defer { Self.remove(store, log) }
        let documents = try Self.v1.get() + Self.v2.get()
        let listener = try ListenerProcess(binary: binary, store: store, extra: ["--trust-root", Self.trustRoot, "--log", log])
        var answers: [String: Int] = [:]
        for body in documents {
            let response = try listener.http.post("/notifications", body)
            #expect(response.status == 200, "\(response.body)")
            answers[response.body, default: 0] += 1
        }
        // The sample repeats a few deliveries byte for byte, as Apple's retries do.
        #expect(answers["applied\n", default: 0] > 70)
        #expect(answers["applied\n", default: 0] + answers["duplicate\n", default: 0] == documents.count)

        // Another process reads the listener's commits while it runs.
        let (clean, cleanPath) = try Self.cleanImport(documents)
        defer { Self.remove(cleanPath) }
        _ = clean
        try Self.waitForDerivation(store)
        let reportWhileListening = try Self.report(binary, store)
        #expect(reportWhileListening.contains("\"active\""))
        #expect(reportWhileListening == (try Self.report(binary, cleanPath)))

        #expect(listener.stop().status == 0)
        #expect(try Self.dump(store) == Self.dump(cleanPath))

        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == documents.count)
        let last = try #require(try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Any])
        #expect(last["status"] as? Int == 200)
        #expect((last["id"] as? String)?.hasPrefix("sha256:") == false, "a v2 notification is logged by its notificationUUID")
        #expect(last["type"] as? String != nil)
        #expect(last["ms"] as? Double != nil)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines.first!.utf8)) as? [String: Any])
        #expect((first["id"] as? String)?.hasPrefix("sha256:") == true, "a v1 notification has no id but its digest")
    }

    @Test func aForgedV2IsRejectedWith400AndArchivedAsRejected() throws {
        let binary = try Self.binary()
        let store = Self.temporaryPath("forged") + ".sqlite"
        defer { Self.remove(store) }
        let original = String(decoding: try Self.v2.get()[0], as: UTF8.self)
        // One character of the signed payload changed: the signature no longer matches.
        let payloadStart = try #require(original.firstIndex(of: ".")).utf16Offset(in: original) + 10
        var chars = Array(original)
        chars[payloadStart] = chars[payloadStart] == "A" ? "B" : "A"
        let forged = Data(String(chars).utf8)
        let listener = try ListenerProcess(binary: binary, store: store, extra: ["--trust-root", Self.trustRoot])
        let response = try listener.http.post("/notifications", forged)
        #expect(response.status == 400)
        #expect(response.body.hasPrefix("rejected: "))
        #expect(response.body.lowercased().contains("signature"))
        #expect(try Self.outcome(of: forged, in: store) == "rejected")

        let notJSON = try listener.http.post("/notifications", Data("hello".utf8))
        #expect(notJSON.status == 400)
        #expect(try Self.outcome(of: Data("hello".utf8), in: store) == "rejected")
        #expect(listener.stop().status == 0)
        #expect(listener.stderr.contains("\"outcome\":\"rejected\""))
    }

    @Test func aRetryOfAStoredNotificationIsAnswered200AndChangesNothing() throws {
        let binary = try Self.binary()
        let store = Self.temporaryPath("retry") + ".sqlite"
        defer { Self.remove(store) }
        let body = try Self.v2.get()[1]
        let listener = try ListenerProcess(binary: binary, store: store, extra: ["--trust-root", Self.trustRoot])
        let first = try listener.http.post("/notifications", body)
        #expect(first.status == 200 && first.body == "applied\n")
        try Self.waitForDerivation(store)
        let before = try Self.dump(store)
        #expect(before["period", default: []].count > 0)
        let again = try listener.http.post("/notifications", body)
        #expect(again.status == 200 && again.body == "duplicate\n")
        try Self.waitForDerivation(store)
        #expect(try Self.dump(store) == before)
        // Ctrl-C stops it as SIGTERM does.
        let stopped = listener.stop(SIGINT)
        #expect(stopped.reason == .exit && stopped.status == 0)
        #expect(listener.stderr.contains("stopped; everything answered 200 is in"))
    }

    @Test func limitsPathsAndMethods() throws {
        let binary = try Self.binary()
        let store = Self.temporaryPath("limits") + ".sqlite"
        defer { Self.remove(store) }
        let listener = try ListenerProcess(binary: binary, store: store, extra: ["--trust-root", Self.trustRoot])
        let http = listener.http
        // Declared too large: refused on the headers, the body never sent.
        let declared = try http.raw("POST /notifications HTTP/1.1\r\nHost: x\r\nContent-Length: \(2 << 20)", sendBody: false)
        #expect(declared.status == 413)
        // Chunked, growing past 1 MiB: refused once it does.
        var chunked = Data()
        let piece = Data(repeating: 0x20, count: 256 * 1024)
        for _ in 0..<6 {
            chunked.append(Data(String(piece.count, radix: 16).utf8 + Array("\r\n".utf8)))
            chunked.append(piece)
            chunked.append(Data("\r\n".utf8))
        }
        chunked.append(Data("0\r\n\r\n".utf8))
        let streamed = try http.raw("POST /notifications HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked", body: chunked)
        #expect(streamed.status == 413)
        #expect(try http.post("/elsewhere", Data("{}".utf8)).status == 404)
        #expect(try http.get("/notifications").status == 405)
        let health = try http.get("/healthz")
        #expect(health.status == 200 && health.body.hasPrefix("ok\n"))
        // Nothing of the above reached the archive.
        let count = try AppDatabase.open(path: store).writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document")
        }
        #expect(count == 0)
        listener.stop()
    }

    @Test func aSlowBodyIsAnswered408AndASilentConnectionIsClosed() throws {
        let binary = try Self.binary()
        let store = Self.temporaryPath("slow") + ".sqlite"
        defer { Self.remove(store) }
        let listener = try ListenerProcess(
            binary: binary, store: store,
            extra: ["--trust-root", Self.trustRoot, "--body-timeout", "1", "--idle-timeout", "2"])
        // Headers, then 4 of the 100 bytes announced, then nothing.
        let slowBody = try OpenConnection(port: listener.port)
        // Half a request line and no more.
        let silent = try OpenConnection(port: listener.port)
        let start = Date()
        try slowBody.send("POST /notifications HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"a\"")
        try silent.send("POST /notifications HTTP/1.1\r\nHost: x\r\n")
        guard case .data(let answer) = slowBody.read(timeout: 8) else {
            Issue.record("no answer to a body that stopped half-way")
            return
        }
        #expect(answer.hasPrefix("HTTP/1.1 408"))
        #expect(answer.contains("body not received within 1 s"))
        #expect(Date().timeIntervalSince(start) >= 0.9)
        // The listener closes the silent one once the idle timeout has passed.
        var silentRead = silent.read(timeout: 8)
        if case .data = silentRead { silentRead = silent.read(timeout: 8) }
        #expect(silentRead == .closed)
        #expect(Date().timeIntervalSince(start) >= 1.9)
        #expect(listener.stop().status == 0)
        #expect(listener.stderr.contains("\"outcome\":\"body timeout\""))
    }

    @Test func headersTrickledByteByByteAreCutOffAtTheHeaderTimeout() throws {
        let binary = try Self.binary()
        let store = Self.temporaryPath("trickle") + ".sqlite"
        defer { Self.remove(store) }
        let listener = try ListenerProcess(
            binary: binary, store: store,
            extra: ["--trust-root", Self.trustRoot, "--header-timeout", "1", "--idle-timeout", "30"])
        // A keep-alive request answered in time starts the clock again for the next one.
        let connection = try OpenConnection(port: listener.port)
        try connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        guard case .data(let first) = connection.read(timeout: 10) else {
            Issue.record("not served")
            return
        }
        #expect(first.hasPrefix("HTTP/1.1 200"))
        // Then one byte every 0.2 s: never silent for the idle timeout, closed at the header timeout.
        let start = Date()
        var closed = false
        for byte in "POST /notifications HTTP/1.1\r\nHost: x\r\nX-Slow: " + String(repeating: "a", count: 100) {
            if (try? connection.send(String(byte))) == nil {
                closed = true
                break
            }
            if connection.read(timeout: 0.2) == .closed {
                closed = true
                break
            }
        }
        let elapsed = Date().timeIntervalSince(start)
        #expect(closed)
        #expect(elapsed >= 0.9 && elapsed < 5, "closed after \(elapsed) s")
        #expect(listener.stop().status == 0)
    }

    @Test func connectionsBeyondTheLimitWaitUntilOneCloses() throws {
        let binary = try Self.binary()
        let store = Self.temporaryPath("conns") + ".sqlite"
        defer { Self.remove(store) }
        let listener = try ListenerProcess(
            binary: binary, store: store, extra: ["--trust-root", Self.trustRoot, "--max-connections", "2"])
        let healthz = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        var first: OpenConnection? = try OpenConnection(port: listener.port)
        try first!.send(healthz)
        guard case .data(let a) = first!.read(timeout: 10) else {
            Issue.record("first connection not served")
            return
        }
        #expect(a.hasPrefix("HTTP/1.1 200"))
        let second = try OpenConnection(port: listener.port)
        try second.send(healthz)
        guard case .data(let b) = second.read(timeout: 10) else {
            Issue.record("second connection not served")
            return
        }
        #expect(b.hasPrefix("HTTP/1.1 200"))
        // Two kept-alive connections: the third waits in the backlog, unanswered…
        let third = try OpenConnection(port: listener.port)
        try third.send(healthz)
        #expect(third.read(timeout: 1.5) == .nothing)
        // …until one of them closes.
        first = nil
        guard case .data(let c) = third.read(timeout: 10) else {
            Issue.record("third connection never served")
            return
        }
        #expect(c.hasPrefix("HTTP/1.1 200"))
        _ = first
        listener.stop()
    }

    @Test func aStoreThatCannotTakeACommitAnswers503AndHealthzSaysSoUntilACommitSucceeds() throws {
        let binary = try Self.binary()
        let store = Self.temporaryPath("locked") + ".sqlite"
        defer { Self.remove(store) }
        let body = try Self.v2.get()[2]
        let listener = try ListenerProcess(binary: binary, store: store, extra: ["--trust-root", Self.trustRoot])
        // Another process's long write holds SQLite's write lock past the listener's busy timeout.
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        let other = try DatabaseQueue(path: store, configuration: configuration)
        let locked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        Thread {
            try? other.inDatabase { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                locked.signal()
                release.wait()
                try db.execute(sql: "ROLLBACK")
            }
            released.signal()
        }.start()
        locked.wait()
        // The health check answers from the listener's own state, at once: it takes no lock of
        // the store's (it used to begin a write of its own and wait out a busy timeout).
        let started = Date()
        let before = try listener.http.get("/healthz")
        #expect(Date().timeIntervalSince(started) < 1)
        #expect(before.status == 200 && before.body.hasPrefix("ok\n"))
        let refused = try listener.http.post("/notifications", body)
        #expect(refused.status == 503)
        #expect(refused.body == "not stored, send again later\n")
        // From the failed commit on, /healthz fails, even once the store could take a write again.
        let failing = try listener.http.get("/healthz")
        #expect(failing.status == 503)
        #expect(failing.body.hasPrefix("unhealthy: the last commit failed\n"), "\(failing.body)")
        #expect(failing.body.contains("last commit: failed at "))
        release.signal()
        released.wait()
        #expect(try listener.http.get("/healthz").status == 503)
        #expect(try Self.outcome(of: body, in: store) == nil, "a 503 stored nothing")
        // Apple's retry, once the store can take it: stored, and /healthz is well again.
        let retried = try listener.http.post("/notifications", body)
        #expect(retried.status == 200 && retried.body == "applied\n")
        let healthy = try listener.http.get("/healthz")
        #expect(healthy.status == 200 && healthy.body.hasPrefix("ok\n") && healthy.body.contains("last commit: ok"))
        #expect(listener.stop().status == 0)
        #expect(listener.stderr.contains("\"outcome\":\"not stored\""))
        #expect(listener.stderr.contains("\"outcome\":\"unhealthy\""))
    }

    /// Runs a tool to its end; its status and standard output.
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func withACertificateItServesHTTPSOnly() throws {
        let binary = try Self.binary()
        let directory = Self.temporaryPath("tls")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (cert, key, store, body) = (
            directory + "/cert.pem", directory + "/key.pem", directory + "/store.sqlite", directory + "/body.json"
        )
        let made = try Self.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=IP:127.0.0.1",
            ])
        try #require(made.status == 0, "openssl could not make a test certificate")
        try Self.v2.get()[3].write(to: URL(fileURLWithPath: body))
        let listener = try ListenerProcess(
            binary: binary, store: store,
            extra: ["--trust-root", Self.trustRoot, "--tls-cert", cert, "--tls-key", key])
        #expect(listener.stderr.contains("listening on https://127.0.0.1:\(listener.port)/notifications"))
        let url = "https://127.0.0.1:\(listener.port)"
        // curl checks the certificate against the one made above, over TLS 1.2 or later.
        let posted = try Self.run(
            "curl",
            [
                "-sS", "--cacert", cert, "--tlsv1.2", "-w", " %{http_code} %{ssl_verify_result}",
                "--data-binary", "@" + body, url + "/notifications",
            ])
        #expect(posted.status == 0)
        #expect(posted.output == "applied\n 200 0")
        let health = try Self.run("curl", ["-sS", "--cacert", cert, "-o", "/dev/null", "-w", "%{http_code}", url + "/healthz"])
        #expect(health.output == "200")
        // Plain HTTP on the TLS port gets no HTTP answer.
        let plain = try? listener.http.get("/healthz")
        #expect(plain == nil || plain?.status != 200)
        #expect(listener.stop().status == 0)
        #expect(try Self.outcome(of: Self.v2.get()[3], in: store) == "applied")
    }

    /// Posts every document from `connections` threads at once; returns which were answered 200.
    static func postConcurrently(
        _ documents: [Data], port: Int, connections: Int, onAnswer: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> Set<Int> {
        let acknowledged = Acknowledged()
        DispatchQueue.concurrentPerform(iterations: connections) { worker in
            var i = worker
            while i < documents.count {
                if let response = try? LoopbackHTTP(port: port).post("/notifications", documents[i]), response.status == 200 {
                    acknowledged.insert(i)
                    onAnswer(acknowledged.count)
                }
                i += connections
            }
        }
        return acknowledged.all
    }

    @Test func sigtermAnswersWhatIsInFlightAndExitsZero() throws {
        let binary = try Self.binary()
        let store = Self.temporaryPath("term") + ".sqlite"
        defer { Self.remove(store) }
        let documents = try Self.v2.get()
        let listener = try ListenerProcess(binary: binary, store: store, extra: ["--trust-root", Self.trustRoot])
        let pid = listener.process.processIdentifier
        let signalled = Flag()
        let acknowledged = Self.postConcurrently(documents, port: listener.port, connections: 8) { count in
            if count == 20 && signalled.set() { kill(pid, SIGTERM) }
        }
        listener.process.waitUntilExit()
        #expect(listener.process.terminationReason == .exit)
        #expect(listener.process.terminationStatus == 0)
        #expect(listener.stderr.contains("stopped"))
        #expect(acknowledged.count >= 20)
        for i in acknowledged { #expect(try Self.outcome(of: documents[i], in: store) == "applied") }
    }

    @Test func sigkillMidStreamThenResendingWhatWasNotAcknowledgedGivesTheCleanImport() throws {
        let binary = try Self.binary()
        let store = Self.temporaryPath("kill") + ".sqlite"
        defer { Self.remove(store) }
        let documents = try Self.v1.get() + Self.v2.get()
        let first = try ListenerProcess(binary: binary, store: store, extra: ["--trust-root", Self.trustRoot])
        let pid = first.process.processIdentifier
        let killed = Flag()
        let acknowledged = Self.postConcurrently(documents, port: first.port, connections: 4) { count in
            if count == 30 && killed.set() { kill(pid, SIGKILL) }
        }
        first.process.waitUntilExit()
        #expect(first.process.terminationReason == .uncaughtSignal)
        #expect(acknowledged.count >= 30 && acknowledged.count < documents.count)
        // Every acknowledged document is in the store, whatever the kill interrupted.
        for i in acknowledged { #expect(try Self.outcome(of: documents[i], in: store) != nil) }

        let second = try ListenerProcess(binary: binary, store: store, extra: ["--trust-root", Self.trustRoot])
        for i in documents.indices where !acknowledged.contains(i) {
            #expect(try second.http.post("/notifications", documents[i]).status == 200)
        }
        #expect(second.stop().status == 0)
        let (_, cleanPath) = try Self.cleanImport(documents)
        defer { Self.remove(cleanPath) }
        #expect(try Self.dump(store) == Self.dump(cleanPath))
    }
}

final class Acknowledged: Sendable {
    private let indices = Mutex(Set<Int>())
    func insert(_ i: Int) { indices.withLock { _ = $0.insert(i) } }
    var count: Int { indices.withLock { $0.count } }
    var all: Set<Int> { indices.withLock { $0 } }
}

/// True for the first caller of `set` only.
final class Flag: Sendable {
    private let done = Mutex(false)
    func set() -> Bool {
        done.withLock { done in
            if done { return false }
            done = true
            return true
        }
    }
    var isSet: Bool { done.withLock { $0 } }
}
