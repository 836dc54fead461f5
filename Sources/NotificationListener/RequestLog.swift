import Foundation
import Synchronization
import TerminalUI

#if canImport(Glibc)
    import Glibc
#endif

/// One JSON line per request, to stderr or a file opened for appending: when it arrived, which
/// notification (its `notificationUUID`, or `sha256:` and the body's digest when there is none to
/// trust), its type, what became of it, the HTTP status, the milliseconds to the answer and the
/// commit that stored it.
///
/// A line that cannot be written (a full disk, stderr piped to a reader that exited) is counted,
/// never fatal: the notification behind it is stored and answered all the same. The first failure
/// is said once on stderr; `/healthz` gives the count (``failures``).
public final class RequestLog: Sendable {
    /// One request as logged.
    public struct Entry: Sendable, Encodable {
        public var time: String
        public var method: String
        public var path: String
        public var id: String?
        public var type: String?
        public var outcome: String
        public var status: Int
        public var ms: Double
        public var reason: String?
        /// The number of the group commit that stored it (1, 2, … since the listener started):
        /// requests sharing a number shared one durable commit.
        public var commit: Int?
        /// False for a rejected request past the archive's limit: answered and counted, not
        /// archived (docs/security.md, "The listener's limits"); and for every rejected request
        /// of a listener with no store (`listen --team` without `--db`): there is no archive.
        public var archived: Bool?
        /// The team log's sequence number of the document (`listen --team`): where it was
        /// committed, or where the log held it already.
        public var seq: Int64?
    }

    /// Lines that could not be written, and why the first one could not.
    public struct Failures: Sendable, Equatable {
        public var lines = 0
        public var first: String?
    }

    private let descriptor: Int32
    /// What the log is written to, for messages: a path, or "standard error".
    private let target: String
    /// Held while a line is written (lines of concurrent requests never interleave), with the
    /// failures counted so far.
    private let writing = Mutex(Failures())
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Logs to standard error.
    public init() {
        descriptor = STDERR_FILENO
        target = "standard error"
    }

    /// Appends to `path`, creating it (mode 0600: the lines name customers' notifications) when needed.
    public init(path: String) throws {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw ListenerError("--log \(path): cannot open the file for appending: \(String(cString: strerror(errno)))")
        }
        descriptor = fd
        target = path
    }

    deinit {
        if descriptor != STDERR_FILENO { close(descriptor) }
    }

    public func write(_ entry: Entry) {
        guard let json = try? encoder.encode(entry) else { return }
        // JSON escapes C0 controls itself; C1 controls and bidirectional overrides from a request
        // (its path, a rejection's reason) are escaped the same way, so `tail -f` of the log
        // cannot be steered by them. A JSON reader sees the same strings.
        emit(TextSanitizer.jsonVisible(String(decoding: json, as: UTF8.self)) + "\n")
    }

    /// A line of text (startup, shutdown, a failure), not a request.
    public func note(_ text: String) {
        emit(TextSanitizer.visibleLines(text) + "\n")
    }

    /// The lines lost so far.
    public var failures: Failures { writing.withLock { $0 } }

    private func emit(_ line: String) {
        let firstFailure: String? = writing.withLock { failures in
            guard let error = Self.writeAll(descriptor, Array(line.utf8)) else { return nil }
            failures.lines += 1
            guard failures.first == nil else { return nil }
            failures.first = error
            return error
        }
        guard let firstFailure else { return }
        // Once, on stderr (when the log is stderr itself this may fail too: nothing more to do).
        let message =
            "subdash listen: cannot write the request log to \(target): \(firstFailure); requests are still "
            + "answered and stored, and GET /healthz counts the lines lost\n"
        _ = Self.writeAll(STDERR_FILENO, Array(message.utf8))
    }

    /// Writes every byte, going on after a partial write or an interruption; the error that stopped it, or nil.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> String? {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            written += n
        }
        return nil
    }

    static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func timestamp(_ date: Date) -> String { date.formatted(timeFormat) }
}

/// A failure of the listener a user can act on (one line).
public struct ListenerError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
