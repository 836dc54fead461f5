import Foundation
import Synchronization

/// The built `subdash` executable, run as a user runs it.
public enum Subdash {
    /// What a run of the process gave.
    public struct Run: Sendable {
        /// The exit status; -1 when the process was killed by a signal (the timeout).
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// The executable beside the test bundle, else the package's debug build.
    public static let binaryPath: String? = {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [here.appendingPathComponent("subdash").path, packagePath(".build/debug/subdash")]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The executable, or an error saying to build it.
    public static func binary() throws -> String {
        guard let binaryPath else { throw TestSupportError("build the subdash executable first (swift build)") }
        return binaryPath
    }

    /// A process of `subdash arguments`, standard input from /dev/null, output discarded; the
    /// caller runs it.
    public static func process(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try binary())
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return process
    }

    /// Runs subdash to its end with standard input from /dev/null, in `directory`, with
    /// `environment` over this process's (less the names in `removing`); killed after `timeout`
    /// seconds (status -1 then).
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], removing: [String] = [],
        directory: String? = nil, timeout: Double = 60
    ) throws -> Run {
        let process = try process(arguments)
        var env = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        for name in removing { env[name] = nil }
        process.environment = env
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let killer = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        // Both pipes at once: a child that fills one while we wait on the other would block.
        let group = DispatchGroup()
        let errorData = LockedData()
        DispatchQueue.global().async(group: group) { errorData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        killer.cancel()
        let status = process.terminationReason == .uncaughtSignal ? -1 : process.terminationStatus
        return Run(
            status: status, stdout: String(decoding: o, as: UTF8.self),
            stderr: String(decoding: errorData.get(), as: UTF8.self))
    }

    /// `run` from a thread of its own, for async tests: waiting for the process must not hold one
    /// of the task threads an in-process server answers on.
    public static func runOffThread(_ arguments: [String], environment: [String: String] = [:]) async throws -> Run {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try run(arguments, environment: environment) }) }.start()
        }
    }
}

private final class LockedData: Sendable {
    private let data = Mutex(Data())
    func set(_ value: Data) { data.withLock { $0 = value } }
    func get() -> Data { data.withLock { $0 } }
}
