import Foundation

/// Lines collected from any thread (an importer's rejection reports, a process's output).
public final class Lines: @unchecked Sendable {
    // Every access to `lines` holds `lock`.
    private let lock = NSLock()
    private var lines: [String] = []

    public init() {}

    public func append(_ line: String) { lock.withLock { lines.append(line) } }
    public var all: [String] { lock.withLock { lines } }
}
