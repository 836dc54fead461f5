import Foundation
import Synchronization
import TeamLog

#if canImport(Glibc)
    import Glibc
#endif

/// What `GET /healthz` answers, from the listener's own state: whether a notification posted now
/// could be committed. It fails (503) when the last commit failed (until one succeeds: Apple's
/// retry, or the next notification) or when the store's file system has less free space than
/// `minimumFreeBytes`. It opens no connection and takes no lock of the store's: a flood of health
/// checks costs the notifications only the CPU of answering them (docs/performance.md, "`/healthz`
/// under a flood"). Free space is measured at most once a second, however often it is asked. The lines it adds say what the request log lost and what the archive of rejected
/// requests only counted; neither makes it fail, as neither keeps a notification out.
///
/// With a team log (`listen --team`) it fails while the log cannot be reached too, and names the
/// log (its URL without the password) and why: the writer's own state, kept current by its thread
/// (``TeamLogWriter/health()``), so a health check still opens no connection. Without a local
/// store, free space is not a condition: nothing is written here.
final class ListenerHealth: Sendable {
    struct State {
        var lastFailure: (at: Date, reason: String)?
        var measured: ContinuousClock.Instant?
        var free: Result<Int64, ListenerError> = .success(0)
    }

    /// The directory holding the store, whose file system the commits write to.
    let directory: String
    let minimumFreeBytes: Int64
    let log: RequestLog
    let rejectedArchive: RejectedArchive
    /// Whether there is a local store whose free space counts.
    let hasStore: Bool
    let teamLog: TeamLogWriter?
    private let state = Mutex(State())

    init(
        storePath: String?, hasStore: Bool = true, minimumFreeBytes: Int64, log: RequestLog,
        rejectedArchive: RejectedArchive, teamLog: TeamLogWriter? = nil
    ) {
        self.hasStore = hasStore
        self.teamLog = teamLog
        let directory = storePath.map { ($0 as NSString).deletingLastPathComponent } ?? ""
        self.directory = directory.isEmpty ? "." : directory
        self.minimumFreeBytes = minimumFreeBytes
        self.log = log
        self.rejectedArchive = rejectedArchive
    }

    /// Told after every commit of notifications, in the order they were made.
    func committed(_ outcome: Result<Void, any Error>) {
        state.withLock { state in
            switch outcome {
            case .success: state.lastFailure = nil
            case .failure(let error): state.lastFailure = (Date(), "\(error)")
            }
        }
    }

    /// Why the last commit failed, for the log line of a health check; nil when it did not.
    var lastFailureReason: String? {
        if let team = teamLog?.health(), !team.healthy { return team.line }
        return state.withLock { $0.lastFailure?.reason }
    }

    /// Healthy or not, and the text of the answer (first line `ok`, or `unhealthy: …`).
    func report(at now: ContinuousClock.Instant = .now) -> (healthy: Bool, text: String) {
        let (failure, free) = state.withLock { state in
            if state.measured.map({ now - $0 >= .seconds(1) }) ?? true {
                state.free = Self.freeBytes(directory)
                state.measured = now
            }
            return (state.lastFailure, state.free)
        }
        var problems: [String] = []
        var lines: [String] = []
        if let teamLog {
            let team = teamLog.health()
            if !team.healthy { problems.append("the team log is unreachable") }
            lines.append(team.line)
        }
        let needed = "at least \(Self.mebibytes(minimumFreeBytes)) needed for a commit"
        switch free {
        case _ where !hasStore:
            break
        case .success(let bytes):
            if bytes < minimumFreeBytes { problems.append("free space below what a commit needs") }
            lines.append("free space: \(Self.mebibytes(bytes)) (\(needed))")
        case .failure(let error):
            problems.append("free space unknown")
            lines.append("free space: \(error.message) (\(needed))")
        }
        if !hasStore {
            // The team log's line says how its commits go.
        } else if let failure {
            problems.append("the last commit failed")
            // Why is in the request log (its "not stored" lines), not told to whoever asks here.
            lines.append(
                "last commit: failed at \(RequestLog.timestamp(failure.at)) (the request log says why; "
                    + "the next commit that succeeds clears this)")
        } else {
            lines.append("last commit: ok")
        }
        let lost = log.failures
        if lost.lines > 0 {
            lines.append("request log: \(lost.lines) line\(lost.lines == 1 ? "" : "s") not written (\(lost.first ?? "?"))")
        }
        let window = rejectedArchive.state(at: now)
        if window.counted > 0 {
            lines.append(
                "rejected requests: \(window.counted) counted, not archived, this hour "
                    + "(\(Self.mebibytes(Int64(rejectedArchive.bytesPerWindow))) archived at most per hour)")
        }
        let head = problems.isEmpty ? "ok" : "unhealthy: " + problems.joined(separator: "; ")
        return (problems.isEmpty, ([head] + lines).joined(separator: "\n") + "\n")
    }

    static func freeBytes(_ directory: String) -> Result<Int64, ListenerError> {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else {
            return .failure(ListenerError("cannot be read (\(String(cString: strerror(errno))))"))
        }
        return .success(Int64(info.f_bavail) * Int64(info.f_frsize))
    }

    static func mebibytes(_ bytes: Int64) -> String { "\(bytes >> 20) MiB" }
}
