import Foundation

/// A channel between threads that block: senders wait while `capacity` values are waiting (or,
/// with a `weight`, while the waiting values weigh `weightLimit`), receivers wait until a value
/// arrives. The import's reader, decoder and writer threads and the
/// dashboard's effect queue talk through it (docs/architecture.md, "Concurrency"); shared state
/// that needs no waiting is a `Mutex` from the standard library's `Synchronization` module.
///
/// Either side can end it: the sender `close()`s (receivers get what is left, then nil), the
/// receiver `cancel()`s (senders are told at once and nothing more is kept).
///
/// `@unchecked Sendable`: every stored property is read and written only with `condition` locked,
/// and the values themselves are `Sendable`.
public final class BlockingChannel<Element: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var buffer: [Element] = []
    private var head = 0
    private var closed = false
    private var cancelled = false
    /// The summed weight of the waiting values.
    private var waitingWeight = 0
    /// How many values may wait before `send` blocks.
    public let capacity: Int
    /// How much the waiting values may weigh before `send` blocks; one value heavier than this on
    /// its own still goes through an empty channel, so nothing is refused for its size.
    public let weightLimit: Int
    private let weight: @Sendable (Element) -> Int

    /// - Parameters:
    ///   - weightLimit, weight: a second bound, in whatever `weight` measures (bytes of
    ///     documents): memory then stays bounded whatever the values hold. `weight` must give the
    ///     same answer for the same value each time.
    public init(capacity: Int, weightLimit: Int = .max, weight: @escaping @Sendable (Element) -> Int = { _ in 0 }) {
        precondition(capacity > 0, "a channel holds at least one value")
        self.capacity = capacity
        self.weightLimit = weightLimit
        self.weight = weight
    }

    /// How many values are waiting.
    public var count: Int { condition.withLock { buffer.count - head } }

    /// Waits for room and adds the value; false (and the value dropped) once the receiver has
    /// cancelled or the channel was closed.
    @discardableResult
    public func send(_ value: Element) -> Bool {
        let w = weight(value)
        condition.lock()
        defer { condition.unlock() }
        while isFull(adding: w) && !cancelled && !closed { condition.wait() }
        guard !cancelled && !closed else { return false }
        buffer.append(value)
        waitingWeight += w
        condition.broadcast()
        return true
    }

    /// The oldest value, waiting for one until `deadline` (forever without one); nil when the
    /// channel is closed and empty, cancelled, or the deadline passed.
    public func receive(before deadline: Date? = nil) -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while buffer.count == head && !closed && !cancelled {
            if let deadline {
                if !condition.wait(until: deadline) && buffer.count == head { return nil }
            } else {
                condition.wait()
            }
        }
        guard !cancelled, buffer.count > head else { return nil }
        return popFirst()
    }

    /// Every waiting value at once; with `waiting`, first waits until there is at least one (or the
    /// channel is closed or cancelled).
    public func receiveAll(waiting: Bool) -> [Element] {
        condition.lock()
        defer { condition.unlock() }
        while waiting && buffer.count == head && !closed && !cancelled { condition.wait() }
        let values = Array(buffer[head...])
        buffer.removeAll(keepingCapacity: true)
        head = 0
        waitingWeight = 0
        condition.broadcast()
        return values
    }

    /// No more values: receivers get those waiting, then nil. Idempotent.
    public func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    /// The receiver has stopped: waiting values are dropped and every `send` returns false.
    public func cancel() {
        condition.withLock {
            cancelled = true
            buffer.removeAll()
            head = 0
            waitingWeight = 0
            condition.broadcast()
        }
    }

    private func isFull(adding w: Int) -> Bool {
        let waiting = buffer.count - head
        return waiting >= capacity || (waiting > 0 && waitingWeight + w > weightLimit)
    }

    private func popFirst() -> Element {
        let value = buffer[head]
        waitingWeight -= weight(value)
        head += 1
        if head == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= buffer.count {
            buffer.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return value
    }
}
