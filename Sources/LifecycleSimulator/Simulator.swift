import Dispatch
import Foundation
import SubscriptionModel
import Synchronization

/// Generates a configuration's subscribers as App Store payload files:
/// `v1/notifications-NNNN.ndjson[.gz]`, `v2/…`, `test-root.pem` and `manifest.json`.
///
/// Subscribers are generated in fixed-size chunks on every core; chunks are written in order,
/// so memory stays flat in N and the bytes depend only on the configuration.
public struct Simulator: Sendable {
    public let configuration: SimulationConfiguration
    public let model: LifecycleModel
    public let chain: TestCertificateChain
    let v2Encoder: V2NotificationEncoder

    public init(configuration: SimulationConfiguration) throws {
        self.configuration = configuration
        model = configuration.model
        // Valid from a year before the range to five years after it.
        chain = try TestCertificateChain(
            seed: configuration.seed, validFrom: model.start.adding(days: -365),
            validUntil: model.horizon.adding(days: 5 * 365))
        v2Encoder = V2NotificationEncoder(jws: try CompactJWS(chain: chain), priceIncreaseDate: model.priceIncreaseDate)
    }

    /// One subscriber's documents in delivery order, per format, with the counts of the chunk.
    struct Delivery: Sendable {
        var v1: [UInt8] = []
        var v2: [UInt8] = []
        var manifest: SimulationManifest
    }

    /// Renders subscribers `range` (documents in delivery order) into NDJSON bytes.
    func render(_ range: Range<Int>) -> Delivery {
        var delivery = Delivery(manifest: emptyManifest())
        for index in range {
            let life = model.subscriber(index)
            render(life, rng: SplitMix64(seed: configuration.seed, index: index, stream: 2), into: &delivery)
            // Family members after their purchaser, each with delivery randomness of its own, so
            // the purchaser's documents are the same with or without them.
            for member in model.familyMembers(of: life) {
                render(member, rng: SplitMix64(seed: configuration.seed, index: member.index, stream: 2), into: &delivery)
                delivery.manifest.familyMembers += 1
            }
        }
        return delivery
    }

    /// Appends one subscription's documents (in delivery order) to `delivery`.
    private func render(_ life: SubscriberLifecycle, rng: SplitMix64, into delivery: inout Delivery) {
        var rng = rng
        var v1Docs: [[UInt8]] = []
        var v2Docs: [[UInt8]] = []
        for n in life.notifications {
            if n.instant < model.v2From {
                for (type, body) in zip(
                    V1NotificationEncoder.notificationTypes(for: n.kind).filter {
                        life.environment != .sandbox || V1NotificationEncoder.sandboxTypes.contains($0)
                    }, V1NotificationEncoder.bodies(for: n, of: life))
                {
                    v1Docs.append(body)
                    delivery.manifest.notificationTypes["v1 " + type, default: 0] += 1
                }
            } else {
                v2Docs.append(v2Encoder.body(for: n, of: life))
                let (type, subtype) = V2NotificationEncoder.notificationType(for: n.kind)
                delivery.manifest.notificationTypes["v2 " + type + (subtype.map { "/" + $0 } ?? ""), default: 0] += 1
            }
        }
        // Apple retries only in production; the sandbox sends once.
        let retries = life.environment == .production
        deliver(v1Docs, into: &delivery.v1, rng: &rng, retries: retries, manifest: &delivery.manifest, count: \.v1)
        deliver(v2Docs, into: &delivery.v2, rng: &rng, retries: retries, manifest: &delivery.manifest, count: \.v2)
        delivery.manifest.transactions += life.transactions.count
        for event in life.scenarios { delivery.manifest.scenarios[event.rawValue, default: 0] += 1 }
    }

    /// Delivery messiness: now and then a document arrives after the next one, or twice.
    private func deliver(
        _ documents: [[UInt8]], into out: inout [UInt8], rng: inout SplitMix64, retries: Bool,
        manifest: inout SimulationManifest, count: WritableKeyPath<SimulationManifest.Documents, Int>
    ) {
        var order = Array(documents.indices)
        var i = 0
        while i + 1 < order.count {
            if rng.chance(0.02) {
                order.swapAt(i, i + 1)
                manifest.outOfOrder += 1
                i += 2
            } else {
                i += 1
            }
        }
        var redeliveries: [(after: Int, document: Int)] = []
        for (position, document) in order.enumerated() {
            out.append(contentsOf: documents[document])
            out.append(0x0A)
            manifest.documents[keyPath: count] += 1
            if retries, rng.chance(0.015) { redeliveries.append((position + rng.int(in: 0..<3), document)) }
            while let first = redeliveries.firstIndex(where: { $0.after <= position }) {
                out.append(contentsOf: documents[redeliveries.remove(at: first).document])
                out.append(0x0A)
                manifest.documents[keyPath: count] += 1
                manifest.duplicates += 1
            }
        }
        for pending in redeliveries {
            out.append(contentsOf: documents[pending.document])
            out.append(0x0A)
            manifest.documents[keyPath: count] += 1
            manifest.duplicates += 1
        }
    }

    private func emptyManifest() -> SimulationManifest {
        SimulationManifest(
            seed: configuration.seed, subscribers: configuration.subscribers, start: configuration.start.description,
            months: configuration.months, format: configuration.format, gzip: configuration.gzip,
            horizon: model.horizon.iso8601, switchMonth: configuration.switchMonth?.description,
            commitmentShare: configuration.commitmentShare > 0 ? configuration.commitmentShare : nil,
            lateRefundRate: configuration.lateRefundRate > 0 ? configuration.lateRefundRate : nil)
    }

    /// Writes everything into `directory` (created if needed; must not already hold output).
    /// `progress` is called with the number of subscribers done.
    @discardableResult
    public func generate(
        into directory: URL, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
        progress: ((Int) -> Void)? = nil
    ) throws -> SimulationManifest {
        let fm = FileManager.default
        try fm.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in ["manifest.json", "v1", "v2", "test-root.pem"]
        where fm.fileExists(atPath: directory.appendingPathComponent(name).path) {
            throw SimulationError("\(directory.path) already holds generated output (\(name)); choose an empty directory")
        }
        try Data(chain.rootPEM().utf8 + [0x0A]).write(to: directory.appendingPathComponent("test-root.pem"))

        let gzip = configuration.gzip
        let v1Writer = NotificationFileWriter(
            directory: directory.appendingPathComponent("v1"), gzip: gzip,
            maxFileBytes: configuration.maxFileBytes)
        let v2Writer = NotificationFileWriter(
            directory: directory.appendingPathComponent("v2"), gzip: gzip,
            maxFileBytes: configuration.maxFileBytes)
        let perChunk = max(1, configuration.subscribersPerChunk)
        let chunkCount = (configuration.subscribers + perChunk - 1) / perChunk
        let batch = max(1, threads) * 4
        // Batch i+1 renders on every core while batch i is written on the writer queue.
        let writing = BatchWriter(v1: v1Writer, v2: v2Writer, manifest: emptyManifest())
        var firstChunk = 0
        while firstChunk < chunkCount {
            let chunks = firstChunk..<min(chunkCount, firstChunk + batch)
            // One slot per chunk; each concurrent iteration fills its own.
            let slots = Mutex<[RenderedChunk?]>(Array(repeating: nil, count: chunks.count))
            DispatchQueue.concurrentPerform(iterations: chunks.count) { offset in
                let chunk = chunks.lowerBound + offset
                let range = chunk * perChunk..<min(configuration.subscribers, (chunk + 1) * perChunk)
                let delivery = render(range)
                let rendered = RenderedChunk(
                    delivery: delivery,
                    v1Segment: gzip && !delivery.v1.isEmpty ? GzipSegment(compressing: delivery.v1) : nil,
                    v2Segment: gzip && !delivery.v2.isEmpty ? GzipSegment(compressing: delivery.v2) : nil)
                slots.withLock { $0[offset] = rendered }
            }
            try writing.waitAndRethrow()
            progress?(min(configuration.subscribers, chunks.lowerBound * perChunk))
            writing.write(slots.withLock { $0.compactMap { $0 } })
            firstChunk = chunks.upperBound
        }
        try writing.waitAndRethrow()
        progress?(configuration.subscribers)
        var manifest = writing.manifest
        try v1Writer.finish()
        try v2Writer.finish()
        manifest.files = v1Writer.fileNames.map { "v1/" + $0 } + v2Writer.fileNames.map { "v2/" + $0 }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try (encoder.encode(manifest) + [0x0A]).write(to: directory.appendingPathComponent("manifest.json"))
        return manifest
    }
}

/// A message for the user of `generate`.
public struct SimulationError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

struct RenderedChunk: Sendable {
    var delivery: Simulator.Delivery
    var v1Segment: GzipSegment?
    var v2Segment: GzipSegment?
}

/// Writes rendered batches in order on its own queue, one batch at a time.
///
/// `@unchecked Sendable`: `failure`, `manifest` and the writers are touched only on the serial
/// `queue`, and `manifest` is read only after `waitAndRethrow()` has waited for it.
private final class BatchWriter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "subdash.generate.writer")
    private let group = DispatchGroup()
    private let v1: NotificationFileWriter
    private let v2: NotificationFileWriter
    private var failure: Error?
    /// Read only after `waitAndRethrow()`.
    private(set) var manifest: SimulationManifest

    init(v1: NotificationFileWriter, v2: NotificationFileWriter, manifest: SimulationManifest) {
        self.v1 = v1
        self.v2 = v2
        self.manifest = manifest
    }

    func write(_ batch: [RenderedChunk]) {
        queue.async(group: group) { [self] in
            guard failure == nil else { return }
            do {
                for rendered in batch {
                    try v1.append(raw: rendered.delivery.v1, segment: rendered.v1Segment)
                    try v2.append(raw: rendered.delivery.v2, segment: rendered.v2Segment)
                    manifest.add(rendered.delivery.manifest)
                }
            } catch {
                failure = error
            }
        }
    }

    func waitAndRethrow() throws {
        group.wait()
        if let failure { throw failure }
    }
}

extension SimulationManifest {
    mutating func add(_ other: SimulationManifest) {
        documents.v1 += other.documents.v1
        documents.v2 += other.documents.v2
        duplicates += other.duplicates
        outOfOrder += other.outOfOrder
        transactions += other.transactions
        familyMembers += other.familyMembers
        notificationTypes.merge(other.notificationTypes, uniquingKeysWith: +)
        scenarios.merge(other.scenarios, uniquingKeysWith: +)
    }
}
