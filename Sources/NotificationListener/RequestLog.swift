import Foundation
import Synchronization

/// One JSON line per request, to stderr or a file opened for appending: when it arrived, which
/// notification (its `notificationUUID`, or `sha256:` and the body's digest when there is none to
/// trust), its type, what became of it, the HTTP status and the milliseconds to the answer.
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
    }

    private let handle: FileHandle
    /// Held while a line is written: lines of concurrent requests never interleave.
    private let writing = Mutex(())
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Logs to standard error.
    public init() { handle = FileHandle.standardError }

    /// Appends to `path`, creating it when needed.
    public init(path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw ListenerError("--log \(path): cannot create the file")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw ListenerError("--log \(path): cannot open the file for writing")
        }
        handle.seekToEndOfFile()
        self.handle = handle
    }

    public func write(_ entry: Entry) {
        guard var data = try? encoder.encode(entry) else { return }
        data.append(0x0A)
        writing.withLock { _ in handle.write(data) }
    }

    /// A line of text (startup, shutdown), not a request.
    public func note(_ text: String) {
        writing.withLock { _ in handle.write(Data((text + "\n").utf8)) }
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
