import Foundation

/// The package root, found from this file's path (Tests/TestSupport/PackageRoot.swift).
public let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// The absolute path of `relativePath` under the package root.
public func packagePath(_ relativePath: String) -> String {
    packageRoot.appendingPathComponent(relativePath).path
}

/// The committed sample data the tests read.
public enum SampleData {
    /// The simulator's signed v1 and v2 notifications (`subdash generate`).
    public static let generated = packagePath("SampleData/generated")
    /// The simulator's root certificate, which SampleData's signatures chain to.
    public static let trustRoot = generated + "/test-root.pem"
    /// Apple's documented example payloads, one per notification type.
    public static let examples = packagePath("SampleData/examples")
    /// The simulator's shared secret, in every generated v1 `password`.
    public static let sharedSecret = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
}

/// A failure of the test support itself (a missing binary, a fixture that did not build), with
/// what to do about it.
public struct TestSupportError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
