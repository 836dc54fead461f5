import Foundation
import Synchronization

/// A private PostgreSQL server for the tests of one process: `initdb` into a new directory, started
/// with `pg_ctl` on a unix socket in that directory only (no TCP, no system service), stopped and
/// removed when the process exits, and by a watchdog if the process dies without exiting.
///
/// Where no server can be started (no PostgreSQL installed) the tests that need one are skipped
/// with a printed notice; with `SUBDASH_REQUIRE_POSTGRES=1` (set by .ci/run) or `CI` set, they
/// run and fail with the reason instead.
public final class PostgresServer: Sendable {
    /// The directory holding the data directory, the socket and the server's log.
    public let directory: String
    /// The socket's port number (it names the socket file; nothing listens on TCP).
    public let port = 5432
    /// The superuser role the tests connect as.
    public let superuser = "postgres"
    private let binaries: String
    private let runAs: String?
    private let databases = Mutex(0)

    /// Whether the PostgreSQL tests must run (CI): a server that cannot be started fails them.
    public static var required: Bool {
        let env = ProcessInfo.processInfo.environment
        return env["SUBDASH_REQUIRE_POSTGRES"] == "1" || (env["CI"].map { !$0.isEmpty && $0 != "0" && $0 != "false" } ?? false)
    }

    /// The server of this process, started on first use, or why there is none.
    public static let shared: Result<PostgresServer, Unavailable> = {
        do {
            let server = try PostgresServer()
            return .success(server)
        } catch let error as TestSupportError {
            return .failure(Unavailable(message: error.description))
        } catch {
            return .failure(Unavailable(message: "\(error)"))
        }
    }()

    /// Why this process has no server.
    public struct Unavailable: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { "no PostgreSQL server for the tests: \(message)" }
    }

    /// For `.enabled(if: PostgresServer.runsTests)`: true where a server started, and in CI where
    /// it must (the test then fails with the reason). Prints the notice when it skips.
    public static var runsTests: Bool {
        switch shared {
        case .success: return true
        case .failure(let error):
            if required { return true }
            noticeOnce.withLock { printed in
                guard !printed else { return }
                printed = true
                FileHandle.standardError.write(
                    Data(
                        "note: the PostgreSQL tests are SKIPPED: \(error.message) (install the postgresql package; CI runs them)\n"
                            .utf8))
            }
            return false
        }
    }

    private static let noticeOnce = Mutex(false)

    /// The server, or the error that fails a test which needs it.
    public static func server() throws -> PostgresServer {
        try shared.get()
    }

    private init() throws {
        binaries = try Self.findBinaries()
        // PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user.
        if geteuid() == 0 {
            guard getpwnam("postgres") != nil else {
                throw TestSupportError("running as root and there is no postgres user to run the server as")
            }
            runAs = "postgres"
        } else {
            runAs = nil
        }
        // Short: a unix socket's path must fit in 107 bytes.
        var template = Array("/tmp/sdpg-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw TestSupportError("cannot create a directory for the test PostgreSQL server")
        }
        directory = String(cString: made)
        if let runAs {
            _ = try Self.shell(["chown", runAs, directory])
        }
        let data = directory + "/data"
        let initdb = try run(
            [binaries + "/initdb", "-D", data, "-A", "trust", "-U", superuser, "-E", "UTF8", "--no-sync", "--no-instructions"])
        guard initdb.status == 0 else {
            removeDirectory()
            throw TestSupportError("initdb failed: \(initdb.output.suffix(600))")
        }
        do {
            try startServer()
        } catch {
            removeDirectory()
            throw error
        }
        startWatchdog()
        atexit {
            if case .success(let server) = PostgresServer.shared { server.stop() }
        }
    }

    /// Starts the server on its data directory (again, after ``stopServer()``).
    public func startServer() throws {
        let options = "-k \(directory) -c listen_addresses='' -p \(port) -F -c max_connections=200"
        let start = try run([
            binaries + "/pg_ctl", "-D", directory + "/data", "-l", directory + "/server.log", "-o", options, "-w", "-t", "60",
            "start",
        ])
        guard start.status == 0 else {
            let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
            throw TestSupportError("pg_ctl start failed: \(start.output.suffix(400)) \(log.suffix(600))")
        }
    }

    /// Stops the server as an outage would, keeping its data: its clients' connections are ended
    /// (`pg_ctl stop -m fast`) and new ones refused until ``startServer()``.
    public func stopServer() throws {
        let stop = try run([binaries + "/pg_ctl", "-D", directory + "/data", "-m", "fast", "-w", "-t", "60", "stop"])
        guard stop.status == 0 else { throw TestSupportError("pg_ctl stop failed: \(stop.output.suffix(400))") }
    }

    /// `postgres://` URL of a new, empty database on this server for one test, as `role` (the
    /// superuser unless given).
    public func createDatabase(_ label: String = "t") throws -> String {
        let n = databases.withLock { n -> Int in
            n += 1
            return n
        }
        let name = "\(label.lowercased().filter { $0.isLetter || $0.isNumber })_\(getpid())_\(n)"
        try psql("CREATE DATABASE \(name)", database: "postgres")
        return url(database: name)
    }

    /// The URL of `database` as `role` over the socket.
    public func url(database: String, role: String? = nil) -> String {
        "postgres://\(role ?? superuser)@/\(database)?host=\(directory)"
    }

    /// Runs SQL through psql as the superuser (or `role`); throws with psql's message on failure.
    @discardableResult
    public func psql(_ sql: String, database: String, role: String? = nil) throws -> String {
        let result = try run([
            binaries + "/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", directory, "-p", "\(port)", "-U",
            role ?? superuser, "-d", database, "-c", sql,
        ])
        guard result.status == 0 else { throw TestSupportError("psql failed: \(result.output)") }
        return result.output
    }

    /// The database name of a URL made by ``createDatabase(_:)``.
    public static func databaseName(of url: String) -> String {
        let afterSlash = url.components(separatedBy: "@/").last ?? ""
        return String(afterSlash.prefix { $0 != "?" })
    }

    /// Stops the server at once and removes its directory.
    public func stop() {
        _ = try? run([binaries + "/pg_ctl", "-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        removeDirectory()
    }

    private func removeDirectory() { try? FileManager.default.removeItem(atPath: directory) }

    /// A shell that stops the server and removes its directory once this process is gone, however
    /// it ended (a crash, SIGKILL).
    private func startWatchdog() {
        let stop =
            (runAs.map { "runuser -u \($0) -- " } ?? "") + "'\(binaries)/pg_ctl' -D '\(directory)/data' -m immediate -w stop"
        _ = try? Self.spawn([
            "sh", "-c",
            "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stop) >/dev/null 2>&1; rm -rf '\(directory)'",
        ])
    }

    /// `arguments` run as the server's user; output and error together.
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try Self.shell(runAs.map { ["runuser", "-u", $0, "--"] + arguments } ?? arguments)
    }

    private static func shell(_ arguments: [String]) throws -> (status: Int32, output: String) {
        // Output to a file, not a pipe: the server pg_ctl starts outlives it, and a pipe it
        // inherited would never reach its end.
        let outputPath = TemporaryDirectory.uniquePath("pg-output")
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let pid = try spawn(arguments, outputPath: outputPath)
        // waitpid rather than Foundation's Process: its wait missed runuser's exit once the
        // server it started was running (a zombie never reaped).
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw TestSupportError("waitpid: \(String(cString: strerror(errno)))") }
        }
        let exited = (status & 0x7f) == 0
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return (exited ? (status >> 8) & 0xff : -1, text)
    }

    /// Starts `arguments` (found on the PATH) with standard input from /dev/null and its output
    /// appended to `outputPath`, without waiting; neither the locale nor a PG* variable of the
    /// caller's is passed on.
    static func spawn(_ arguments: [String], outputPath: String = "/dev/null") throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") && !$0.key.hasPrefix("LC_") }
        environment["LC_ALL"] = "C.UTF-8"
        let argv = (["/usr/bin/env"] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, envp)
        guard result == 0 else { throw TestSupportError("cannot start \(arguments[0]): \(String(cString: strerror(result)))") }
        return pid
    }

    /// The directory holding initdb, pg_ctl and psql: `$SUBDASH_POSTGRES_BIN` when set, else
    /// Debian's newest version, else the PATH.
    private static func findBinaries() throws -> String {
        if let bin = ProcessInfo.processInfo.environment["SUBDASH_POSTGRES_BIN"], !bin.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: bin + "/initdb") else {
                throw TestSupportError("no initdb in SUBDASH_POSTGRES_BIN (\(bin))")
            }
            return bin
        }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted(by: >)
        for version in versions {
            let bin = "\(root)/\(version)/bin"
            if FileManager.default.isExecutableFile(atPath: bin + "/initdb") { return bin }
        }
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            if FileManager.default.isExecutableFile(atPath: "\(dir)/initdb")
                && FileManager.default.isExecutableFile(atPath: "\(dir)/pg_ctl")
            {
                return String(dir)
            }
        }
        throw TestSupportError("no PostgreSQL server found (initdb and pg_ctl, in /usr/lib/postgresql/*/bin or on the PATH)")
    }
}
