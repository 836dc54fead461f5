import Synchronization

/// Lines collected from any thread (an importer's rejection reports, a process's output).
public final class Lines: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public func append(_ line: String) { lines.withLock { $0.append(line) } }
    public var all: [String] { lines.withLock { $0 } }
}
