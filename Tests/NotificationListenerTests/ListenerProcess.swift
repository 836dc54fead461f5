import Foundation
import SubscriberStore
import Synchronization

/// A real `subdash listen` process on a free loopback port, its stderr collected.
final class ListenerProcess: Sendable {
    let process = Process()
    let port: Int
    private let lines = CollectedOutput()
    private let pipe = Pipe()

    /// Starts the listener and waits for its "listening on" line. The store is created first when
    /// it is not there (`subdash listen` never creates one).
    init(binary: String, store: String, extra: [String] = []) throws {
        if !FileManager.default.fileExists(atPath: store) { _ = try AppDatabase.open(path: store) }
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["listen", "--db", store, "--port", "0"] + extra
        let pipe = self.pipe
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        let lines = self.lines
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil } else { lines.append(data) }
        }
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        var found: Int?
        while found == nil && Date() < deadline && process.isRunning {
            if let range = lines.text.range(of: #"listening on https?://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                found = Int(lines.text[range].split(separator: ":").last!)
            } else {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        guard let found else {
            process.terminate()
            throw HTTPTestError("subdash listen did not start: \(lines.text)")
        }
        port = found
    }

    var http: LoopbackHTTP { LoopbackHTTP(port: port) }
    var stderr: String { lines.text }

    /// Closes this end of the listener's stderr, as a reader that exits (`listen 2>&1 | head -1`):
    /// its next write there fails with EPIPE.
    func closeStandardError() {
        pipe.fileHandleForReading.readabilityHandler = nil
        try? pipe.fileHandleForReading.close()
    }

    /// Sends `signal` and waits for the exit; returns the exit status (or the signal number).
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) -> (status: Int32, reason: Process.TerminationReason) {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

final class CollectedOutput: Sendable {
    private let data = Mutex(Data())
    func append(_ d: Data) { data.withLock { $0.append(d) } }
    var text: String { String(decoding: data.withLock { $0 }, as: UTF8.self) }
}
