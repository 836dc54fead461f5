import Foundation
import SubscriptionModel
import TestSupport
import Testing

@testable import LifecycleSimulator

/// Helpers shared by the simulator tests.
enum Scratch {
    static func directory(_ name: String) -> URL {
        URL(fileURLWithPath: TemporaryDirectory.uniquePath("sim-\(name)"))
    }

    /// Every regular file under `root`, by relative path.
    static func files(under root: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let fm = FileManager.default
        guard let walker = fm.enumerator(at: root, includingPropertiesForKeys: nil) else { return out }
        for case let url as URL in walker where !url.hasDirectoryPath {
            let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            out[relative] = try Data(contentsOf: url)
        }
        return out
    }

    static func gunzip(_ url: URL) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-dc", url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "gzip -dc \(url.path) failed")
        return data
    }

    static func lines(_ data: Data) -> [Data] {
        data.split(separator: 0x0A).map { Data($0) }
    }
}

@Suite("generate output")
struct GenerationTests {
    static func generate(
        seed: UInt64, subscribers: Int = 150, format: PayloadVersions = .both, gzip: Bool,
        name: String
    ) throws -> (URL, SimulationManifest) {
        let dir = Scratch.directory(name)
        var configuration = SimulationConfiguration(seed: seed, subscribers: subscribers, format: format, gzip: gzip)
        configuration.subscribersPerChunk = 16
        let manifest = try Simulator(configuration: configuration).generate(into: dir)
        return (dir, manifest)
    }

    @Test func sameSeedGivesIdenticalBytes() throws {
        let (a, _) = try Self.generate(seed: 7, gzip: true, name: "a")
        let (b, _) = try Self.generate(seed: 7, gzip: true, name: "b")
        defer {
            try? FileManager.default.removeItem(at: a)
            try? FileManager.default.removeItem(at: b)
        }
        let filesA = try Scratch.files(under: a)
        let filesB = try Scratch.files(under: b)
        #expect(filesA.keys.sorted() == filesB.keys.sorted())
        #expect(filesA.keys.contains("test-root.pem") && filesA.keys.contains("manifest.json"))
        #expect(
            filesA.keys.contains("v1/notifications-0001.ndjson.gz") && filesA.keys.contains("v2/notifications-0001.ndjson.gz"))
        for (path, data) in filesA { #expect(filesB[path] == data, "\(path) differs between two runs with seed 7") }
    }

    @Test func outputDoesNotDependOnThreads() throws {
        let configuration = SimulationConfiguration(seed: 3, subscribers: 90, format: .v2)
        let one = Scratch.directory("t1")
        let two = Scratch.directory("t2")
        defer {
            try? FileManager.default.removeItem(at: one)
            try? FileManager.default.removeItem(at: two)
        }
        try Simulator(configuration: configuration).generate(into: one, threads: 1)
        try Simulator(configuration: configuration).generate(into: two, threads: 2)
        #expect(try Scratch.files(under: one) == Scratch.files(under: two))
    }

    @Test func differentSeedGivesDifferentOutput() throws {
        let (a, _) = try Self.generate(seed: 7, subscribers: 40, gzip: false, name: "c")
        let (b, _) = try Self.generate(seed: 8, subscribers: 40, gzip: false, name: "d")
        defer {
            try? FileManager.default.removeItem(at: a)
            try? FileManager.default.removeItem(at: b)
        }
        let filesA = try Scratch.files(under: a)
        let filesB = try Scratch.files(under: b)
        #expect(filesA["test-root.pem"] != filesB["test-root.pem"])
        #expect(filesA["v2/notifications-0001.ndjson"] != filesB["v2/notifications-0001.ndjson"])
        #expect(filesA["v1/notifications-0001.ndjson"] != filesB["v1/notifications-0001.ndjson"])
    }

    @Test func gzipHoldsExactlyThePlainOutput() throws {
        let (plain, _) = try Self.generate(seed: 11, gzip: false, name: "plain")
        let (zipped, _) = try Self.generate(seed: 11, gzip: true, name: "zipped")
        defer {
            try? FileManager.default.removeItem(at: plain)
            try? FileManager.default.removeItem(at: zipped)
        }
        for format in ["v1", "v2"] {
            let raw = try Data(contentsOf: plain.appendingPathComponent("\(format)/notifications-0001.ndjson"))
            let unzipped = try Scratch.gunzip(zipped.appendingPathComponent("\(format)/notifications-0001.ndjson.gz"))
            #expect(!raw.isEmpty)
            #expect(raw == unzipped, "\(format): gunzip of the .gz differs from the plain output")
        }
    }

    @Test func filesAreSplitAndManifestCountsMatch() throws {
        let dir = Scratch.directory("split")
        defer { try? FileManager.default.removeItem(at: dir) }
        var configuration = SimulationConfiguration(seed: 5, subscribers: 120, format: .both, maxFileBytes: 200_000)
        configuration.subscribersPerChunk = 8
        let manifest = try Simulator(configuration: configuration).generate(into: dir)
        let v2Files = manifest.files.filter { $0.hasPrefix("v2/") }
        #expect(v2Files.count > 1)
        var counted = SimulationManifest.Documents()
        for file in manifest.files {
            let data = try Data(contentsOf: dir.appendingPathComponent(file))
            if file.hasPrefix("v1/") { counted.v1 += Scratch.lines(data).count } else { counted.v2 += Scratch.lines(data).count }
        }
        #expect(counted == manifest.documents)
        #expect(manifest.duplicates > 0)
        #expect(manifest.outOfOrder > 0)
        let decoded = try JSONDecoder().decode(
            SimulationManifest.self,
            from: Data(contentsOf: dir.appendingPathComponent("manifest.json")))
        #expect(decoded == manifest)
        #expect(decoded.switchMonth == "2025-01")
        #expect(throws: SimulationError.self) { try Simulator(configuration: configuration).generate(into: dir) }
    }

    @Test func duplicatesAreIdenticalAndOutOfOrderIsVisible() throws {
        let (dir, manifest) = try Self.generate(seed: 21, subscribers: 300, format: .v2, gzip: false, name: "mess")
        defer { try? FileManager.default.removeItem(at: dir) }
        let lines = Scratch.lines(try Data(contentsOf: dir.appendingPathComponent("v2/notifications-0001.ndjson")))
        #expect(lines.count - Set(lines).count == manifest.duplicates)
        // Out of order: within one subscription, a notification signed earlier arrives after a later one.
        var lastSigned: [String: Int64] = [:]
        var late = 0
        for line in lines {
            let payload = try V2Decoded(line: line)
            if let previous = lastSigned[payload.originalTransactionId], previous > payload.signedDate { late += 1 }
            lastSigned[payload.originalTransactionId] = max(lastSigned[payload.originalTransactionId] ?? .min, payload.signedDate)
        }
        #expect(late > 0)
    }
}

/// Just enough of a v2 body, decoded without verification, for the delivery tests.
struct V2Decoded {
    let payload: [String: Any]
    let transaction: [String: Any]
    let renewal: [String: Any]
    var originalTransactionId: String { transaction["originalTransactionId"] as? String ?? "" }
    var signedDate: Int64 { (payload["signedDate"] as? NSNumber)?.int64Value ?? 0 }

    init(line: Data) throws {
        let body = try JSONSerialization.jsonObject(with: line) as? [String: Any] ?? [:]
        payload = try Self.decode(body["signedPayload"] as? String ?? "")
        let data = payload["data"] as? [String: Any] ?? [:]
        transaction = try Self.decode(data["signedTransactionInfo"] as? String ?? "")
        renewal = try Self.decode(data["signedRenewalInfo"] as? String ?? "")
    }

    static func segments(_ jws: String) -> [Data] {
        jws.split(separator: ".", omittingEmptySubsequences: false).map { segment in
            var s = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while s.count % 4 != 0 { s += "=" }
            return Data(base64Encoded: s) ?? Data()
        }
    }

    static func decode(_ jws: String) throws -> [String: Any] {
        let parts = segments(jws)
        guard parts.count == 3 else { return [:] }
        return try JSONSerialization.jsonObject(with: parts[1]) as? [String: Any] ?? [:]
    }
}

@Suite struct SimulatedStorefrontTests {
    /// Local price points: 9.99 USD is 9.99 EUR, 7.99 GBP (about 0.85, ending in .99) and 1,500 yen;
    /// free periods stay free.
    @Test func localPricesFollowTheUSDTier() {
        let (usa, fra, gbr, jpn) = (
            SimulatedStorefront.of(subscriber: 0), SimulatedStorefront.of(subscriber: 6),
            SimulatedStorefront.of(subscriber: 8), SimulatedStorefront.of(subscriber: 9)
        )
        #expect([usa.currency, fra.currency, gbr.currency, jpn.currency] == ["USD", "EUR", "GBP", "JPY"])
        #expect(usa.localPrice(9990) == 9990 && fra.localPrice(9990) == 9990)
        #expect(gbr.localPrice(9990) == 7990 && gbr.localPrice(59990) == 50990)
        #expect(jpn.localPrice(9990) == 1_500_000 && jpn.localPrice(2990) == 450_000)
        #expect(gbr.localPrice(0) == 0 && jpn.localPrice(0) == 0)
    }
}
