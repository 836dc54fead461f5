import ArgumentParser
import Foundation
import LifecycleSimulator

/// The long fuzz run: mutants of every SampleData document (signed v2 notifications, v1
/// notifications, API responses) written to files and imported by the real binary with signature
/// verification on. A crash is an exit by signal; the import must exit 0 or 1.
extension Bench {
    func runFuzz(mutants total: Int) throws {
        let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let generated = root.appendingPathComponent("SampleData/generated").path
        var seeds: [[UInt8]] = []
        for file in ["v1/notifications-0001.ndjson.gz", "v2/notifications-0001.ndjson.gz"] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["gzip", "-dc", generated + "/" + file]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            seeds += data.split(separator: 0x0A).prefix(200).map { Array($0) }
        }
        let examples = root.appendingPathComponent("SampleData/examples").path
        for case let item as String in FileManager.default.enumerator(atPath: examples) ?? FileManager.default.enumerator(
            atPath: "/")!
        where item.hasSuffix(".json") {
            seeds.append(Array(try Data(contentsOf: URL(fileURLWithPath: examples + "/" + item))))
        }

        let dir = cache + "/fuzz"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let mutator = PayloadMutator()
        var rng = SplitMix64(state: 14)
        let kinds = PayloadMutator.Kind.allCases
        var written = 0
        var file = 0
        var huge = 0
        var chunk = Data()
        func flush() throws {
            guard !chunk.isEmpty else { return }
            try chunk.write(to: URL(fileURLWithPath: String(format: "%@/mutants-%05d.ndjson", dir, file)))
            file += 1
            chunk = Data()
        }
        while written < total {
            let seed = seeds[Int(rng.next() % UInt64(seeds.count))]
            var kind = kinds[Int(rng.next() % UInt64(kinds.count))]
            if kind == .hugeString {
                // Ten of them per run: each is 10 MB.
                if huge >= 10 { kind = .flipBytes } else { huge += 1 }
            }
            let mutant = mutator.mutate(seed, kind: kind, rng: &rng)
            // One mutant per line; its own newlines (CRLF mutants, pretty-printed seeds) make more.
            chunk.append(contentsOf: mutant)
            chunk.append(0x0A)
            written += 1
            if chunk.count > 64 << 20 || written % 5000 == 0 { try flush() }
        }
        try flush()

        let db = cache + "/fuzz.sqlite"
        remove(db)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        let timeFile = cache + "/time.txt"
        p.arguments = [
            "-f", "%e %M", "-o", timeFile, Self.binDir.appendingPathComponent("subdash").path,
            "import", "--db", db, "--trust-root", generated + "/test-root.pem", dir,
        ]
        p.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        p.standardError = err
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let t = try String(contentsOfFile: timeFile, encoding: .utf8).split(whereSeparator: \.isWhitespace)
        let summary =
            String(decoding: e, as: UTF8.self).split(separator: "\n").last { $0.contains("documents read from") } ?? "no summary"
        let crashed = p.terminationReason == .uncaughtSignal || !(0...1).contains(p.terminationStatus)
        print(
            "fuzz: \(written) mutants in \(file) files; exit \(p.terminationStatus)\(crashed ? " (CRASH)" : ""); crashes \(crashed ? 1 : 0)"
        )
        print("fuzz: \(summary)")
        if t.count >= 2 { print("fuzz: \(t[t.count - 2]) s, peak RSS \(Int(t[t.count - 1]).map { $0 / 1024 } ?? 0) MB") }
        remove(db)
        if crashed { throw ExitCode(1) }
    }
}
