import AppStorePayloads
import ArgumentParser
import Foundation
import LifecycleSimulator
import StoreImport
import SubscriberStore

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Build a demo store from SampleData (in a cache directory) and open the dashboard.",
        discussion: """
            The store is \(DemoStore.defaultPath) ($XDG_CACHE_HOME/subdash/demo.sqlite, else \
            ~/.cache/subdash/demo.sqlite); the path is printed before the dashboard opens and shown in its status \
            line, so `subdash report states --db PATH` can read the same store. Never touches ./subdash.sqlite or \
            $SUBDASH_DB. The store is rebuilt when SampleData changes. Without a terminal (a script, CI) only the \
            path is printed, on standard output.
            """)

    @Option(help: "The SampleData directory (default: found from the current directory or the executable).")
    var sampleData: String?
    @Flag(help: "Rebuild the demo store even if SampleData did not change.") var rebuild = false

    mutating func run() async throws {
        guard let root = sampleData ?? DemoStore.locateSampleData() else {
            throw CLIError("cannot find SampleData/: run from the subdash checkout or pass --sample-data DIR")
        }
        let demo = try DemoStore.build(sampleData: root, rebuild: rebuild) { line in printError(line) }
        printError("demo store: \(demo.path)")
        if isatty(0) != 0 && isatty(1) != 0 {
            printError("  reports on it: subdash report states --db \(demo.path)")
            let dashboard = try OpenDashboard.parse(["--db", demo.path])
            try dashboard.run(storeLabel: "demo store: \(demo.path)", followTeam: false)
            printError("demo store: \(demo.path)")
        } else {
            // Not on a terminal (a script, CI): print the store for `report --db`.
            print(demo.path)
        }
    }
}

/// A store built from SampleData in `$XDG_CACHE_HOME/subdash` (or `~/.cache/subdash`).
enum DemoStore {
    struct Built {
        var path: String
        var summary: ImportSummary?
    }

    static func locateSampleData() -> String? {
        let fm = FileManager.default
        var candidates = [fm.currentDirectoryPath + "/SampleData"]
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(dir.appendingPathComponent("SampleData").path)
            dir = dir.deletingLastPathComponent()
        }
        candidates.append(
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("SampleData").path)
        return candidates.first { fm.fileExists(atPath: $0 + "/generated") }
    }

    /// Where the demo store is (or will be) built.
    static var defaultPath: String { cacheDirectory() + "/demo.sqlite" }

    static func cacheDirectory() -> String {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.cache")
        return base + "/subdash"
    }

    /// Names and sizes of every SampleData file: the demo store is rebuilt when this changes.
    static func fingerprint(_ root: String) throws -> String {
        let files = try Importer.expand([root + "/generated"])
        var text = ""
        for f in files {
            let size = (try? FileManager.default.attributesOfItem(atPath: f)[.size] as? Int) ?? 0
            text += "\(f.dropFirst(root.count))\t\(size)\n"
        }
        return Importer.sha256Hex(Data(text.utf8))
    }

    static func build(sampleData root: String, rebuild: Bool, report: @escaping @Sendable (String) -> Void) throws -> Built {
        let fm = FileManager.default
        let dir = cacheDirectory()
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/demo.sqlite"
        let stamp = dir + "/demo.fingerprint"
        let current = try fingerprint(root)
        if !rebuild, fm.fileExists(atPath: path), (try? String(contentsOfFile: stamp, encoding: .utf8)) == current {
            return Built(path: path, summary: nil)
        }
        for suffix in ["", "-wal", "-shm"] { try? fm.removeItem(atPath: path + suffix) }
        try? fm.removeItem(atPath: stamp)
        let database = try AppDatabase.open(path: path)
        let rootPEM = try String(contentsOfFile: root + "/generated/test-root.pem", encoding: .utf8)
        let verifier = try AppleJWSVerifier(additionalRootsPEM: [rootPEM])
        // The simulated v1 notifications carry the simulator's shared secret: trusted like the v2 ones.
        let importer = Importer.appStore(
            database: database, verifier: verifier, sharedSecret: SimulationConfiguration.sharedSecret,
            report: report)
        var inputs = [root + "/generated"]
        if fm.fileExists(atPath: root + "/customers.csv") { inputs.append(root + "/customers.csv") }
        let summary = try importer.importPaths(inputs)
        report(summary.line)
        try current.write(toFile: stamp, atomically: true, encoding: .utf8)
        return Built(path: path, summary: summary)
    }
}
