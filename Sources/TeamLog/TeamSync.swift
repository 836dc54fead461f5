import AppStorePayloads
import Foundation
import StoreImport
import SubscriberStore
import Synchronization

/// `subdash sync`: a store as a view of the team log. Every entry after the store's position goes
/// through the import path (decoding and Apple's signatures verified here: a view trusts Apple, not
/// whoever wrote to the log), and the position advances in the transaction that applies them.
public struct TeamSync: Sendable {
    /// What a sync applied.
    public struct Summary: Sendable, Equatable {
        public var entries = 0
        public var applied = 0
        public var duplicates = 0
        public var rejected = 0
        public var unverified = 0
        public var conflicts = 0
        /// Operator actions read (flags, support actions' audit entries), and how many of them
        /// were new to the store (the others it held: written here, or applied before).
        public var actions = 0
        public var newActions = 0
        /// The log's last sequence number now applied in the store.
        public var position: Int64 = 0

        public init() {}

        public var line: String {
            var s =
                "\(entries) log entr\(entries == 1 ? "y" : "ies") read: \(applied) applied, "
                + "\(duplicates) duplicate\(duplicates == 1 ? "" : "s"), \(rejected) rejected"
            if unverified > 0 { s += ", \(unverified) unverified, not applied to a signed subscription" }
            if conflicts > 0 { s += ", \(conflicts) in conflict (the first kept)" }
            if actions > 0 {
                s += "; \(actions) operator action\(actions == 1 ? "" : "s") read: \(newActions) new"
            }
            return s + "; the store is at log entry \(position)"
        }
    }

    public let log: TeamLogConnection
    public let database: AppDatabase
    let importer: Importer
    /// Receives a line per entry the import rejects (`team log #12: reason`).
    let report: @Sendable (String) -> Void

    public init(
        log: TeamLogConnection, database: AppDatabase, verifier: any SignatureVerifier, sharedSecret: String?,
        report: @escaping @Sendable (String) -> Void
    ) {
        self.log = log
        self.database = database
        self.report = report
        importer = Importer.appStore(database: database, verifier: verifier, sharedSecret: sharedSecret, report: report)
    }

    /// Refuses a store that is a view of another log: it would mix two logs' documents.
    public func position() throws -> Int64 {
        guard let position = try database.teamLogPosition() else { return 0 }
        guard position.logId == log.logId else {
            throw TeamLogError.integrity(
                "this store is a view of another team log (log \(position.logId), not \(log.logId) at \(log.address)): "
                    + "sync it with --rebuild to make it a view of this one")
        }
        return position.lastSequence
    }

    /// Operator actions read per round.
    static let actionsPerPage = 2000

    /// Applies every entry after the store's position, page by page, and derives what they touched.
    public func catchUp() async throws -> Summary {
        var summary = Summary()
        var shown = ShownRejections()
        defer { shown.finish(report) }
        var last = try position()
        summary.position = last
        while true {
            // Actions first (small rows): when a page of them is full, documents are read only up
            // to its last, so neither kind is read past what this round applies.
            let actionPage = try await log.actions(after: last, limit: Self.actionsPerPage)
            let cap = actionPage.count == Self.actionsPerPage ? actionPage.last?.sequence : nil
            let entries = try await log.entries(after: last, through: cap)
            // A page of documents may stop short of the log's end: actions after it wait for the
            // next round.
            guard let through = entries.last?.sequence ?? actionPage.last?.sequence else { break }
            var actions: [OperatorAction] = []
            for logged in actionPage where logged.sequence <= through {
                summary.actions += 1
                if let action = logged.action {
                    actions.append(action)
                } else {
                    report("team log action #\(logged.sequence): skipped: not an operator action this subdash reads")
                }
            }
            var documents: [IncomingDocument] = []
            documents.reserveCapacity(entries.count)
            for (entry, decoded) in zip(entries, decodeAll(entries)) {
                let source = "team log #\(entry.sequence)"
                guard let document = decoded else {
                    summary.rejected += 1
                    report("\(source): rejected: its bytes do not match the log's sha256 (changed in the log by hand)")
                    continue
                }
                if case .rejected(let reason) = document.content { shown.note(source, reason, report) }
                documents.append(document)
            }
            let (result, newActions) = try database.applyTeamLogEntries(
                documents, actions: actions, through: TeamLogPosition(logId: log.logId, lastSequence: through))
            summary.newActions += newActions
            for (source, reason) in result.rejections { shown.note(source, reason, report) }
            for (source, reason) in result.conflicts { report("\(source): conflict: \(reason)") }
            summary.entries += entries.count
            summary.applied += result.applied
            summary.duplicates += result.duplicates
            summary.rejected += result.rejected
            summary.unverified += result.unverified
            summary.conflicts += result.conflictingDocuments
            summary.position = through
            last = through
        }
        // Each touched subscription derived once, after every page is in (as an import does).
        if summary.entries > 0 { try database.rebuildPending() }
        return summary
    }

    /// Each entry decoded and verified on every core, in order; nil where its bytes do not match
    /// the log's sha256. Worker `w` decodes entries w, w + workers, … into an array of its own.
    func decodeAll(_ entries: [LogEntry]) -> [IncomingDocument?] {
        let workers = min(max(1, ProcessInfo.processInfo.activeProcessorCount), max(1, entries.count / 64))
        let parts = Mutex<[[IncomingDocument?]]>(Array(repeating: [], count: workers))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var decoded: [IncomingDocument?] = []
            for i in stride(from: worker, to: entries.count, by: workers) {
                let entry = entries[i]
                guard Importer.sha256Hex(entry.document.body) == entry.document.sha256 else {
                    decoded.append(nil)
                    continue
                }
                decoded.append(importer.incoming(entry.document.body, source: "team log #\(entry.sequence)"))
            }
            parts.withLock { $0[worker] = decoded }
        }
        return parts.withLock { parts in (0..<entries.count).map { parts[$0 % workers][$0 / workers] } }
    }

    /// Catches up, then applies new entries as writers announce them (LISTEN/NOTIFY), until the
    /// task is cancelled or the log is lost. `applied` gets each round's summary that read entries.
    /// A notification missed (a reconnecting server) is made up for by a catch-up every
    /// `pollSeconds` seconds as well.
    public func follow(pollSeconds: Double = 5, applied: @escaping @Sendable (Summary) -> Void) async throws {
        try await log.listening { notifications in
            let first = try await catchUp()
            if first.entries + first.actions > 0 { applied(first) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                let wake = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
                group.addTask {
                    for try await _ in notifications { wake.continuation.yield() }
                    wake.continuation.finish()
                }
                group.addTask {
                    while !Task.isCancelled {
                        try await Task.sleep(nanoseconds: UInt64(pollSeconds * 1e9))
                        wake.continuation.yield()
                    }
                }
                for await _ in wake.stream {
                    let round = try await catchUp()
                    if round.entries + round.actions > 0 { applied(round) }
                }
                group.cancelAll()
                if Task.isCancelled { throw CancellationError() }
                throw TeamLogError.unreachable("lost the team log \(log.address) while following it")
            }
        }
    }
}

/// The first few rejections of each reason, one line each; then how many more each reason had.
struct ShownRejections {
    static let perReason = 5
    private var counts: [String: Int] = [:]
    private var order: [String] = []

    mutating func note(_ source: String, _ reason: String, _ report: (String) -> Void) {
        let n = counts[reason, default: 0] + 1
        if n == 1 { order.append(reason) }
        counts[reason] = n
        if n <= Self.perReason { report("\(source): rejected: \(reason)") }
    }

    func finish(_ report: (String) -> Void) {
        for reason in order where counts[reason, default: 0] > Self.perReason {
            let more = counts[reason, default: 0] - Self.perReason
            report("… and \(more) more log entr\(more == 1 ? "y" : "ies"): \(reason)")
        }
    }
}
