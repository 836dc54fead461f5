import Foundation
import SubscriberStore

/// Commits the documents of concurrent requests together: one thread holds the store's writing
/// connection, takes every document waiting, writes them in ONE durable transaction
/// (`AppDatabase.applyEach`) and answers each request with its own outcome. Under load a commit
/// carries many requests, so the cost of a commit (its statements, its pages, its flush to disk)
/// is shared; alone, a request waits for one commit.
///
/// Two things keep the commits few and the answers quick under load:
/// - When documents are waiting but other requests are still being verified (`commit(preparing:)`
///   counts them), the thread waits for those too, up to `gatherWait`, so one commit takes them
///   all rather than one commit each. A lone request is never held back: nothing else is on its way.
/// - The touched subscriptions are derived (`rebuildPending`) between commits, not after each one:
///   at most once per `derivationInterval` while notifications keep coming, at once when one comes
///   after a quiet spell. Derivation commits without flushing to disk: its input, the facts and the
///   list of pending subscriptions, is already durable, and what a crash would lose is derived
///   again at the next start.
///
/// `@unchecked Sendable`: `queue`, `preparing` and `stopped` are read and written only with
/// `condition` locked (the commit thread waits on it for work, which `BlockingChannel` cannot
/// express with the derivation pending); `commits` only on the commit thread; every other stored
/// property is immutable.
public final class GroupCommitter: @unchecked Sendable {
    /// What became of one document: its result once committed, or the error that kept it out.
    public typealias Outcome = Result<BatchResult, any Error>

    /// One request's document and what became of it.
    public struct Committed: Sendable {
        public var document: IncomingDocument
        public var outcome: Outcome
        /// The number of the commit that carried it (1, 2, … since the start), or 0 when none did.
        public var commit: Int
    }

    private struct Waiting {
        var document: IncomingDocument
        var answer: @Sendable (Outcome, Int) -> Void
    }

    private let database: AppDatabase
    private let condition = NSCondition()
    private var queue: [Waiting] = []
    /// Requests between `commit(preparing:)` and their document's arrival in `queue`.
    private var preparing = 0
    private var stopped = false
    private var commits = 0
    private let done = DispatchGroup()
    private let maxGroup: Int
    private let gatherWait: Double
    private let derivationInterval: Double
    private let onDerivationError: @Sendable (any Error) -> Void

    /// - Parameters:
    ///   - maxGroup: the most documents in one transaction.
    ///   - gatherWait: the longest the thread waits, seconds, for documents still being verified
    ///     once others are waiting.
    ///   - derivationInterval: seconds from the end of one derivation to the start of the next
    ///     while notifications keep coming (the dashboard sees a notification within this plus a
    ///     derivation).
    ///   - onDerivationError: told when deriving after a commit failed (the facts are committed and
    ///     their subscriptions stay pending: the next derivation, or the next start, derives them).
    public init(
        database: AppDatabase, maxGroup: Int = 512, gatherWait: Double = 0.002, derivationInterval: Double = 0.25,
        onDerivationError: @escaping @Sendable (any Error) -> Void
    ) {
        self.database = database
        self.maxGroup = maxGroup
        self.gatherWait = gatherWait
        self.derivationInterval = derivationInterval
        self.onDerivationError = onDerivationError
        done.enter()
        let thread = Thread { [self] in run() }
        thread.name = "subdash.listen.commit"
        thread.start()
    }

    /// Builds a document with `prepare` (decoding and verifying it: the caller's thread does that
    /// work), writes it, and returns once it is committed (or failed to be). While `prepare` runs,
    /// the committing thread knows one more document is on its way.
    public func commit(preparing prepare: () -> IncomingDocument) async -> Committed {
        expectOne()
        let document = prepare()
        let (outcome, commit) = await withCheckedContinuation { continuation in
            enqueue(document, wasPreparing: true) { continuation.resume(returning: ($0, $1)) }
        }
        return Committed(document: document, outcome: outcome, commit: commit)
    }

    private func expectOne() {
        condition.lock()
        preparing += 1
        condition.unlock()
    }

    private func enqueue(_ document: IncomingDocument, wasPreparing: Bool, answer: @escaping @Sendable (Outcome, Int) -> Void) {
        condition.lock()
        if wasPreparing { preparing -= 1 }
        if stopped {
            condition.broadcast()
            condition.unlock()
            answer(.failure(StoreError("the listener is shutting down")), 0)
            return
        }
        queue.append(Waiting(document: document, answer: answer))
        condition.broadcast()
        condition.unlock()
    }

    /// Commits what is waiting, derives it, and stops the thread. Idempotent.
    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
        done.wait()
    }

    private func run() {
        defer { done.leave() }
        var needsDerivation = true  // what an earlier run left pending
        var lastDerivation = Date.distantPast
        while true {
            condition.lock()
            // Sleep until a document arrives, or until derivation is due.
            while queue.isEmpty && !stopped {
                if needsDerivation {
                    let due = lastDerivation.addingTimeInterval(derivationInterval)
                    if due <= Date() || !condition.wait(until: due) && queue.isEmpty { break }
                } else {
                    condition.wait()
                }
            }
            // Documents are waiting, and others are being verified: wait a little for them too.
            if !queue.isEmpty && preparing > 0 && !stopped {
                let until = Date(timeIntervalSinceNow: gatherWait)
                while preparing > 0 && queue.count < maxGroup && !stopped {
                    if !condition.wait(until: until) { break }
                }
            }
            let group = Array(queue.prefix(maxGroup))
            queue.removeFirst(group.count)
            let finished = stopped && queue.isEmpty && group.isEmpty
            condition.unlock()

            if !group.isEmpty {
                commits += 1
                do {
                    let results = try database.applyEach(group.map { [$0.document] })
                    for (waiting, result) in zip(group, results) { waiting.answer(.success(result), commits) }
                    needsDerivation = true
                } catch {
                    for waiting in group { waiting.answer(.failure(error), 0) }
                }
            }
            // Derive when due, when stopping, or when a notification comes after a quiet spell
            // (the last derivation is long past); otherwise commit what comes next first.
            if needsDerivation && (finished || Date().timeIntervalSince(lastDerivation) >= derivationInterval) {
                do {
                    _ = try database.withCommitsNotFlushed { try database.rebuildPending() }
                } catch {
                    onDerivationError(error)
                }
                needsDerivation = false
                lastDerivation = Date()
            }
            if finished { return }
        }
    }
}
