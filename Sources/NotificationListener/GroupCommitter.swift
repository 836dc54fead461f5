import Foundation
import SubscriberStore

/// Commits the documents of concurrent requests together: one thread holds the store's writing
/// connection, takes every document waiting, writes them in ONE durable transaction
/// (`AppDatabase.applyEach`), answers each request with its own outcome, then derives the touched
/// subscriptions (`rebuildPending`) while the next documents gather. Under load a commit carries
/// many requests, so the cost of flushing to disk is shared; alone, a request waits for one commit.
///
/// `@unchecked Sendable`: `queue` and `stopped` are read and written only with `condition`
/// locked (the commit thread waits on it for work, which `BlockingChannel` cannot express with
/// the derivation pending); every other stored property is immutable.
public final class GroupCommitter: @unchecked Sendable {
    /// What became of one document: its result once committed, or the error that kept it out.
    public typealias Outcome = Result<BatchResult, any Error>

    private struct Waiting {
        var document: IncomingDocument
        var answer: @Sendable (Outcome) -> Void
    }

    private let database: AppDatabase
    private let condition = NSCondition()
    private var queue: [Waiting] = []
    private var stopped = false
    private let done = DispatchGroup()
    private let maxGroup: Int
    private let onDerivationError: @Sendable (any Error) -> Void

    /// - Parameters:
    ///   - maxGroup: the most documents in one transaction.
    ///   - onDerivationError: told when deriving after a commit failed (the facts are committed and
    ///     their subscriptions stay pending: the next commit, or the next start, derives them).
    public init(database: AppDatabase, maxGroup: Int = 512, onDerivationError: @escaping @Sendable (any Error) -> Void) {
        self.database = database
        self.maxGroup = maxGroup
        self.onDerivationError = onDerivationError
        done.enter()
        let thread = Thread { [self] in run() }
        thread.name = "subdash.listen.commit"
        thread.start()
    }

    /// Writes `document` and returns once it is committed (or failed to be).
    public func commit(_ document: IncomingDocument) async -> Outcome {
        await withCheckedContinuation { continuation in
            enqueue(document) { continuation.resume(returning: $0) }
        }
    }

    private func enqueue(_ document: IncomingDocument, answer: @escaping @Sendable (Outcome) -> Void) {
        condition.lock()
        if stopped {
            condition.unlock()
            answer(.failure(StoreError("the listener is shutting down")))
            return
        }
        queue.append(Waiting(document: document, answer: answer))
        condition.signal()
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
        while true {
            condition.lock()
            while queue.isEmpty && !stopped && !needsDerivation { condition.wait() }
            let group = Array(queue.prefix(maxGroup))
            queue.removeFirst(group.count)
            let finished = stopped && queue.isEmpty && group.isEmpty
            condition.unlock()

            if !group.isEmpty {
                do {
                    let results = try database.applyEach(group.map { [$0.document] })
                    for (waiting, result) in zip(group, results) { waiting.answer(.success(result)) }
                    needsDerivation = true
                } catch {
                    for waiting in group { waiting.answer(.failure(error)) }
                }
                // More waiting: commit it first, derive once for both.
                condition.lock()
                let more = !queue.isEmpty
                condition.unlock()
                if more { continue }
            }
            if needsDerivation {
                do {
                    try database.rebuildPending()
                } catch {
                    onDerivationError(error)
                }
                needsDerivation = false
            }
            if finished { return }
        }
    }
}
