// subdash-listen-bench: `subdash listen` under load. Starts the real binary on loopback with a new
// store for each connection count, posts verified v2 notifications over N keep-alive connections at
// once, and reports notifications/s and the time from the first byte sent to the 200 (p50, p99,
// max). Then it checks the store: every notification stored once, nothing lost or doubled.
//
//     swift build -c release --product subdash --product subdash-listen-bench
//     .build/release/subdash-listen-bench --subdash .build/release/subdash --connections 1,16,64
//
// The notifications are generated first: `subdash generate --versions v2 --subscribers 5000` gives
// 32,615 verified v2 notifications signed by the simulator's test chain, so a run at 2,000/s lasts
// about 16 s and most of it is steady state (SampleData's 2,793 lasted 1–2 s, mostly warm-up).
// --subscribers N generates another size; --data names an NDJSON(.gz) file or a directory of them
// instead (with --trust-root its test-root.pem); --notifications takes the first N. Each run posts
// every document once, as Apple would.
//
// --healthz-flood N sends `GET /healthz` back to back over N more connections while the
// notifications are posted, and prints how many were answered: a health check must not slow the
// notifications beyond the CPU it takes (docs/performance.md, "`/healthz` under a flood").
//
// --team URL measures `subdash listen --team` instead: the listener with no store, each
// notification committed to the team log on PostgreSQL before its 200. URL names a database on a
// server whose role may create databases: each connection count gets a new database beside it
// (made and dropped with psql, --psql PATH), and the log is then checked by `subdash sync` into a
// new store, which must hold what `subdash import` of the same documents holds.
//
// --sync-vs-import and --follow-latency measure the team log itself (a fresh `sync` against a file
// import; follow latency from a listener's 200 to other views' stores; several listeners on one
// log): TeamLogBench.swift says how, with its commands.
//
// Besides the whole run's rate, the steady rate counts only the answers between 10% and 90% of the
// run's time (no warm-up, no tail of the last connections finishing), and the listener's log gives
// its group commits per 1,000 notifications, which do not depend on the machine's load.
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

struct Options {
    var subdash = ".build/release/subdash"
    var data: String? = nil
    var trustRoot: String? = nil
    var subscribers = 5000
    var connections = [1, 16, 64]
    var notifications = Int.max
    var output: String? = nil
    /// Connections sending `GET /healthz` back to back while the notifications are posted.
    var healthzFlood = 0
    /// `listen --team` against this PostgreSQL database URL (a new database beside it per run).
    var team: String? = nil
    var psql = "psql"
    /// `--sync-vs-import` and `--follow-latency` (TeamLogBench.swift): what they measure, and their settings.
    var syncVsImport = false
    var followLatency = false
    var runs = 3
    var cache = "/tmp/subdash-listen-bench-cache"
    var views = [1, 4]
    var rate = 20.0
    var seconds = 30.0
    var postConnections = 4
    var listeners = [1, 2]
    var listenerConnections = 16
    var pollMilliseconds = 10.0
    /// The PostgreSQL server's data directory, to read its CPU time from /proc (optional).
    var pgdata: String? = nil

    init(_ args: [String]) {
        var i = 1
        func value() -> String {
            i += 1
            guard i < args.count else { fail("\(args[i - 1]) needs a value") }
            return args[i]
        }
        while i < args.count {
            switch args[i] {
            case "--subdash": subdash = value()
            case "--data": data = value()
            case "--trust-root": trustRoot = value()
            case "--subscribers": subscribers = Int(value()) ?? subscribers
            case "--connections": connections = value().split(separator: ",").compactMap { Int($0) }
            case "--notifications": notifications = Int(value()) ?? Int.max
            case "--output": output = value()
            case "--healthz-flood": healthzFlood = Int(value()) ?? 0
            case "--team": team = value()
            case "--psql": psql = value()
            case "--sync-vs-import": syncVsImport = true
            case "--follow-latency": followLatency = true
            case "--runs": runs = Int(value()) ?? runs
            case "--cache": cache = value()
            case "--views": views = value().split(separator: ",").compactMap { Int($0) }
            case "--rate": rate = Double(value()) ?? rate
            case "--seconds": seconds = Double(value()) ?? seconds
            case "--post-connections": postConnections = Int(value()) ?? postConnections
            case "--listeners": listeners = value().split(separator: ",").compactMap { Int($0) }
            case "--listener-connections": listenerConnections = Int(value()) ?? listenerConnections
            case "--poll-ms": pollMilliseconds = Double(value()) ?? pollMilliseconds
            case "--pgdata": pgdata = value()
            case "-h", "--help":
                print(
                    "usage: subdash-listen-bench [--subdash PATH] [--subscribers 5000 | --data NDJSON[.gz]|DIR --trust-root PEM] [--connections 1,16,64] [--notifications N] [--healthz-flood N] [--team postgres://… [--psql PATH]] [--output docs/performance.md]\n"
                        + "       subdash-listen-bench --sync-vs-import --team postgres://… [--subscribers N] [--runs 3] [--cache DIR] [--pgdata DIR]\n"
                        + "       subdash-listen-bench --follow-latency --team postgres://… [--subscribers N] [--views 1,4] [--rate 20] [--seconds 30] [--post-connections 4] [--poll-ms 10] [--listeners 1,2] [--listener-connections 16] [--notifications N] [--cache DIR] [--pgdata DIR]"
                )
                exit(0)
            default: fail("unknown argument \(args[i])")
            }
            i += 1
        }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("subdash-listen-bench: \(message)\n".utf8))
    exit(1)
}

/// Runs a command to its end; returns stdout.
@discardableResult
func run(_ executable: String, _ arguments: [String]) -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    do { try p.run() } catch { fail("cannot run \(executable): \(error)") }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

/// The documents of an NDJSON file, gzip'd or not (read through gzip -dc), or of a directory's
/// NDJSON files in name order.
func loadDocuments(_ path: String, limit: Int) -> [Data] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { fail("no file at \(path)") }
    var files = [path]
    if isDirectory.boolValue {
        let enumerator = FileManager.default.enumerator(atPath: path)
        files = ((enumerator?.allObjects as? [String]) ?? []).filter { $0.hasSuffix(".ndjson") || $0.hasSuffix(".ndjson.gz") }
            .sorted().map { path + "/" + $0 }
    }
    var documents: [Data] = []
    for file in files where documents.count < limit {
        let data =
            file.hasSuffix(".gz")
            ? Data(run("/bin/sh", ["-c", "gzip -dc '\(file)'"]).utf8)
            : ((try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data())
        for line in data.split(separator: 0x0A) where !line.isEmpty && documents.count < limit { documents.append(Data(line)) }
    }
    guard !documents.isEmpty else { fail("no documents in \(path)") }
    return documents
}

/// CPU seconds a process has used, all its threads together (ended ones too), and those of its
/// threads named `thread` (`nameCurrentThread`; the listener names its commit thread
/// `subdash-commit`), from /proc; zero where /proc cannot be read.
func cpuSeconds(_ pid: Int32, thread: String) -> (process: Double, thread: Double) {
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    func seconds(_ statPath: String) -> Double {
        guard let stat = try? String(contentsOfFile: statPath, encoding: .utf8), let close = stat.lastIndex(of: ")")
        else { return 0 }
        // After the name: state, ppid, … utime (the 14th field) and stime (15th) are the 12th and 13th here.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / ticks
    }
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    let named = tasks.filter {
        (try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
            == thread
    }
    return (seconds("/proc/\(pid)/stat"), named.map { seconds("/proc/\(pid)/task/\($0)/stat") }.reduce(0, +))
}

/// A keep-alive HTTP/1.1 connection to 127.0.0.1:port over a plain socket.
final class Connection {
    let fd: Int32
    private var buffer = [UInt8]()

    init(port: Int) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if r != 0 { fail("connect: errno \(errno)") }
    }

    deinit { close(fd) }

    /// Posts `body`; returns the status code.
    func post(_ body: Data) -> Int { postAnswer(body).status }

    /// Posts `body`; returns the status code and the response's body (`logged`, `duplicate`…).
    func postAnswer(_ body: Data) -> (status: Int, body: String) {
        var request = Data(
            "POST /notifications HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
                .utf8)
        request.append(body)
        return exchange(request)
    }

    /// Asks `GET /healthz`; returns the status code.
    func healthz() -> Int { exchange(Data("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)).status }

    private func exchange(_ request: Data) -> (status: Int, body: String) {
        request.withUnsafeBytes { b in
            var sent = 0
            while sent < b.count {
                let n = send(fd, b.baseAddress! + sent, b.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { fail("send: errno \(errno)") }
                sent += n
            }
        }
        // Headers, then Content-Length bytes of body.
        while true {
            if let end = find([13, 10, 13, 10]) {
                let head = String(decoding: buffer[0..<end], as: UTF8.self)
                let status = Int(head.dropFirst(9).prefix(3)) ?? 0
                var length = 0
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
                while buffer.count < end + 4 + length { fill() }
                let body = String(decoding: buffer[(end + 4)..<(end + 4 + length)], as: UTF8.self)
                buffer.removeFirst(end + 4 + length)
                return (status, body)
            }
            fill()
        }
    }

    private func fill() {
        var chunk = [UInt8](repeating: 0, count: 16384)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n <= 0 { fail("recv: connection closed (errno \(errno))") }
        buffer += chunk[0..<n]
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for i in 0...(buffer.count - pattern.count)
        where buffer[i] == pattern[0] && Array(buffer[i..<i + pattern.count]) == pattern {
            return i
        }
        return nil
    }
}

/// The health checks sent beside the notifications: whether to go on, and how many were answered.
final class Flood: Sendable {
    let posting = Mutex(true)
    let asked = Mutex(0)
}

final class Results: Sendable {
    private struct Recorded {
        var latencies: [Double] = []
        var answered: [Double] = []
        var statuses: [Int: Int] = [:]
    }
    private let recorded = Mutex(Recorded())
    var latencies: [Double] { recorded.withLock { $0.latencies } }
    /// When each answer arrived (seconds, `now()`).
    var answered: [Double] { recorded.withLock { $0.answered } }
    var statuses: [Int: Int] { recorded.withLock { $0.statuses } }
    func add(_ ms: Double, at time: Double, _ status: Int) {
        recorded.withLock {
            $0.latencies.append(ms)
            $0.answered.append(time)
            $0.statuses[status, default: 0] += 1
        }
    }
}

/// Answers per second between 10% and 90% of the run: the steady state, without the warm-up and
/// without the tail where the last connections finish alone.
func steadyRate(_ answered: [Double], from start: Double, to end: Double) -> Double {
    let lower = start + (end - start) * 0.1
    let upper = start + (end - start) * 0.9
    return Double(answered.filter { $0 >= lower && $0 < upper }.count) / (upper - lower)
}

/// Group commits per 1,000 stored notifications, from the listener's log: each request's line
/// names the commit that stored it.
func commitsPerThousand(log: String) -> Double? {
    guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return nil }
    var commits = Set<Int>()
    var requests = 0
    for line in text.split(separator: "\n") {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let commit = object["commit"] as? Int
        else { continue }
        commits.insert(commit)
        requests += 1
    }
    return requests == 0 ? nil : Double(commits.count) * 1000 / Double(requests)
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// A new database for one run beside the one `--team` names, made and dropped with psql.
struct TeamDatabase {
    let url: String
    let name: String
    let admin: String
    let psqlPath: String

    init(base: String, label: String, psql psqlPath: String) {
        self.psqlPath = psqlPath
        guard var components = URLComponents(string: base), components.path.count > 1 else {
            fail("--team needs a postgres:// URL with a database")
        }
        name = String(components.path.dropFirst()) + "_\(label)_\(getpid())"
        components.path = "/postgres"
        admin = components.string!
        components.path = "/" + name
        url = components.string!
        psql("CREATE DATABASE \(name)")
    }

    func drop() { psql("DROP DATABASE IF EXISTS \(name)") }

    private func psql(_ sql: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [psqlPath, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", admin, "-c", sql]
        do { try p.run() } catch { fail("cannot run \(psqlPath): \(error)") }
        p.waitUntilExit()
        if p.terminationStatus != 0 { fail("psql could not run: \(sql)") }
    }
}

let options = Options(CommandLine.arguments)
guard FileManager.default.isExecutableFile(atPath: options.subdash) else { fail("no subdash binary at \(options.subdash)") }
if options.syncVsImport || options.followLatency {
    guard options.team != nil else { fail("--sync-vs-import and --follow-latency need --team URL") }
    let bench = TeamLogBench(options)
    if options.syncVsImport { bench.syncVsImport() }
    if options.followLatency { bench.followLatency() }
    exit(0)
}
let work = FileManager.default.temporaryDirectory.appendingPathComponent("subdash-listen-bench-\(getpid())").path
try? FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: work) }
let dataPath: String
let trustRoot: String
if let data = options.data {
    dataPath = data
    trustRoot = options.trustRoot ?? "SampleData/generated/test-root.pem"
} else {
    let generated = work + "/generated"
    FileHandle.standardError.write(Data("generating \(options.subscribers) subscribers' v2 notifications…\n".utf8))
    run(options.subdash, ["generate", "--subscribers", "\(options.subscribers)", "--versions", "v2", "--out", generated])
    dataPath = generated + "/v2"
    trustRoot = options.trustRoot ?? generated + "/test-root.pem"
}
let documents = loadDocuments(dataPath, limit: options.notifications)
let dataName = options.data.map { "`\($0)`" } ?? "`subdash generate --versions v2 --subscribers \(options.subscribers)`"

// The reference: the same documents through `subdash import`.
let ndjson = work + "/documents.ndjson"
try! documents.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n").write(
    toFile: ndjson, atomically: true, encoding: .utf8)
let reference = work + "/reference.sqlite"
run(options.subdash, ["import", "--db", reference, "--trust-root", trustRoot, ndjson])
func count(_ store: String, _ sql: String) -> String {
    run("/usr/bin/sqlite3", [store, sql]).trimmingCharacters(in: .whitespacesAndNewlines)
}
let expected = (count(reference, "SELECT COUNT(*) FROM notification"), count(reference, "SELECT COUNT(*) FROM document"))

print(
    "| connections | notifications | seconds | notifications/s | steady/s | commits per 1,000 | p50 ms | p99 ms | max ms | current after s | listener CPU ms each | commit thread on CPU | store |"
)
var rows: [String] = []
for connections in options.connections {
    let store = work + "/listen-\(connections).sqlite"
    var teamLog: TeamDatabase? = nil
    if let team = options.team {
        teamLog = TeamDatabase(base: team, label: "listen\(connections)", psql: options.psql)
    } else {
        // Only `import` creates a store: an empty one, from nothing on stdin.
        let create = Process()
        create.executableURL = URL(fileURLWithPath: options.subdash)
        create.arguments = ["import", "--db", store, "-"]
        create.standardInput = FileHandle.nullDevice
        create.standardError = FileHandle.nullDevice
        try! create.run()
        create.waitUntilExit()
        if create.terminationStatus != 0 { fail("subdash import could not create \(store)") }
    }
    let listener = Process()
    listener.executableURL = URL(fileURLWithPath: options.subdash)
    listener.arguments =
        (teamLog.map { ["listen", "--team", $0.url] } ?? ["listen", "--db", store]) + [
            "--port", "0", "--trust-root", trustRoot, "--log", work + "/log-\(connections)",
        ]
    let err = Pipe()
    listener.standardError = err
    try! listener.run()
    var port = 0
    var seen = ""
    while port == 0 {
        let data = err.fileHandleForReading.availableData
        if data.isEmpty { fail("subdash listen exited: \(seen)") }
        seen += String(decoding: data, as: UTF8.self)
        if let r = seen.range(of: #"127\.0\.0\.1:\d+"#, options: .regularExpression) {
            port = Int(seen[r].split(separator: ":")[1])!
        }
    }
    let results = Results()
    let boundPort = port
    let commitThread = options.team == nil ? "subdash-commit" : "subdash-teamlog"
    let cpuBefore = cpuSeconds(listener.processIdentifier, thread: commitThread)
    let started = now()
    // One thread per connection: `concurrentPerform` would run only as many at once as there are
    // cores, so "16 connections" would really be two.
    let finished = DispatchGroup()
    // Health checks beside the notifications, as a monitor gone wild would send them: they must not
    // slow the notifications down.
    let flood = Flood()
    for _ in 0..<options.healthzFlood {
        let thread = Thread {
            let connection = Connection(port: boundPort)
            while flood.posting.withLock({ $0 }) {
                _ = connection.healthz()
                flood.asked.withLock { $0 += 1 }
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for worker in 0..<connections {
        finished.enter()
        let thread = Thread {
            let connection = Connection(port: boundPort)
            var i = worker
            while i < documents.count {
                let t0 = now()
                let status = connection.post(documents[i])
                let t1 = now()
                results.add((t1 - t0) * 1000, at: t1, status)
                i += connections
            }
            finished.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    finished.wait()
    flood.posting.withLock { $0 = false }
    let ended = now()
    if options.healthzFlood > 0 {
        let asked = flood.asked.withLock { $0 }
        print(
            String(
                format: "%d connections asked /healthz %d times meanwhile (%.0f/s)", options.healthzFlood, asked,
                Double(asked) / (ended - started)))
    }
    let seconds = ended - started
    let cpuAfter = cpuSeconds(listener.processIdentifier, thread: commitThread)
    let cpuPerNotification = (cpuAfter.process - cpuBefore.process) * 1000 / Double(documents.count)
    let commitBusy = (cpuAfter.thread - cpuBefore.thread) / seconds * 100
    // How long after the last 200 every figure is current: the derivation of what the stream
    // touched catches up (nothing left pending).
    // With --team there is no store to derive: the log is checked through a view made by sync.
    while teamLog == nil && count(store, "SELECT COUNT(*) FROM pendingSubscription") != "0" && now() - ended < 120 {
        usleep(20_000)
    }
    let current = now() - ended
    kill(listener.processIdentifier, SIGTERM)
    listener.waitUntilExit()
    if let teamLog {
        run(options.subdash, ["sync", "--team", teamLog.url, "--db", store, "--trust-root", trustRoot])
        teamLog.drop()
    }
    let sorted = results.latencies.sorted()
    let stored = (count(store, "SELECT COUNT(*) FROM notification"), count(store, "SELECT COUNT(*) FROM document"))
    let ok = results.statuses[200, default: 0]
    let same = stored == expected && ok == documents.count
    let commits = commitsPerThousand(log: work + "/log-\(connections)").map { String(format: "%.1f", $0) } ?? "?"
    let row = String(
        format: "| %d | %d | %.1f | %.0f | %.0f | %@ | %.2f | %.2f | %.2f | %@ | %.2f | %.0f%% | %@ |", connections,
        documents.count, seconds, Double(documents.count) / seconds, steadyRate(results.answered, from: started, to: ended),
        commits, percentile(sorted, 0.5), percentile(sorted, 0.99), sorted.last!,
        teamLog == nil ? String(format: "%.2f", current) : "–", cpuPerNotification, commitBusy,
        same
            ? "\(stored.0) notifications, as `import`\(teamLog == nil ? "" : ", in a view synced from the log") (none lost or doubled)"
            : "MISMATCH: \(stored) vs \(expected), \(results.statuses)")
    print(row)
    rows.append(row)
    if listener.terminationStatus != 0 { fail("subdash listen exited \(listener.terminationStatus) after SIGTERM") }
}

if let output = options.output {
    let marker = options.team == nil ? "<!-- subdash-listen-bench -->" : "<!-- subdash-listen-bench --team -->"
    let endMarker = options.team == nil ? "<!-- /subdash-listen-bench -->" : "<!-- /subdash-listen-bench --team -->"
    var text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? "# Performance\n"
    // The tool's part runs from the marker to the end marker (in a file written before there was
    // one: to the end of the first table after the marker); what follows, the section's
    // hand-written history included, is kept.
    var rest = "\n"
    if let r = text.range(of: marker) {
        let after = r.upperBound..<text.endIndex
        if let end = text.range(of: endMarker, range: after) {
            rest = String(text[end.upperBound...])
        } else if let table = text.range(of: "\n|", range: after),
            let blank = text.range(of: "\n\n", range: table.lowerBound..<text.endIndex)
        {
            rest = String(text[blank.lowerBound...])
        }
        text = String(text[..<r.lowerBound])
    }
    let date = ISO8601DateFormatter().string(from: Date())
    if options.team != nil {
        text += """
            \(marker)
            ## Receiving notifications into the team log (`subdash listen --team`)

            Measured by `subdash-listen-bench --subdash \(options.subdash) --team URL --connections \(options.connections.map(String.init).joined(separator: ","))` \
            on this machine, \(date): 2 cores shared by the client, the listener, the PostgreSQL server (on a unix socket, \
            default settings, `fsync` on) and other engineers' builds and tests, so the figures are lower bounds, not a \
            capacity. The real binary on loopback with no store (`listen --team` only), a new log each time, \
            \(documents.count) verified v2 notifications from \(dataName) posted over N keep-alive connections; time to 200 \
            is from the request's first byte to the whole response, and every 200 is a committed PostgreSQL transaction. \
            "commits per 1,000" is the listener's transactions on the log per 1,000 requests, from its log; "listener CPU ms \
            each" the listener's CPU (not the server's) over the posting divided by the notifications, and "commit thread on \
            CPU" the share of the posting's wall time its writer thread ran. The log is then checked through a view made \
            by `subdash sync` into a new store.

            | connections | notifications | seconds | notifications/s | steady/s | commits per 1,000 | p50 ms | p99 ms | max ms | current after s | listener CPU ms each | commit thread on CPU | store |
            |---|---|---|---|---|---|---|---|---|---|---|---|---|
            \(rows.joined(separator: "\n"))
            \(endMarker)
            """
        text += rest
        try! text.write(toFile: output, atomically: true, encoding: .utf8)
        exit(0)
    }
    text += """
        \(marker)
        ## Receiving notifications (`subdash listen`)

        Measured by `subdash-listen-bench --subdash \(options.subdash) --connections \(options.connections.map(String.init).joined(separator: ","))` \
        on this machine (2 cores, the client on the same cores), \(date): the real binary on loopback with a new store each \
        time, \(documents.count) verified v2 notifications from \(dataName) posted over N keep-alive connections; time to \
        200 is from the request's first byte to the whole response. Every 200 is a durable commit (`synchronous = FULL`). \
        "steady/s" counts the answers between 10% and 90% of the run's time; "commits per 1,000" is the listener's group \
        commits per 1,000 requests, from its log; "current after" is the seconds from the last 200 until nothing the \
        stream touched is left to derive (every report and pane shows all of it); "listener CPU ms each" is the \
        listener's CPU time (every thread, from /proc) over the posting divided by the notifications, and "commit thread \
        on CPU" the share of the posting's wall time its committing thread ran.

        | connections | notifications | seconds | notifications/s | steady/s | commits per 1,000 | p50 ms | p99 ms | max ms | current after s | listener CPU ms each | commit thread on CPU | store |
        |---|---|---|---|---|---|---|---|---|---|---|---|---|
        \(rows.joined(separator: "\n"))
        \(endMarker)
        """
    text += rest
    try! text.write(toFile: output, atomically: true, encoding: .utf8)
}
