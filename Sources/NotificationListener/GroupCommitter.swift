import Foundation
import SubscriberStore
import ThreadKit

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
/// - The touched subscriptions are derived in slices that ride on the commits: each commit's
///   transaction also derives the next few pending subscriptions, about `derivationBudget` seconds
///   of work (`DerivationSlices`), so no request waits for a whole derivation. The pending list is
///   read again once the last one is done and `derivationInterval` has passed, at once when a
///   notification comes after a quiet spell. With no documents waiting, a slice is committed alone
///   and not flushed to disk: its input, the facts and the list of pending subscriptions, is
///   already durable, and what a crash would lose is derived again at the next start.
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
    private let derivationBudget: Double
    private let onDerivationError: @Sendable (any Error) -> Void
    private let onCommitted: @Sendable (Result<Void, any Error>) -> Void

    /// - Parameters:
    ///   - maxGroup: the most documents in one transaction.
    ///   - gatherWait: the longest the thread waits, seconds, for documents still being verified
    ///     once others are waiting.
    ///   - derivationInterval: seconds from the end of one derivation to the start of the next
    ///     while notifications keep coming (the dashboard sees a notification within this plus a
    ///     derivation).
    ///   - derivationBudget: about the seconds of derivation each commit carries.
    ///   - onDerivationError: told when deriving after a commit failed (the facts are committed and
    ///     their subscriptions stay pending: the next derivation, or the next start, derives them).
    ///   - onCommitted: told after each commit of documents whether it succeeded, on the committing
    ///     thread, in the order of the commits.
    public init(
        database: AppDatabase, maxGroup: Int = 512, gatherWait: Double = 0.002, derivationInterval: Double = 0.25,
        derivationBudget: Double = 0.004, onDerivationError: @escaping @Sendable (any Error) -> Void,
        onCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void = { _ in }
    ) {
        self.database = database
        self.maxGroup = maxGroup
        self.gatherWait = gatherWait
        self.derivationInterval = derivationInterval
        self.derivationBudget = derivationBudget
        self.onDerivationError = onDerivationError
        self.onCommitted = onCommitted
        done.enter()
        let thread = Thread { [self] in
            nameCurrentThread("subdash-commit")
            run()
        }
        thread.start()
    }

    /// Builds a document with `prepare` (decoding and verifying it: the caller's thread does that
    /// work), writes it, and returns once it is committed (or failed to be). While `prepare` runs,
    /// the committing thread knows one more document is on its way.
    public func commit(preparing prepare: () -> IncomingDocument) async -> Committed {
        await commitIfAny(preparing: prepare)!
    }

    /// ``commit(preparing:)`` for a document that may turn out not to be written: when `prepare`
    /// returns nil, the committing thread stops waiting for it and nil is returned at once.
    public func commitIfAny(preparing prepare: () -> IncomingDocument?) async -> Committed? {
        expectOne()
        guard let document = prepare() else {
            notComing()
            return nil
        }
        let (outcome, commit) = await withCheckedContinuation { continuation in
            enqueue(document, wasPreparing: true) { continuation.resume(returning: ($0, $1)) }
        }
        return Committed(document: document, outcome: outcome, commit: commit)
    }

    /// A document `expectOne` announced will not be written after all.
    private func notComing() {
        condition.lock()
        preparing -= 1
        condition.broadcast()
        condition.unlock()
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

    /// Seconds without documents after which the thread derives in larger slices.
    static let quietAfter = 0.1

    private func run() {
        defer { done.leave() }
        var derivation = DerivationSlices(budget: derivationBudget)
        var needsDerivation = true  // what an earlier run left pending
        var lastDrained = Date.distantPast
        var lastDocuments = Date.distantPast
        while true {
            condition.lock()
            // Sleep until a document arrives, or there is derivation to do.
            while queue.isEmpty && !stopped && derivation.isEmpty {
                if needsDerivation {
                    let due = lastDrained.addingTimeInterval(derivationInterval)
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
            // No request waiting or on its way, and none lately: a larger slice. (Right after a
            // commit nothing is waiting either, but its senders are about to send again.)
            let quiet = queue.isEmpty && preparing == 0 && Date().timeIntervalSince(lastDocuments) >= Self.quietAfter
            condition.unlock()

            if finished {
                // Everything still pending, at once: nothing is waiting for a commit any more.
                do {
                    _ = try database.withCommitsNotFlushed { try database.rebuildPending() }
                } catch {
                    onDerivationError(error)
                }
                return
            }
            // The next subscriptions to derive: those pending once the last ones are done and
            // `derivationInterval` has passed since (the dashboard's delay), in id order.
            if derivation.isEmpty && needsDerivation && Date().timeIntervalSince(lastDrained) >= derivationInterval {
                needsDerivation = false
                do {
                    let pending = try database.pendingSubscriptions(limit: DerivationSlices.loadLimit)
                    derivation.load(pending)
                    // More than one list's worth (a killed import's backlog): read on when these are done.
                    needsDerivation = pending.count == DerivationSlices.loadLimit
                } catch {
                    onDerivationError(error)
                }
            }
            let slice = derivation.next(alone: quiet && group.isEmpty)
            if !group.isEmpty {
                commits += 1
                do {
                    let applied = try commitGroup(group, deriving: slice, &derivation)
                    onCommitted(.success(()))
                    for (waiting, result) in zip(group, applied) { waiting.answer(.success(result), commits) }
                    needsDerivation = true
                    lastDocuments = Date()
                } catch {
                    onCommitted(.failure(error))
                    for waiting in group { waiting.answer(.failure(error), 0) }
                }
            } else if !slice.isEmpty {
                do {
                    let applied = try database.withCommitsNotFlushed { try database.applyEach([], deriving: slice) }
                    derivation.done(slice.count, seconds: applied.derivationSeconds)
                } catch {
                    derivation.failed(slice.count)
                    onDerivationError(error)
                }
            }
            if !slice.isEmpty && derivation.isEmpty { lastDrained = Date() }
        }
    }

    /// Commits a group's documents with a slice of derivation. Should the two fail together, the
    /// documents are committed alone: a subscription that cannot be derived must not keep the
    /// notifications of others out (it stays pending, and the error is told).
    private func commitGroup(_ group: [Waiting], deriving slice: [String], _ derivation: inout DerivationSlices) throws
        -> [BatchResult]
    {
        let documents = group.map { [$0.document] }
        guard !slice.isEmpty else { return try database.applyEach(documents) }
        do {
            let applied = try database.applyEach(documents, deriving: slice)
            derivation.done(slice.count, seconds: applied.derivationSeconds)
            return applied.results
        } catch {
            derivation.failed(slice.count)
            let results = try database.applyEach(documents)
            onDerivationError(error)
            return results
        }
    }
}

/// The subscriptions a receiver derives next, handed out in slices sized so that one takes about
/// `budget` seconds: each commit carries one, so a request waits for at most one slice beside its
/// own commit, however many subscriptions are pending (docs/performance.md, "The listener's
/// derivation").
struct DerivationSlices {
    /// The most pending subscriptions read at once (the rest are read when these are done).
    static let loadLimit = 10_000
    /// A slice's seconds when no request is waiting or being verified: longer, since nobody
    /// waits for it unless one arrives meanwhile.
    static let aloneBudget = 0.05
    /// How long after its reading a list not yet derived counts as late: from then on each slice's budget
    /// grows in proportion (twice as late, twice the budget), so a stream that touches
    /// subscriptions faster than slices of `budget` derive them slows its requests a little
    /// rather than leave the dashboard further and further behind.
    static let lateAfter = Duration.milliseconds(500)
    private var ids: [String] = []
    private var next = 0
    private var loadedAt = ContinuousClock.now
    private let budget: Double
    /// Seconds a subscription's derivation takes, as the last slices measured it.
    private var secondsEach = 0.001

    init(budget: Double) { self.budget = budget }

    var isEmpty: Bool { next >= ids.count }

    mutating func load(_ pending: [String], at now: ContinuousClock.Instant = .now) {
        ids = pending
        next = 0
        loadedAt = now
    }

    /// The next slice (empty when none is left). Handed out again unless `done` or `failed` follows.
    func next(alone: Bool, at now: ContinuousClock.Instant = .now) -> [String] {
        let late = max(1, (now - loadedAt) / Self.lateAfter)
        let seconds = max(budget * late, alone ? Self.aloneBudget : 0)
        let size = max(1, Int(seconds / secondsEach))
        return Array(ids[next..<min(ids.count, next + size)])
    }

    /// The slice was derived, in `seconds`.
    mutating func done(_ count: Int, seconds: Double) {
        next += count
        // A moving average, so one slow slice (a checkpoint, a long history) does not halve the next.
        secondsEach = 0.7 * secondsEach + 0.3 * max(seconds, 1e-6) / Double(count)
    }

    /// The slice could not be derived: its subscriptions stay pending for the next start.
    mutating func failed(_ count: Int) { next += count }
}
