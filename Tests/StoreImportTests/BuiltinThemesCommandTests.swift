import Foundation
import TestSupport
import Testing

/// The shipped themes work wherever the binary is (issue: `--theme light` outside the checkout
/// was "not found"): a copy of `subdash` run from a directory with no `Themes/` above it lists
/// them as built-in and loads them.
@Suite struct BuiltinThemesCommandTests {
    @Test func theShippedThemesAreBuiltIntoTheBinary() throws {
        let directory = try TemporaryDirectory("themes-elsewhere")
        defer { directory.remove() }
        let binary = directory.path + "/subdash"
        try FileManager.default.copyItem(atPath: try Subdash.binary(), toPath: binary)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["themes", "list"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.environment = ["HOME": directory.path, "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        for name in ["default", "high-contrast", "light", "mono", "solarized-dark"] {
            #expect(text.split(separator: "\n").contains { $0.hasPrefix(name + " ") && $0.hasSuffix("built-in") }, "\(text)")
        }
    }
}
