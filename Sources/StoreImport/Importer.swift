import AppStorePayloads
import Dispatch
import Foundation
import SubscriberStore
import SubscriptionModel

/// One document cut out of a file, not decoded yet.
public struct RawDocument: Sendable {
    /// `line 12`, `index 3`, or nil for a file holding one document.
    public var location: String?
    /// The document's bytes (nil when the reader already rejected it without keeping them).
    public var bytes: Data?
    public var byteCount: Int
    /// Set when the reader could not cut this document out (over-long line, truncated file…).
    public var readError: String?

    public init(location: String?, bytes: Data?, byteCount: Int? = nil, readError: String? = nil) {
        self.location = location
        self.bytes = bytes
        self.byteCount = byteCount ?? bytes?.count ?? 0
        self.readError = readError
    }
}

/// What an import did: the summary line every import ends with.
public struct ImportSummary: Sendable, Equatable {
    public var files = 0
    public var documents = 0
    public var applied = 0
    public var duplicates = 0
    public var rejected = 0
    public var subscriptionsTouched = 0
    public var seconds = 0.0
    public var signaturesVerified = true

    public init() {}

    public var line: String {
        var s = "\(documents) document\(documents == 1 ? "" : "s") read from \(files) file\(files == 1 ? "" : "s"): "
        s += "\(applied) applied, \(duplicates) duplicate\(duplicates == 1 ? "" : "s"), \(rejected) rejected; "
        s += "\(subscriptionsTouched) subscription\(subscriptionsTouched == 1 ? "" : "s") touched; "
        s += String(format: "%.2f s", seconds)
        if !signaturesVerified { s += " (signatures NOT verified: --no-verify)" }
        return s
    }
}

/// Reads files, directories and stdin, cuts them into documents, decodes them on every core in
/// batches of `batchSize` and writes them to the store on its own thread while the next batch is
/// decoded, committing every `documentsPerTransaction` documents (and at the end).
public final class Importer: Sendable {
    /// Opens a file (`-` = stdin) as a stream of documents; a file that cannot be read yields one
    /// document carrying the read error.
    public typealias Open = @Sendable (_ path: String) -> AnyIterator<RawDocument>
    public typealias Decode = @Sendable (_ document: Data, _ sha256Hex: String) -> Result<DocumentFacts, ImportRejection>

    let database: AppDatabase
    let open: Open
    let decode: Decode
    let batchSize: Int
    let documentsPerTransaction: Int
    let cacheMegabytes: Int
    let workers: Int
    let signaturesVerified: Bool
    let report: @Sendable (String) -> Void
    let progress: (@Sendable (Int, Double) -> Void)?
    /// Whether a path is read as a stream (see ``importPaths(_:)``).
    let isStream: @Sendable (String) -> Bool

    /// - Parameters:
    ///   - report: receives a line per rejected document (`file:line 3: reason`), the first few of
    ///     each reason only; then one line per reason with how many more it rejected.
    ///   - progress: receives (documents so far, seconds) after each batch.
    public init(database: AppDatabase, open: @escaping Open, decode: @escaping Decode, signaturesVerified: Bool,
                batchSize: Int = Importer.defaultBatchSize, documentsPerTransaction: Int = Importer.defaultDocumentsPerTransaction,
                cacheMegabytes: Int = Importer.defaultCacheMegabytes, workers: Int = max(1, ProcessInfo.processInfo.activeProcessorCount),
                isStream: @escaping @Sendable (String) -> Bool = Importer.standardInputIsAStream,
                report: @escaping @Sendable (String) -> Void, progress: (@Sendable (Int, Double) -> Void)? = nil) {
        self.database = database
        self.open = open
        self.decode = decode
        self.batchSize = batchSize
        self.documentsPerTransaction = documentsPerTransaction
        self.cacheMegabytes = cacheMegabytes
        self.workers = workers
        self.signaturesVerified = signaturesVerified
        self.report = report
        self.progress = progress
        self.isStream = isStream
    }

    /// `-` when standard input is a pipe, a socket or a terminal rather than a file.
    public static let standardInputIsAStream: @Sendable (String) -> Bool = { path in
        path == "-" && isStream(fileDescriptor: 0)
    }

    /// Whether reading this descriptor may wait for more (a pipe, a socket, a terminal) rather
    /// than reach the end of a regular file.
    public static func isStream(fileDescriptor: Int32) -> Bool {
        var info = stat()
        return fstat(fileDescriptor, &info) != 0 || (info.st_mode & S_IFMT) != S_IFREG
    }

    /// A stream's documents are stored and derived when it pauses this long…
    static let streamPause = 0.5
    /// …or when the oldest document not yet stored has waited this long.
    static let streamLatency = 2.0

    /// Documents decoded per batch unless told otherwise (`--batch-size`).
    public static let defaultBatchSize = 4000

    /// Documents written per transaction unless told otherwise.
    public static let defaultDocumentsPerTransaction = 16000

    /// The writing connection's page cache during an import, unless told otherwise (`--cache-mb`).
    /// At 100,000 subscribers the everyday 64 MB imports clearly slower than this, and 4 GB no
    /// faster (more time goes into SQLite's page cache itself); a larger store may be helped by
    /// more, at its own cost.
    public static let defaultCacheMegabytes = 512

    /// Imports every path (`-` = stdin; directories recursively, in name order).
    public func importPaths(_ paths: [String]) throws -> ImportSummary {
        let started = DispatchTime.now()
        var summary = ImportSummary()
        summary.signaturesVerified = signaturesVerified
        // Held to the end: readers tell this import from an interrupted one by it.
        let lock = database.path.flatMap { ImportLock(storePath: $0) }
        defer { lock?.release() }
        try database.prepareForBulkImport(cacheMegabytes: cacheMegabytes)
        let checkpoints = try database.startBackgroundCheckpoints()
        defer {
            checkpoints?.stop()
            try? database.finishBulkImport()
        }
        var writes = WriteLane(database: database, documentsPerTransaction: documentsPerTransaction)
        // On every way out (an unreadable path throws here), the writing thread lets go of the
        // store's writing connection; what it wrote is committed (every chunk is whole).
        defer { writes.close() }
        var pending: [(source: String, raw: RawDocument)] = []
        var touched = Set<String>()
        var trace = (decode: 0.0, waitWrite: 0.0, rebuild: 0.0)
        var rejections = RejectionGroups()

        func flush() throws {
            guard !pending.isEmpty else { return }
            let batch = pending
            pending = []
            let t0 = DispatchTime.now()
            let incoming = decodeAll(batch)
            trace.decode += seconds(since: t0)
            for doc in incoming {
                if case .rejected(let reason) = doc.content, let line = rejections.note(source: doc.source, reason: reason) { report(line) }
            }
            let t1 = DispatchTime.now()
            merge(try writes.submit(incoming))
            trace.waitWrite += seconds(since: t1)
            progress?(summary.documents, seconds(since: started))
        }
        func merge(_ r: BatchResult) {
            summary.applied += r.applied
            summary.duplicates += r.duplicates
            summary.rejected += r.rejected
            touched.formUnion(r.touchedSubscriptions)
        }

        let ownFiles = OwnFiles(storePath: database.path)
        for file in try Self.expand(paths) {
            if let reason = ownFiles.skipReason(file) {
                report("\(file): skipped: \(reason)")
                continue
            }
            summary.files += 1
            let name = file == "-" ? "stdin" : file
            let documents = open(file)
            if isStream(file) {
                // A stream (a receiver piping notifications in) may pause for minutes: whatever
                // has arrived when it pauses, or has waited `streamLatency`, is committed and its
                // subscriptions derived, so the dashboard shows it. A full chunk goes the usual way.
                let stream = StreamBuffer(capacity: 4 * batchSize)
                stream.startReading(documents)
                while let (chunk, full) = stream.take(max: batchSize, pause: Self.streamPause, latency: Self.streamLatency) {
                    summary.documents += chunk.count
                    pending += chunk.map { (($0.location.map { "\(name):\($0)" } ?? name), $0) }
                    try flush()
                    if !full {
                        merge(try writes.finish())
                        try database.rebuildPending()
                        writes = WriteLane(database: database, documentsPerTransaction: documentsPerTransaction)
                    }
                }
                continue
            }
            while let raw = documents.next() {
                summary.documents += 1
                pending.append((raw.location.map { "\(name):\($0)" } ?? name, raw))
                if pending.count >= batchSize { try flush() }
            }
        }
        try flush()
        for line in rejections.remainder { report(line) }
        merge(try writes.finish())
        // Each touched subscription is derived once, after all its facts are in.
        let t2 = DispatchTime.now()
        try database.rebuildPending()
        trace.rebuild = seconds(since: t2)
        if ProcessInfo.processInfo.environment["SUBDASH_IMPORT_TRACE"] != nil {
            FileHandle.standardError.write(Data(String(format: "trace: decode %.2f s, waiting for writes %.2f s, writing %.2f s, rebuild %.2f s\n",
                trace.decode, trace.waitWrite, writes.busy, trace.rebuild).utf8))
        }
        summary.subscriptionsTouched = touched.count
        summary.seconds = seconds(since: started)
        return summary
    }

    /// Decodes a batch on `workers` threads; the order of documents is kept.
    func decodeAll(_ batch: [(source: String, raw: RawDocument)]) -> [IncomingDocument] {
        let slots = ResultSlots<IncomingDocument>(count: batch.count)
        let workers = min(self.workers, max(1, batch.count / 64))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var i = worker
            while i < batch.count {
                slots.set(i, decodeOne(batch[i].source, batch[i].raw))
                i += workers
            }
        }
        return slots.values()
    }

    func decodeOne(_ source: String, _ raw: RawDocument) -> IncomingDocument {
        let sha = raw.bytes.map(Self.sha256Hex) ?? Self.sha256Hex(Data((source + (raw.readError ?? "")).utf8))
        // Documents over the reader's limit are archived without their bytes.
        let keep = raw.bytes.flatMap { $0.count <= DocumentReader.defaultSizeLimit ? $0 : nil }
        if let error = raw.readError {
            return IncomingDocument(sha256: sha, source: source, byteCount: raw.byteCount, body: keep, content: .rejected(reason: error))
        }
        switch decode(raw.bytes ?? Data(), sha) {
        case .success(let facts):
            return IncomingDocument(sha256: sha, source: source, byteCount: raw.byteCount, body: keep, content: .facts(facts))
        case .failure(let rejection):
            return IncomingDocument(sha256: sha, source: source, byteCount: raw.byteCount, body: keep,
                                    content: .rejected(reason: rejection.reason))
        }
    }

    /// Lower-case hex SHA-256: the archive key (the same digest v1 notification ids use).
    public static func sha256Hex(_ data: Data) -> String { PayloadDecoder.sha256Hex(data) }

    /// Files to read: `-` as is, directories walked recursively in name order (hidden files and
    /// `.pem` certificates skipped), plain files as given. A missing path is an error.
    public static func expand(_ paths: [String]) throws -> [String] {
        var files: [String] = []
        let fm = FileManager.default
        for path in paths {
            if path == "-" { files.append(path); continue }
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ImportRejection("\(path): no such file or directory")
            }
            if !isDirectory.boolValue { files.append(path); continue }
            // A symbolic link to a directory is walked as the directory (FileManager's enumerator
            // would list nothing), with file names still given under the path as typed.
            let root = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            guard let walker = fm.enumerator(atPath: root) else { continue }
            var found: [String] = []
            while let item = walker.nextObject() as? String {
                let name = (item as NSString).lastPathComponent
                if name.hasPrefix(".") { walker.skipDescendants(); continue }
                let full = (path as NSString).appendingPathComponent(item)
                var dir: ObjCBool = false
                guard fm.fileExists(atPath: full, isDirectory: &dir), !dir.boolValue else { continue }
                if Self.skippedNames.contains(name) || name.hasSuffix(".pem") || name.hasSuffix(".md") { continue }
                found.append(full)
            }
            files += found.sorted()
        }
        return files
    }

    /// Files in a data directory that are not App Store documents.
    static let skippedNames: Set<String> = ["manifest.json", "README", "README.txt"]

    func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}

/// Why a document was rejected (one line).
public struct ImportRejection: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Fixed slots written by several threads, each slot by one.
final class ResultSlots<T: Sendable>: @unchecked Sendable {
    private var storage: [T?]
    private let lock = NSLock()

    init(count: Int) { storage = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ value: T) {
        lock.lock(); storage[i] = value; lock.unlock()
    }

    func values() -> [T] {
        lock.lock(); defer { lock.unlock() }
        return storage.map { $0! }
    }
}

/// The writing thread: it holds the store's writing connection for the whole import and writes
/// each decoded chunk while the next one is decoded (`AppDatabase.applyStream`).
final class WriteLane: @unchecked Sendable {
    private let handoff = Handoff<[IncomingDocument]>()
    private let group = DispatchGroup()
    private let lock = NSLock()
    private var outcome: Result<Void, any Error> = .success(())
    private var results = BatchResult()
    /// Seconds spent writing (read after `finish`).
    private(set) var busy = 0.0

    init(database: AppDatabase, documentsPerTransaction: Int) {
        group.enter()
        DispatchQueue(label: "subdash.import.write").async { [self] in
            var started = DispatchTime.now()
            let result = Result {
                try database.applyStream(documentsPerTransaction: documentsPerTransaction, next: {
                    let chunk = handoff.take()
                    started = DispatchTime.now()
                    return chunk
                }, onChunk: { r in
                    lock.lock()
                    results.add(r)
                    busy += Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
                    lock.unlock()
                })
            }
            lock.lock(); outcome = result; lock.unlock()
            handoff.cancel()
            group.leave()
        }
    }

    /// Hands a chunk over, waiting while the previous one is still unclaimed. Returns the results
    /// of the chunks written since the last call; throws the writer's error if it stopped.
    func submit(_ documents: [IncomingDocument]) throws -> BatchResult {
        if !handoff.put(documents) {
            group.wait()
            try outcome.get()
        }
        return takeResults()
    }

    /// Waits until every chunk is written and committed; returns the results not taken yet.
    func finish() throws -> BatchResult {
        close()
        try outcome.get()
        return takeResults()
    }

    /// No more chunks: waits for the writing thread to commit and stop. Idempotent.
    func close() {
        handoff.close()
        group.wait()
    }

    private func takeResults() -> BatchResult {
        lock.lock(); defer { lock.unlock() }
        let r = results
        results = BatchResult()
        return r
    }
}

/// Documents read from a stream on a thread of their own, taken in chunks: a chunk is handed over
/// when it is full, when the stream has paused, when its oldest document has waited long enough, or
/// at the end. Reading waits while `capacity` documents are waiting.
final class StreamBuffer: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [RawDocument] = []
    private var ended = false
    private var lastArrival = Date.distantPast
    private var firstWaiting = Date.distantPast
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func startReading(_ documents: AnyIterator<RawDocument>) {
        let source = UncheckedIterator(documents)
        Thread.detachNewThread { [self] in
            while let raw = source.iterator.next() { append(raw) }
            condition.lock(); ended = true; condition.broadcast(); condition.unlock()
        }
    }

    private func append(_ raw: RawDocument) {
        condition.lock(); defer { condition.unlock() }
        while items.count >= capacity { condition.wait() }
        if items.isEmpty { firstWaiting = Date() }
        items.append(raw)
        lastArrival = Date()
        condition.broadcast()
    }

    /// The next chunk and whether it was full; nil at the end of the stream.
    func take(max: Int, pause: TimeInterval, latency: TimeInterval) -> ([RawDocument], full: Bool)? {
        condition.lock(); defer { condition.unlock() }
        while true {
            if items.count >= max { return (drain(max), true) }
            if ended { return items.isEmpty ? nil : (drain(max), false) }
            if items.isEmpty {
                condition.wait()
                continue
            }
            let due = min(lastArrival.addingTimeInterval(pause), firstWaiting.addingTimeInterval(latency))
            if Date() >= due { return (drain(max), false) }
            _ = condition.wait(until: due)
        }
    }

    private func drain(_ max: Int) -> [RawDocument] {
        let chunk = Array(items.prefix(max))
        items.removeFirst(chunk.count)
        if !items.isEmpty { firstWaiting = Date() }
        condition.broadcast()
        return chunk
    }
}

/// An iterator handed to the reading thread, which alone uses it from then on.
private final class UncheckedIterator: @unchecked Sendable {
    var iterator: AnyIterator<RawDocument>
    init(_ iterator: AnyIterator<RawDocument>) { self.iterator = iterator }
}

/// A one-slot channel between two threads.
final class Handoff<T>: @unchecked Sendable {
    private let condition = NSCondition()
    private var slot: T?
    private var closed = false
    private var cancelled = false

    /// Waits for the slot to be free; false when the taker has stopped.
    func put(_ value: T) -> Bool {
        condition.lock(); defer { condition.unlock() }
        while slot != nil && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        slot = value
        condition.broadcast()
        return true
    }

    /// The next value, waiting for one; nil once closed and empty.
    func take() -> T? {
        condition.lock(); defer { condition.unlock() }
        while slot == nil && !closed { condition.wait() }
        let value = slot
        slot = nil
        condition.broadcast()
        return value
    }

    /// No more values after the one in the slot.
    func close() {
        condition.lock(); closed = true; condition.broadcast(); condition.unlock()
    }

    /// The taker stopped: puts fail from now on.
    func cancel() {
        condition.lock(); cancelled = true; condition.broadcast(); condition.unlock()
    }
}
