import AppStorePayloads
import Dispatch
import Foundation
import SubscriberStore
import SubscriptionModel
import Synchronization
import ThreadKit

/// What an import did: the summary line every import ends with.
public struct ImportSummary: Sendable, Equatable {
    public var files = 0
    public var documents = 0
    public var applied = 0
    public var duplicates = 0
    public var rejected = 0
    /// Unsigned documents of this import archived without being applied: when the import ends,
    /// their subscription has signed data (whichever arrived first).
    public var unverified = 0
    /// Subscriptions with signed data whose unverified documents of this import were set aside.
    public var subscriptionsMissingUnverifiedFacts = 0
    /// Notifications whose notificationUUID was stored already with other content (the first kept).
    public var conflicts = 0
    /// Consumables, non-consumables and non-renewing subscriptions in the documents stored:
    /// archived, in no subscription and no figure.
    public var nonSubscriptionTransactions = 0
    /// Documents stored from each environment Apple does not document (by raw value): counted
    /// only with `--environment all`.
    public var unknownEnvironments: [String: Int] = [:]
    public var subscriptionsTouched = 0
    /// Entries that are not regular files (FIFOs, devices), each reported on its own line.
    public var skipped = 0
    public var seconds = 0.0
    public var signaturesVerified = true

    public init() {}

    public var line: String {
        var s = "\(documents) document\(documents == 1 ? "" : "s") read from \(files) file\(files == 1 ? "" : "s"): "
        s += "\(applied) applied, \(duplicates) duplicate\(duplicates == 1 ? "" : "s"), \(rejected) rejected"
        if unverified > 0 { s += ", \(unverified) unverified, not applied to a signed subscription" }
        if conflicts > 0 {
            s += ", \(conflicts) in conflict (a notificationUUID stored already with other content: the first kept)"
        }
        s += "; "
        if nonSubscriptionTransactions > 0 {
            let n = nonSubscriptionTransactions
            s +=
                "\(n) non-subscription transaction\(n == 1 ? "" : "s") (consumables, non-consumables, non-renewing) "
                + "archived, counted in no figure; "
        }
        for (environment, n) in unknownEnvironments.sorted(by: { $0.key < $1.key }) {
            let shown = environment.count > 40 ? String(environment.prefix(40)) + "…" : environment
            s += "\(n) document\(n == 1 ? "" : "s") from an unknown environment '\(shown)': counted only with --environment all; "
        }
        if subscriptionsMissingUnverifiedFacts > 0 {
            let n = subscriptionsMissingUnverifiedFacts
            s +=
                "\(n) subscription\(n == 1 ? "" : "s") with signed data lack\(n == 1 ? "s" : "") the facts of unverified "
                + "v1 documents: import them again with --shared-secret (the app's App Store shared secret) to apply them; "
        }
        s += "\(subscriptionsTouched) subscription\(subscriptionsTouched == 1 ? "" : "s") touched; "
        if skipped > 0 { s += "\(skipped) special file\(skipped == 1 ? "" : "s") skipped; " }
        s += String(format: "%.2f s", seconds)
        if !signaturesVerified { s += " (signatures NOT verified: --no-verify)" }
        return s
    }
}

/// Reads files, directories and stdin, cuts them into documents, decodes them on every core in
/// batches of `batchSize` documents or `batchBytes` bytes, whichever comes first, and writes them to the store on its own thread while the next batch is
/// decoded, committing every `documentsPerTransaction` documents (and at the end).
public final class Importer: Sendable {
    /// Opens a file (`-` = stdin) as a stream of documents; a file that cannot be read yields one
    /// document carrying the read error.
    public typealias Open = @Sendable (_ path: String) -> AnyIterator<SourceDocument>
    public typealias Decode = @Sendable (_ document: Data, _ sha256Hex: String) -> Result<DocumentFacts, ImportError>

    let database: AppDatabase
    let open: Open
    let decode: Decode
    let batchSize: Int
    let batchBytes: Int
    let documentsPerTransaction: Int
    let cacheMegabytes: Int
    let workers: Int
    let signaturesVerified: Bool
    let report: @Sendable (String) -> Void
    let progress: (@Sendable (ImportProgress) -> Void)?
    /// Whether a path is read as a stream (see ``importPaths(_:)``).
    let isStream: @Sendable (String) -> Bool

    /// - Parameters:
    ///   - report: receives a line per rejected document (`file:line 3: reason`), the first few of
    ///     each reason only; then one line per reason with how many more it rejected.
    ///   - progress: receives where the import stands after each batch, and after each chunk of
    ///     the derivation.
    public init(
        database: AppDatabase, open: @escaping Open, decode: @escaping Decode, signaturesVerified: Bool,
        batchSize: Int = Importer.defaultBatchSize, batchBytes: Int = Importer.defaultBatchBytes,
        documentsPerTransaction: Int = Importer.defaultDocumentsPerTransaction,
        cacheMegabytes: Int = Importer.defaultCacheMegabytes, workers: Int = max(1, ProcessInfo.processInfo.activeProcessorCount),
        isStream: @escaping @Sendable (String) -> Bool = Importer.standardInputIsAStream,
        report: @escaping @Sendable (String) -> Void, progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) {
        self.database = database
        self.open = open
        self.decode = decode
        self.batchSize = batchSize
        self.batchBytes = batchBytes
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

    /// A batch is decoded once it holds this many bytes of documents, however few they are: with
    /// one batch being read, one decoded and one written, the documents in memory stay near three
    /// times this (plus one document of up to the size limit), whatever the input.
    public static let defaultBatchBytes = 8 << 20

    /// Documents written per transaction unless told otherwise.
    public static let defaultDocumentsPerTransaction = 16000

    /// The writing connection's page cache during an import, unless told otherwise (`--cache-mb`).
    /// It is most of an import's memory, and an import stays under 300 MB whatever it reads
    /// (docs/performance.md, "Hostile input"); `--cache-mb` gives a large backfill more. At
    /// 128 MiB a million-subscriber import peaked at 308 MB; at 96 MiB, 274 MB, and the 100,000
    /// import took no longer (docs/performance.md, "The import's page cache at 96 MiB").
    public static let defaultCacheMegabytes = 96

    /// Imports every path (`-` = stdin; directories recursively, in name order).
    ///
    /// A path that does not exist throws before anything is written. When the store stops the
    /// import (disk full, I/O error), ``ImportError/stopped(reason:applied:rejected:)`` says what was committed before it: every
    /// transaction is whole, so the store stays consistent and the same import run again
    /// completes it.
    public func importPaths(_ paths: [String]) throws -> ImportSummary {
        let entries = try Self.walk(paths)
        let mark = try database.lastDocumentId()
        do {
            return try importEntries(entries, after: mark)
        } catch {
            let committed = (try? database.documentOutcomes(after: mark)) ?? [:]
            throw ImportError.stopped(
                reason: "\(error)", applied: committed["applied", default: 0],
                rejected: committed["rejected", default: 0])
        }
    }

    /// The size of the file at `path`, 0 when it cannot be read.
    static func regularFileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Notifications in conflict shown in full (`source: conflict: …`); the rest are counted.
    static let shownConflicts = 5

    /// - Parameter mark: the last document stored before this import.
    private func importEntries(_ entries: [InputEntry], after mark: Int64) throws -> ImportSummary {
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
        var pending: [(source: String, raw: SourceDocument)] = []
        var pendingBytes = 0
        var rejectedArchived = 0
        var touched = TouchedSubscriptions()
        var trace = (decode: 0.0, waitWrite: 0.0, rebuild: 0.0)
        var rejections = RejectionGroups()
        // For the progress line: which file of how many, and how many of the input's bytes the
        // files read to their end hold (a stream's size is not known: 0).
        let files = entries.filter { if case .file = $0 { true } else { false } }.count
        let sizes: [String: Int64] = Dictionary(
            entries.compactMap { entry -> (String, Int64)? in
                guard case .file(let path) = entry, !isStream(path) else { return nil }
                return (path, Self.regularFileSize(path))
            }, uniquingKeysWith: { a, _ in a })
        let bytes = sizes.values.reduce(0, +)
        var bytesDone: Int64 = 0
        var fileIndex = 0
        func reject(_ source: String, _ reason: String) {
            if let line = rejections.note(source: source, reason: reason) { report(line) }
        }

        func flush() throws {
            guard !pending.isEmpty else { return }
            let batch = pending
            pending = []
            pendingBytes = 0
            let t0 = DispatchTime.now()
            var incoming = decodeAll(batch)
            trace.decode += seconds(since: t0)
            for i in incoming.indices {
                guard case .rejected = incoming[i].content, let archived = incoming[i].archived else { continue }
                if rejectedArchived + archived.data.count > Self.rejectedArchiveCap {
                    incoming[i].archived = nil
                } else {
                    rejectedArchived += archived.data.count
                }
            }
            for doc in incoming { if case .rejected(let reason) = doc.content { reject(doc.source, reason) } }
            let t1 = DispatchTime.now()
            merge(try writes.submit(incoming))
            trace.waitWrite += seconds(since: t1)
            progress?(
                .reading(
                    documents: summary.documents, seconds: seconds(since: started), file: fileIndex, files: files,
                    bytesDone: bytesDone, bytes: bytes))
        }
        func merge(_ r: BatchResult) {
            summary.applied += r.applied
            summary.duplicates += r.duplicates
            summary.rejected += r.rejected
            summary.unverified += r.unverified
            summary.nonSubscriptionTransactions += r.nonSubscriptionTransactions
            summary.unknownEnvironments.merge(r.unknownEnvironments, uniquingKeysWith: +)
            for (source, reason) in r.rejections { reject(source, reason) }
            for (source, reason) in r.conflicts {
                summary.conflicts += 1
                if summary.conflicts <= Self.shownConflicts { report("\(source): conflict: \(reason)") }
            }
            touched.formUnion(r.touchedSubscriptions)
        }

        let ownFiles = OwnFiles(storePath: database.path)
        for entry in entries {
            let file: String
            switch entry {
            case .file(let path):
                if let reason = ownFiles.skipReason(path) {
                    report("\(path): skipped: \(reason)")
                    continue
                }
                file = path
            case .skipped(let path, let reason):
                reject(path, "skipped: " + reason)
                summary.skipped += 1
                continue
            case .unreadable(let path, let reason):
                summary.files += 1
                summary.documents += 1
                pending.append((path, SourceDocument(location: nil, bytes: nil, rejection: PayloadError(reason))))
                continue
            }
            summary.files += 1
            fileIndex += 1
            defer { bytesDone += sizes[file] ?? 0 }
            let name = file == "-" ? "stdin" : file
            let documents = open(file)
            if isStream(file) {
                // A stream (a receiver piping notifications in) may pause for minutes: whatever
                // has arrived when it pauses, or has waited `streamLatency`, is committed and its
                // subscriptions derived, so the dashboard shows it. A full chunk goes the usual way.
                let stream = StreamChunks(reading: documents, capacity: 4 * batchSize, byteCapacity: 4 * batchBytes)
                // On every way out the reading thread stops, rather than wait for room forever.
                defer { stream.stop() }
                while let (chunk, full) = stream.take(
                    max: batchSize, maxBytes: batchBytes, pause: Self.streamPause, latency: Self.streamLatency)
                {
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
                pendingBytes += raw.bytes?.count ?? 0
                if pending.count >= batchSize || pendingBytes >= batchBytes { try flush() }
            }
        }
        try flush()
        merge(try writes.finish())
        let tracing = ProcessInfo.processInfo.environment["SUBDASH_IMPORT_TRACE"] != nil
        if tracing { tracePhase("facts written", since: started) }
        for line in rejections.remainder { report(line) }
        if summary.conflicts > Self.shownConflicts {
            let more = summary.conflicts - Self.shownConflicts
            report("… and \(RejectionGroups.grouped(more)) more notification\(more == 1 ? "" : "s") in conflict")
        }
        // Each touched subscription is derived once, after all its facts are in.
        let t2 = DispatchTime.now()
        if let progress {
            try database.rebuildPending { done, total in
                progress(.deriving(done: done, total: total, seconds: self.seconds(since: t2)))
            }
        } else {
            try database.rebuildPending()
        }
        trace.rebuild = seconds(since: t2)
        if tracing {
            tracePhase("derived rows rebuilt", since: started)
            FileHandle.standardError.write(
                Data(
                    String(
                        format: "trace: decode %.2f s, waiting for writes %.2f s, writing %.2f s, rebuild %.2f s\n",
                        trace.decode, trace.waitWrite, writes.busy, trace.rebuild
                    ).utf8))
        }
        // Counted now that every document is in: an unsigned document stored before its
        // subscription's signed data arrived (later in the same import) is set aside as well.
        let setAside = try database.unverifiedSetAside(after: mark)
        summary.applied -= max(0, setAside.documents - summary.unverified)
        summary.unverified = setAside.documents
        summary.subscriptionsMissingUnverifiedFacts = setAside.subscriptions
        summary.subscriptionsTouched = touched.count
        summary.seconds = seconds(since: started)
        return summary
    }

    /// Decodes a batch on `workers` threads; the order of documents is kept. Worker `w` decodes
    /// documents w, w + workers, … into an array of its own, handed back once under a lock.
    func decodeAll(_ batch: [(source: String, raw: SourceDocument)]) -> [IncomingDocument] {
        let workers = min(self.workers, max(1, batch.count / 64))
        let parts = Mutex<[[IncomingDocument]]>(Array(repeating: [], count: workers))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var decoded: [IncomingDocument] = []
            decoded.reserveCapacity(batch.count / workers + 1)
            for i in stride(from: worker, to: batch.count, by: workers) {
                decoded.append(decodeOne(batch[i].source, batch[i].raw))
            }
            parts.withLock { $0[worker] = decoded }
        }
        return parts.withLock { parts in
            (0..<batch.count).map { parts[$0 % workers][$0 / workers] }
        }
    }

    /// One document that arrived on its own (a request to `subdash listen`, a page of the App Store
    /// Server API), decoded, verified and made ready for the archive exactly as a document cut out
    /// of a file. Write it with `AppDatabase.apply` or `applyEach`, then `rebuildPending()`.
    public func incoming(_ bytes: Data, source: String) -> IncomingDocument {
        decodeOne(source, SourceDocument(location: nil, bytes: bytes))
    }

    func decodeOne(_ source: String, _ raw: SourceDocument) -> IncomingDocument {
        let sha = raw.bytes.map(Self.sha256Hex) ?? Self.sha256Hex(Data((source + (raw.rejection?.reason ?? "")).utf8))
        let reason: String
        if let rejection = raw.rejection {
            reason = rejection.reason
        } else {
            switch decode(raw.bytes ?? Data(), sha) {
            case .success(let facts):
                return IncomingDocument(
                    sha256: sha, source: source, byteCount: raw.byteCount,
                    body: raw.bytes.map(SecretRedaction.redacted), content: .facts(facts), codec: database.archiveCodec)
            case .failure(let rejection):
                reason = rejection.reason
            }
        }
        let short = raw.bytes.flatMap { $0.count <= Self.rejectedPrefixBytes ? SecretRedaction.redacted($0) : nil }
        var document = IncomingDocument(
            sha256: sha, source: source, byteCount: raw.byteCount, body: short,
            content: .rejected(reason: reason), codec: database.archiveCodec)
        if short == nil, let bytes = raw.bytes {
            // Kept as is, uncompressed: a prefix, shorter than the document's byteCount.
            document.archived = ArchivedBody(
                data: SecretRedaction.redacted(Data(bytes.prefix(Self.rejectedPrefixBytes))), encoding: nil)
        }
        return document
    }

    /// Bytes of a rejected document kept in the archive: enough to see what it was (its full
    /// size and SHA-256 are kept beside), not a copy of whatever junk was fed in.
    public static let rejectedPrefixBytes = 4096
    /// Bytes of rejected documents archived per import, after which only their size, SHA-256
    /// and reason are kept.
    public static let rejectedArchiveCap = 16 << 20

    /// Lower-case hex SHA-256: the archive key (the same digest v1 notification ids use).
    public static func sha256Hex(_ data: Data) -> String { PayloadDecoder.sha256Hex(data) }

    /// Files to read: `-` as is, directories walked recursively in name order (hidden files and
    /// `.pem` certificates skipped), plain files as given. A missing path is an error.
    public static func expand(_ paths: [String]) throws -> [String] {
        try walk(paths).compactMap { if case .file(let path) = $0 { path } else { nil } }
    }

    /// One entry of what an import reads.
    public enum InputEntry: Sendable, Equatable {
        /// A regular file (or a symbolic link to one), a pipe named on the command line, or `-`.
        case file(String)
        /// Not read, and not an error: a FIFO, device or socket inside a directory, or a link
        /// to a directory. One line is reported for it.
        case skipped(String, reason: String)
        /// Could not be read (a directory without permission): an error naming it.
        case unreadable(String, reason: String)
    }

    /// ``expand(_:)`` with what was skipped or could not be read, in name order. Only regular
    /// files are read from directories, so a FIFO cannot hang an import and a link to
    /// `/dev/zero` cannot feed it without end; a pipe named on the command line (`<(zcat …)`)
    /// is read, as stdin is.
    public static func walk(_ paths: [String]) throws -> [InputEntry] {
        var entries: [InputEntry] = []
        for path in paths {
            if path == "-" {
                entries.append(.file(path))
                continue
            }
            var info = stat()
            guard stat(path, &info) == 0 else {
                if lstat(path, &info) == 0 {
                    entries.append(.skipped(path, reason: "a symbolic link to nothing"))
                    continue
                }
                throw ImportError.rejected("\(path): no such file or directory")
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG, S_IFIFO:
                entries.append(.file(path))
            case S_IFDIR:
                // A symbolic link to a directory is walked as the directory, with file names
                // still given under the path as typed.
                var found: [InputEntry] = []
                walkDirectory(path, into: &found)
                entries += found.sorted { name(of: $0) < name(of: $1) }
            default:
                entries.append(.skipped(path, reason: Self.kind(of: info.st_mode)))
            }
        }
        return entries
    }

    private static func name(of entry: InputEntry) -> String {
        switch entry {
        case .file(let p), .skipped(let p, _), .unreadable(let p, _): p
        }
    }

    private static func walkDirectory(_ directory: String, into found: inout [InputEntry]) {
        guard let handle = opendir(directory) else {
            found.append(.unreadable(directory, reason: "cannot read the directory: \(String(cString: strerror(errno)))"))
            return
        }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(handle)
        for name in names where !name.hasPrefix(".") {
            let full = (directory as NSString).appendingPathComponent(name)
            var link = stat()
            guard lstat(full, &link) == 0 else { continue }
            var info = link
            let isLink = link.st_mode & S_IFMT == S_IFLNK
            if isLink && stat(full, &info) != 0 {
                found.append(.skipped(full, reason: "a symbolic link to nothing"))
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                if isLink {
                    found.append(
                        .skipped(full, reason: "a symbolic link to a directory (name it on the command line to read it)"))
                } else {
                    walkDirectory(full, into: &found)
                }
            case S_IFREG:
                if Self.skippedNames.contains(name) || name.hasSuffix(".pem") || name.hasSuffix(".md") { continue }
                found.append(.file(full))
            default:
                found.append(.skipped(full, reason: Self.kind(of: info.st_mode) + (isLink ? " (through a symbolic link)" : "")))
            }
        }
    }

    /// "a FIFO, not a regular file", for a skipped entry.
    static func kind(of mode: mode_t) -> String {
        let kind =
            switch mode & S_IFMT {
            case S_IFIFO: "a FIFO"
            case S_IFCHR: "a character device"
            case S_IFBLK: "a block device"
            case S_IFSOCK: "a socket"
            default: "a special file"
            }
        return kind + ", not a regular file"
    }

    /// Files in a data directory that are not App Store documents.
    static let skippedNames: Set<String> = ["manifest.json", "README", "README.txt"]

    /// One line of `SUBDASH_IMPORT_TRACE`: the phase that ended, when, and SQLite's memory (now
    /// and its highest so far), to set beside the process's resident size sampled from outside.
    private func tracePhase(_ phase: String, since start: DispatchTime) {
        let memory = AppDatabase.sqliteMemory()
        let line =
            String(format: "trace: %.1f s: ", seconds(since: start))
            + "\(phase); SQLite memory \(memory.used >> 20) MB, at most \(memory.highest >> 20) MB\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}

/// The writing thread: it holds the store's writing connection for the whole import and writes
/// each decoded chunk while the next one is decoded (`AppDatabase.applyStream`). Chunks reach it
/// through a channel of one: the decoder waits while the writer is one chunk behind, so at most
/// one decoded chunk waits in memory.
final class WriteLane: Sendable {
    private struct State {
        var outcome: Result<Void, any Error> = .success(())
        var results = BatchResult()
        var busy = 0.0
    }

    private let chunks = BlockingChannel<[IncomingDocument]>(capacity: 1)
    private let state = Mutex(State())
    private let done = DispatchGroup()

    init(database: AppDatabase, documentsPerTransaction: Int) {
        done.enter()
        DispatchQueue(label: "subdash.import.write").async { [self] in
            var started = DispatchTime.now()
            let result = Result {
                try database.applyStream(
                    documentsPerTransaction: documentsPerTransaction,
                    next: {
                        let chunk = chunks.receive()
                        started = DispatchTime.now()
                        return chunk
                    },
                    onChunk: { r in
                        let spent = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
                        state.withLock {
                            $0.results.add(r)
                            $0.busy += spent
                        }
                    })
            }
            state.withLock { $0.outcome = result }
            // A writer that stopped early takes no more chunks: the decoder is told at its next send.
            chunks.cancel()
            done.leave()
        }
    }

    /// Seconds spent writing (read after `finish`).
    var busy: Double { state.withLock { $0.busy } }

    /// Hands a chunk over, waiting while the previous one is still unclaimed. Returns the results
    /// of the chunks written since the last call; throws the writer's error if it stopped.
    func submit(_ documents: [IncomingDocument]) throws -> BatchResult {
        if !chunks.send(documents) {
            done.wait()
            try state.withLock { $0.outcome }.get()
        }
        return takeResults()
    }

    /// Waits until every chunk is written and committed; returns the results not taken yet.
    func finish() throws -> BatchResult {
        close()
        try state.withLock { $0.outcome }.get()
        return takeResults()
    }

    /// No more chunks: waits for the writing thread to commit and stop. Idempotent.
    func close() {
        chunks.close()
        done.wait()
    }

    private func takeResults() -> BatchResult {
        state.withLock { state in
            defer { state.results = BatchResult() }
            return state.results
        }
    }
}

/// Documents read from a stream on a thread of their own, taken in chunks: a chunk is handed over
/// when it is full, when the stream has paused, when its oldest document has waited long enough, or
/// at the end. Reading waits while `capacity` documents, or `byteCapacity` bytes of them, are waiting.
struct StreamChunks {
    private struct Arrival: Sendable {
        var document: SourceDocument
        var at: Date
    }

    private let arrivals: BlockingChannel<Arrival>

    init(reading documents: AnyIterator<SourceDocument>, capacity: Int, byteCapacity: Int) {
        let arrivals = BlockingChannel<Arrival>(
            capacity: capacity, weightLimit: byteCapacity,
            weight: { $0.document.bytes?.count ?? 0 })
        self.arrivals = arrivals
        // The reading thread alone uses the iterator from here on.
        nonisolated(unsafe) let source = documents
        Thread.detachNewThread {
            while let raw = source.next() {
                guard arrivals.send(Arrival(document: raw, at: Date())) else { return }
            }
            arrivals.close()
        }
    }

    /// The next chunk and whether it was full; nil at the end of the stream.
    func take(max: Int, maxBytes: Int, pause: TimeInterval, latency: TimeInterval) -> ([SourceDocument], full: Bool)? {
        guard let first = arrivals.receive() else { return nil }
        var chunk = [first.document]
        var bytes = first.document.bytes?.count ?? 0
        var last = first.at
        while chunk.count < max && bytes < maxBytes {
            let due = min(last.addingTimeInterval(pause), first.at.addingTimeInterval(latency))
            // Nil: the stream paused (or its oldest document waited) past `due`, or it ended.
            guard let next = arrivals.receive(before: due) else { return (chunk, false) }
            chunk.append(next.document)
            bytes += next.document.bytes?.count ?? 0
            last = next.at
        }
        return (chunk, true)
    }

    /// The import is over: the reading thread stops at its next document.
    func stop() { arrivals.cancel() }
}
