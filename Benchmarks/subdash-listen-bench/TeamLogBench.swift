// subdash-listen-bench --sync-vs-import and --follow-latency: the team log (docs/team.md) measured
// against a private PostgreSQL server whose role may create databases (each part makes its own
// beside the one --team names, with psql, and drops it).
//
//     swift build -c release --product subdash --product subdash-listen-bench
//     .build/release/subdash-listen-bench --subdash .build/release/subdash --team "postgres://postgres@/bench?host=/tmp/pg" \
//       --pgdata /tmp/pg/data --subscribers 100000 --sync-vs-import --runs 3
//     .build/release/subdash-listen-bench --subdash .build/release/subdash --team "postgres://postgres@/bench?host=/tmp/pg" \
//       --pgdata /tmp/pg/data --subscribers 100000 --follow-latency --views 1,4 --rate 20 --seconds 60 --listeners 1,2
//
// The data is `subdash generate --subscribers N --seed 1 --versions v2` (gzip'd from 100,000 on),
// cached under --cache as subdash-bench caches it (data-N-v2), so both benches can share one.
//
// --sync-vs-import: K runs (--runs), each into a new log: `subdash import --team URL DATA`, then a
// fresh view `subdash sync --team URL --db NEW`, and `subdash import --db NEW2 DATA` of the same
// files, interleaved (the file import first on odd runs, last on even ones) so that the machine's
// load falls on both alike. Wall, CPU and peak memory of each child come from /usr/bin/time; with
// --pgdata, the server's CPU (its postmaster and the backends it reaped, from /proc) beside. The
// view and the file import must give byte-identical `report states` and `report mrr` JSON and the
// same documents and notifications. Prints a table with sync ÷ import (docs/team.md asks ≤ 1.1).
//
// --follow-latency: the data minus its last documents is pushed into one log (`import --team`) and
// made into a view once (`sync`); for each view count V (--views), V copies of that view follow
// the log (`sync --follow`) while one `listen --team` with no store takes R notifications a second
// (--rate) for D seconds (--seconds) over a few connections (--post-connections): the held-back
// documents, a slice of R × D new ones for each V. A poller reads each view's store read-only every
// --poll-ms for documents past the last it saw (by id), and each posted document's follow latency
// is from its 200 to the poll that first found its sha256 in that view (the poll adds up to
// --poll-ms). Figures count only what was posted after the first 10% of the time (steady state).
// Then, for each listener count L (--listeners), L listeners on a new, empty log take every
// document of the data (or the first --notifications) as fast as --listener-connections
// connections to each can post them: what one log takes from several listeners. On one host the
// listeners, the server and the client share the cores, so this rate is a lower bound for listeners
// on hosts of their own; the machine's busy share says whether the cores were the limit.
import Crypto
import Foundation
import GRDBSQLite
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A child's figures, from /usr/bin/time.
struct ChildTiming {
    var seconds: Double
    var cpu: Double
    var peakMB: Double
    var stdout: String
    var status: Int32
}

/// One posted notification: when its answer came and what it said.
struct Answer: Sendable {
    var sent: Double
    var answered: Double
    var status: Int
    var outcome: String
}

final class Answers: Sendable {
    private let answers: Mutex<[Answer?]>
    init(count: Int) { answers = Mutex([Answer?](repeating: nil, count: count)) }
    func set(_ index: Int, _ answer: Answer) { answers.withLock { $0[index] = answer } }
    var all: [Answer?] { answers.withLock { $0 } }
}

/// When each view first showed each document (sha256 → poll time), filled by the poller thread.
final class Sightings: Sendable {
    private let seen: Mutex<[[String: Double]]>
    let polling = Mutex(true)
    init(views: Int) { seen = Mutex([[String: Double]](repeating: [:], count: views)) }
    func record(_ view: Int, _ hashes: [String], at time: Double) {
        seen.withLock { for hash in hashes where $0[view][hash] == nil { $0[view][hash] = time } }
    }
    var all: [[String: Double]] { seen.withLock { $0 } }
}

/// A store opened read-only: the documents stored after the last one it returned.
final class StoreReader {
    private var db: OpaquePointer?
    private var statement: OpaquePointer?
    private var last: Int64 = 0

    init(path: String) {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { fail("cannot open \(path) read-only") }
        sqlite3_busy_timeout(db, 2000)
        guard
            sqlite3_prepare_v2(db, "SELECT id, sha256 FROM document WHERE id > ?1 ORDER BY id", -1, &statement, nil) == SQLITE_OK
        else { fail("cannot read the documents of \(path)") }
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close(db)
    }

    /// Skips what the store holds now.
    func skipToEnd() { _ = newDocuments() }

    func newDocuments() -> [String] {
        var hashes: [String] = []
        sqlite3_bind_int64(statement, 1, last)
        while sqlite3_step(statement) == SQLITE_ROW {
            last = sqlite3_column_int64(statement, 0)
            hashes.append(String(cString: sqlite3_column_text(statement, 1)))
        }
        sqlite3_reset(statement)
        return hashes
    }
}

func sha256Hex(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

/// The whole machine's busy time and total time so far, in ticks (/proc/stat's first line).
func machineTicks() -> (busy: Double, total: Double) {
    guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8), let line = stat.split(separator: "\n").first
    else { return (0, 0) }
    let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
    guard values.count >= 5 else { return (0, 0) }
    let total = values.prefix(8).reduce(0, +)
    return (total - values[3] - values[4], total)
}

func busyShare(_ before: (busy: Double, total: Double), _ after: (busy: Double, total: Double)) -> String {
    after.total > before.total ? String(format: "%.0f%%", (after.busy - before.busy) / (after.total - before.total) * 100) : "?"
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

struct TeamLogBench {
    let options: Options
    let work: String

    init(_ options: Options) {
        self.options = options
        work = options.cache + "/work-\(getpid())"
        try? FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    }

    var subdash: String { options.subdash }

    /// The generated data's directory (made once, then cached).
    func dataset() -> String {
        let n = options.subscribers
        let dir = "\(options.cache)/data-\(n)-v2"
        if !FileManager.default.fileExists(atPath: dir + "/manifest.json") {
            try? FileManager.default.removeItem(atPath: dir)
            note("generating \(n) subscribers (v2) into \(dir)…")
            let t = timed(
                ["generate", "--subscribers", "\(n)", "--seed", "1", "--versions", "v2", "--out", dir]
                    + (n >= 100_000 ? ["--gzip"] : []))
            if t.status != 0 { fail("subdash generate failed") }
        }
        return dir
    }

    func note(_ text: String) { FileHandle.standardError.write(Data("\(text)\n".utf8)) }

    /// Runs subdash under /usr/bin/time; stdout kept, stderr to `stderrFile` (or discarded).
    func timed(_ arguments: [String], stderrFile: String? = nil) -> ChildTiming {
        let timeFile = work + "/time.txt"
        try? FileManager.default.removeItem(atPath: timeFile)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        p.arguments = ["-f", "%e %U %S %M", "-o", timeFile, subdash] + arguments
        let out = Pipe()
        p.standardOutput = out
        if let stderrFile {
            _ = FileManager.default.createFile(atPath: stderrFile, contents: nil)
            p.standardError = FileHandle(forWritingAtPath: stderrFile)
        } else {
            p.standardError = FileHandle.nullDevice
        }
        do { try p.run() } catch { fail("cannot run /usr/bin/time: \(error)") }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let fields = ((try? String(contentsOfFile: timeFile, encoding: .utf8)) ?? "").split(whereSeparator: \.isWhitespace)
            .suffix(4).compactMap { Double($0) }
        guard fields.count == 4 else { fail("no timing for subdash \(arguments.joined(separator: " "))") }
        return ChildTiming(
            seconds: fields[0], cpu: fields[1] + fields[2], peakMB: fields[3] / 1024,
            stdout: String(decoding: data, as: UTF8.self), status: p.terminationStatus)
    }

    /// The server's CPU seconds so far: its postmaster, the backends it has reaped, and those
    /// running now (from /proc, with --pgdata); nil without.
    func serverCPU() -> Double? {
        guard let pgdata = options.pgdata,
            let pidText = try? String(contentsOfFile: pgdata + "/postmaster.pid", encoding: .utf8),
            let pid = pidText.split(separator: "\n").first.flatMap({ Int($0) })
        else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        func fields(_ path: String) -> [Substring]? {
            guard let stat = try? String(contentsOfFile: path, encoding: .utf8), let close = stat.lastIndex(of: ")") else {
                return nil
            }
            return stat[stat.index(after: close)...].split(separator: " ")
        }
        guard let own = fields("/proc/\(pid)/stat"), own.count > 14 else { return nil }
        // utime, stime, cutime, cstime: the 14th to 17th fields, 12th to 15th after the name.
        var total = own[11...14].compactMap { Double($0) }.reduce(0, +)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(entry) != nil {
            guard let f = fields("/proc/\(entry)/stat"), f.count > 12, Int(f[1]) == pid else { continue }
            total += (Double(f[11]) ?? 0) + (Double(f[12]) ?? 0)
        }
        return total / ticks
    }

    func sqliteCount(_ store: String, _ sql: String) -> String {
        run("/usr/bin/sqlite3", [store, sql]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func removeStore(_ path: String) {
        for file in [path, path + "-wal", path + "-shm"] { try? FileManager.default.removeItem(atPath: file) }
    }

    /// What must be equal between a view and a file import of the same documents.
    func contents(_ store: String) -> String {
        let states = run(subdash, ["report", "states", "--db", store, "--format", "json"])
        let mrr = run(subdash, ["report", "mrr", "--db", store, "--format", "json"])
        if !states.hasPrefix("{") || !mrr.hasPrefix("{") { fail("subdash report gave no JSON for \(store)") }
        let counts = sqliteCount(store, "SELECT (SELECT COUNT(*) FROM document), (SELECT COUNT(*) FROM notification)")
        return counts + "\n" + states + "\n" + mrr
    }

    // MARK: - A fresh sync against a file import

    func syncVsImport() {
        let data = dataset()
        let root = data + "/test-root.pem"
        let documents = manifestDocumentCount(data)
        print(
            "\n#### `import --team`, a fresh `sync` and a file import: \(options.subscribers) subscribers (\(documents) v2 documents), \(subdash)\n"
        )
        print(
            "| run | import --team s / CPU s / peak MB | fresh sync s / CPU s / peak MB | file import s / CPU s / peak MB | sync ÷ import (wall) | server CPU s: import --team / sync | view = file import |"
        )
        print("|---|---|---|---|---|---|---|")
        var pushes: [Double] = []
        var syncs: [Double] = []
        var imports: [Double] = []
        var ratios: [Double] = []
        var allSame = true
        for run in 1...max(1, options.runs) {
            let log = TeamDatabase(base: options.team!, label: "svi\(run)", psql: options.psql)
            let view = work + "/view-\(run).sqlite"
            let file = work + "/import-\(run).sqlite"
            removeStore(view)
            removeStore(file)
            func fileImport() -> ChildTiming {
                note("run \(run): subdash import --db …")
                let t = timed(["import", "--db", file, "--trust-root", root, data], stderrFile: work + "/import.err")
                if t.status != 0 { fail("subdash import exited \(t.status): see \(work)/import.err") }
                return t
            }
            var importTiming: ChildTiming? = nil
            if run % 2 == 1 { importTiming = fileImport() }
            note("run \(run): subdash import --team …")
            let server0 = serverCPU()
            let push = timed(["import", "--team", log.url, "--trust-root", root, data], stderrFile: work + "/push.err")
            if push.status != 0 { fail("subdash import --team exited \(push.status): see \(work)/push.err") }
            let server1 = serverCPU()
            note("run \(run): subdash sync --team … (fresh view)")
            let sync = timed(["sync", "--team", log.url, "--db", view, "--trust-root", root], stderrFile: work + "/sync.err")
            if sync.status != 0 { fail("subdash sync exited \(sync.status): see \(work)/sync.err") }
            let server2 = serverCPU()
            if importTiming == nil { importTiming = fileImport() }
            let plain = importTiming!
            let same = contents(view) == contents(file)
            allSame = allSame && same
            let serverText =
                if let server0, let server1, let server2 {
                    String(format: "%.1f / %.1f", server1 - server0, server2 - server1)
                } else { "–" }
            print(
                String(
                    format: "| %d | %.1f / %.1f / %.0f | %.1f / %.1f / %.0f | %.1f / %.1f / %.0f | %.2f | %@ | %@ |", run,
                    push.seconds, push.cpu, push.peakMB, sync.seconds, sync.cpu, sync.peakMB, plain.seconds, plain.cpu,
                    plain.peakMB, sync.seconds / plain.seconds, serverText,
                    same ? "yes: `report states`, `report mrr`, documents, notifications" : "**NO**"))
            pushes.append(push.seconds)
            syncs.append(sync.seconds)
            imports.append(plain.seconds)
            ratios.append(sync.seconds / plain.seconds)
            log.drop()
            removeStore(view)
            removeStore(file)
        }
        print(
            String(
                format: "| median | %.1f | %.1f | %.1f | %.2f | | %@ |", median(pushes), median(syncs), median(imports),
                median(ratios), allSame ? "all runs" : "**NOT ALL**"))
        try? FileManager.default.removeItem(atPath: work)
    }

    /// How many v2 documents the generated data holds, from its manifest.
    func manifestDocumentCount(_ data: String) -> String {
        guard let manifest = try? Data(contentsOf: URL(fileURLWithPath: data + "/manifest.json")),
            let object = try? JSONSerialization.jsonObject(with: manifest) as? [String: Any],
            let documents = object["documents"] as? [String: Any], let v2 = documents["v2"] as? Int
        else { return "?" }
        return "\(v2)"
    }

    // MARK: - Follow latency, and several listeners

    /// A `listen --team` with no store on a free port, its request log in `log`.
    func startListener(_ url: String, root: String, log: String) -> (Process, Int) {
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: subdash)
        listener.arguments = ["listen", "--team", url, "--port", "0", "--trust-root", root, "--log", log]
        let err = Pipe()
        listener.standardError = err
        do { try listener.run() } catch { fail("cannot run \(subdash): \(error)") }
        var seen = ""
        while true {
            let data = err.fileHandleForReading.availableData
            if data.isEmpty { fail("subdash listen exited: \(seen)") }
            seen += String(decoding: data, as: UTF8.self)
            if let r = seen.range(of: #"127\.0\.0\.1:\d+"#, options: .regularExpression) {
                let port = Int(seen[r].split(separator: ":")[1])!
                // Whatever else it says is read and dropped, so that it never waits on a full pipe.
                let handle = err.fileHandleForReading
                let drain = Thread { while !handle.availableData.isEmpty {} }
                drain.start()
                return (listener, port)
            }
        }
    }

    func stop(_ process: Process) {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    /// Posts `documents` to `ports`: document k at `start + k / rate` (or at once with no rate) over
    /// `connections` connections to each port, document k to port k % ports.count.
    func post(_ documents: [Data], ports: [Int], connections: Int, rate: Double?) -> (Answers, Double, Double) {
        let answers = Answers(count: documents.count)
        let finished = DispatchGroup()
        let lanes = ports.count * connections
        let start = now() + 0.2
        for lane in 0..<lanes {
            let port = ports[lane % ports.count]
            finished.enter()
            let thread = Thread {
                let connection = Connection(port: port)
                var k = lane
                while k < documents.count {
                    if let rate {
                        let due = start + Double(k) / rate
                        let wait = due - now()
                        if wait > 0 { usleep(UInt32(wait * 1e6)) }
                    }
                    let t0 = now()
                    let answer = connection.postAnswer(documents[k])
                    answers.set(
                        k,
                        Answer(
                            sent: t0, answered: now(), status: answer.status,
                            outcome: answer.body.trimmingCharacters(in: .whitespacesAndNewlines)))
                    k += lanes
                }
                finished.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        finished.wait()
        return (answers, start, now())
    }

    /// The data's documents, all but the last `heldBack` in `preload` (files for `import --team`), the
    /// last `heldBack` returned in order. The file where the cut falls is split into a new NDJSON file
    /// (its head); the files before it are imported as they are.
    func split(_ data: String, heldBack: Int) -> (preload: [String], held: [Data]) {
        let files = ((FileManager.default.enumerator(atPath: data + "/v2")?.allObjects as? [String]) ?? [])
            .filter { $0.hasSuffix(".ndjson") || $0.hasSuffix(".ndjson.gz") }.sorted().map { data + "/v2/" + $0 }
        var needed = heldBack
        var heldFiles: [String] = []
        for (index, file) in files.enumerated().reversed() {
            let reader = file.hasSuffix(".gz") ? "gzip -dc '\(file)'" : "cat '\(file)'"
            let lines =
                Int(run("/bin/sh", ["-c", "\(reader) | grep -c -v '^$'"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            if lines <= needed {
                heldFiles.insert(file, at: 0)
                needed -= lines
                if needed == 0 { return (Array(files[..<index]), heldFiles.flatMap { loadDocuments($0, limit: Int.max) }) }
                continue
            }
            let head = work + "/preload-head.ndjson"
            let tail = work + "/held-tail.ndjson"
            run("/bin/sh", ["-c", "\(reader) | grep -v '^$' | head -n -\(needed) > '\(head)'"])
            run("/bin/sh", ["-c", "\(reader) | grep -v '^$' | tail -n \(needed) > '\(tail)'"])
            let held = ([tail] + heldFiles).flatMap { loadDocuments($0, limit: Int.max) }
            return (Array(files[..<index]) + [head], held)
        }
        fail("the data holds fewer than \(heldBack) documents: lower --rate, --seconds or the number of --views")
    }

    func followLatency() {
        let data = dataset()
        let root = data + "/test-root.pem"
        let perRun = Int(options.rate * options.seconds)
        let (preload, held) = split(data, heldBack: perRun * options.views.count)
        let log = TeamDatabase(base: options.team!, label: "follow", psql: options.psql)
        note("pushing all but the last \(held.count) documents into the log (import --team)…")
        let push = timed(["import", "--team", log.url, "--trust-root", root] + preload, stderrFile: work + "/push.err")
        if push.status != 0 { fail("subdash import --team exited \(push.status): see \(work)/push.err") }
        let base = work + "/base-view.sqlite"
        note("making the view the followers start from (sync)…")
        let baseSync = timed(["sync", "--team", log.url, "--db", base, "--trust-root", root], stderrFile: work + "/sync.err")
        if baseSync.status != 0 { fail("subdash sync exited \(baseSync.status): see \(work)/sync.err") }
        let baseDocuments = sqliteCount(base, "SELECT COUNT(*) FROM document")
        print(
            "\n#### Follow latency: \(options.subscribers) subscribers, \(subdash), \(String(format: "%g", options.rate)) notifications/s for \(String(format: "%g", options.seconds)) s over \(options.postConnections) connections to one `listen --team`\n"
        )
        print(
            String(
                format:
                    "All but the last %d documents were pushed into the log first (`import --team` %.1f s), and made into a view of %@ documents (`sync`, %.1f s, %.0f MB peak); each view is a copy of it, following with `sync --follow`, and each view count posts %d new notifications of those held back; the stores are polled every %.0f ms. Latency is from the 200 to the poll that first found the document in the view's store, over what was posted after the first 10%% of the time.\n",
                held.count, push.seconds, baseDocuments, baseSync.seconds, baseSync.peakMB, perRun,
                options.pollMilliseconds))
        print(
            "| views | posted | logged | posted/s | 200 p99 ms | follow p50 ms | follow p99 ms | follow max ms | worst view's p99 ms | not seen | each view's CPU ms a notification | listener CPU ms a notification | machine busy |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for (index, viewCount) in options.views.enumerated() {
            let slice = Array(held[(index * perRun)..<((index + 1) * perRun)])
            followRun(viewCount, slice, log: log, base: base, root: root)
        }
        log.drop()
        listenersRun(data: data, root: root)
        try? FileManager.default.removeItem(atPath: work)
    }

    func followRun(_ viewCount: Int, _ documents: [Data], log: TeamDatabase, base: String, root: String) {
        // The views: copies of the first, each following the log.
        var views: [Process] = []
        var stores: [String] = []
        for v in 0..<viewCount {
            let store = work + "/view-\(viewCount)-\(v).sqlite"
            removeStore(store)
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: base + suffix) {
                try? FileManager.default.copyItem(atPath: base + suffix, toPath: store + suffix)
            }
            let errFile = work + "/follow-\(viewCount)-\(v).err"
            _ = FileManager.default.createFile(atPath: errFile, contents: nil)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: subdash)
            p.arguments = ["sync", "--team", log.url, "--db", store, "--trust-root", root, "--follow"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle(forWritingAtPath: errFile)
            do { try p.run() } catch { fail("cannot run \(subdash): \(error)") }
            views.append(p)
            stores.append(store)
        }
        // Each has caught up (the slices posted for earlier view counts) and listens.
        for v in 0..<viewCount {
            let errFile = work + "/follow-\(viewCount)-\(v).err"
            let waited = now()
            while !(((try? String(contentsOfFile: errFile, encoding: .utf8)) ?? "").contains("following the team log")) {
                if !views[v].isRunning { fail("subdash sync --follow exited: see \(errFile)") }
                if now() - waited > 1800 { fail("subdash sync --follow did not catch up in 30 minutes") }
                usleep(50_000)
            }
        }
        let (listener, port) = startListener(log.url, root: root, log: work + "/follow-listen-\(viewCount).log")
        let hashes = documents.map(sha256Hex)
        let sightings = Sightings(views: viewCount)
        let pollSeconds = options.pollMilliseconds / 1000
        let storePaths = stores
        let poller = Thread {
            let readers = storePaths.map { StoreReader(path: $0) }
            for reader in readers { reader.skipToEnd() }
            while sightings.polling.withLock({ $0 }) {
                for (v, reader) in readers.enumerated() {
                    let found = reader.newDocuments()
                    if !found.isEmpty { sightings.record(v, found, at: now()) }
                }
                usleep(UInt32(pollSeconds * 1e6))
            }
        }
        poller.start()
        usleep(300_000)
        let cpu0 = views.map { cpuSeconds($0.processIdentifier, thread: "").process }
        let listenerCPU0 = cpuSeconds(listener.processIdentifier, thread: "").process
        let machine0 = machineTicks()
        let (answers, start, end) = post(documents, ports: [port], connections: options.postConnections, rate: options.rate)
        let machine1 = machineTicks()
        let listenerCPU1 = cpuSeconds(listener.processIdentifier, thread: "").process
        let posted = answers.all.compactMap { $0 }
        // Logged ones must reach every view; wait for them (up to a minute).
        let logged = Set(zip(hashes, posted).filter { $0.1.status == 200 && $0.1.outcome == "logged" }.map(\.0))
        let waited = now()
        while now() - waited < 60 {
            if sightings.all.allSatisfy({ seen in logged.allSatisfy { seen[$0] != nil } }) { break }
            usleep(50_000)
        }
        let cpu1 = views.map { cpuSeconds($0.processIdentifier, thread: "").process }
        sightings.polling.withLock { $0 = false }
        for view in views { stop(view) }
        stop(listener)
        let seen = sightings.all
        let steadyFrom = start + (end - start) * 0.1
        var latencies: [Double] = []
        var worstP99 = 0.0
        var missing = 0
        for v in 0..<viewCount {
            var own: [Double] = []
            for (hash, answer) in zip(hashes, posted) where logged.contains(hash) {
                guard let at = seen[v][hash] else {
                    missing += 1
                    continue
                }
                if answer.sent >= steadyFrom { own.append((at - answer.answered) * 1000) }
            }
            if !own.isEmpty { worstP99 = max(worstP99, percentile(own.sorted(), 0.99)) }
            latencies += own
        }
        let sorted = latencies.sorted()
        let answerTimes = posted.map { ($0.answered - $0.sent) * 1000 }.sorted()
        let viewCPU = zip(cpu0, cpu1).map { $1 - $0 }.reduce(0, +) / Double(viewCount) * 1000 / Double(max(1, posted.count))
        print(
            String(
                format: "| %d | %d | %d | %.1f | %.1f | %.0f | %.0f | %.0f | %.0f | %d | %.2f | %.2f | %@ |", viewCount,
                posted.count, logged.count, Double(posted.count) / (end - start), percentile(answerTimes, 0.99),
                sorted.isEmpty ? 0 : percentile(sorted, 0.5), sorted.isEmpty ? 0 : percentile(sorted, 0.99),
                sorted.last ?? 0, worstP99, missing, viewCPU,
                (listenerCPU1 - listenerCPU0) * 1000 / Double(max(1, posted.count)), busyShare(machine0, machine1)))
        for store in stores { removeStore(store) }
    }

    /// L listeners on one new log, every document posted once, as fast as the connections go.
    func listenersRun(data: String, root: String) {
        let limit = options.notifications == Int.max ? 20_000 : options.notifications
        let documents = loadDocuments(data + "/v2", limit: limit)
        let distinct = Set(documents.map(sha256Hex)).count
        print(
            "\n#### Several listeners on one log: \(documents.count) notifications (\(distinct) distinct) posted as fast as \(options.listenerConnections) connections to each listener go, \(subdash)\n"
        )
        print(
            "| listeners | seconds | notifications/s | steady/s | p50 ms | p99 ms | max ms | in the log | listeners' CPU ms a notification | server CPU ms a notification | machine busy |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for count in options.listeners {
            let log = TeamDatabase(base: options.team!, label: "listeners\(count)", psql: options.psql)
            // The schema first, so that the listeners do not race to create it.
            let make = timed(["sync", "--team", log.url, "--db", work + "/schema.sqlite", "--trust-root", root])
            if make.status != 0 { fail("subdash sync could not make the log's schema") }
            removeStore(work + "/schema.sqlite")
            let started = (0..<count).map { startListener(log.url, root: root, log: work + "/listeners-\(count)-\($0).log") }
            let cpu0 = started.map { cpuSeconds($0.0.processIdentifier, thread: "").process }.reduce(0, +)
            let server0 = serverCPU()
            let machine0 = machineTicks()
            let (answers, start, end) = post(
                documents, ports: started.map(\.1), connections: options.listenerConnections, rate: nil)
            let machine1 = machineTicks()
            let server1 = serverCPU()
            let cpu1 = started.map { cpuSeconds($0.0.processIdentifier, thread: "").process }.reduce(0, +)
            for (listener, _) in started { stop(listener) }
            let posted = answers.all.compactMap { $0 }
            let ok = posted.filter { $0.status == 200 }.count
            let inLog = run(
                "/usr/bin/env",
                [options.psql, "-X", "-q", "-t", "-A", "-d", log.url, "-c", "SELECT COUNT(*) FROM subdash_document"]
            ).trimmingCharacters(in: .whitespacesAndNewlines)
            log.drop()
            let sorted = posted.map { ($0.answered - $0.sent) * 1000 }.sorted()
            let serverText =
                if let server0, let server1 {
                    String(format: "%.2f", (server1 - server0) * 1000 / Double(posted.count))
                } else { "–" }
            print(
                String(
                    format: "| %d | %.1f | %.0f | %.0f | %.2f | %.2f | %.2f | %@ | %.2f | %@ | %@ |", count, end - start,
                    Double(posted.count) / (end - start), steadyRate(posted.map(\.answered), from: start, to: end),
                    percentile(sorted, 0.5), percentile(sorted, 0.99), sorted.last ?? 0,
                    inLog == "\(distinct)" && ok == posted.count
                        ? "\(inLog), each once" : "**MISMATCH**: \(inLog) of \(distinct), \(ok) answered 200",
                    (cpu1 - cpu0) * 1000 / Double(posted.count), serverText, busyShare(machine0, machine1)))
        }
    }
}
