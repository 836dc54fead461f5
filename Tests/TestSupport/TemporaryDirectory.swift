import Foundation

/// A new directory under the system's temporary directory, readable by the user only (stores
/// hold customer emails), for one test. Call `remove()` when done (`defer { dir.remove() }`).
public struct TemporaryDirectory: Sendable {
    public let path: String

    /// Creates `subdash-LABEL-UUID` with mode 0700.
    public init(_ label: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("subdash-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
    }

    /// The path of `name` inside the directory (not created).
    public func path(_ name: String) -> String { path + "/" + name }

    public var url: URL { URL(fileURLWithPath: path) }

    /// Removes the directory and everything in it.
    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}

extension TemporaryDirectory {
    /// One private directory for this test process, removed when the process exits: where tests
    /// put single files (`uniquePath`) instead of straight into the shared temporary directory.
    public static let process: TemporaryDirectory = {
        do {
            let directory = try TemporaryDirectory("tests-\(getpid())")
            atexit { TemporaryDirectory.process.remove() }
            return directory
        } catch {
            fatalError("cannot create the tests' temporary directory: \(error)")
        }
    }()

    /// A path no other test uses, inside `process`, ending in `name` (not created).
    public static func uniquePath(_ name: String) -> String { process.path("\(UUID().uuidString)-\(name)") }
}
