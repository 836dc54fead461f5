import Foundation

/// Groups repeated rejections: the first ``shownPerReason`` documents rejected for one reason are
/// reported in full, the rest counted, and one line per such reason says how many more there
/// were. A file of 2,584 copies of one fault gives four lines, not 2,584.
final class RejectionDigest: @unchecked Sendable {
    static let shownPerReason = 3

    private let report: @Sendable (String) -> Void
    private var counts: [String: Int] = [:]
    private var order: [String] = []
    private let lock = NSLock()

    init(report: @escaping @Sendable (String) -> Void) { self.report = report }

    /// One rejected document (or skipped file): reported unless its reason was already shown
    /// ``shownPerReason`` times.
    func note(_ source: String, _ reason: String) {
        lock.lock()
        let seen = counts[reason, default: 0]
        if seen == 0 { order.append(reason) }
        counts[reason] = seen + 1
        lock.unlock()
        if seen < Self.shownPerReason { report("\(source): \(reason)") }
    }

    /// `… and 2581 more with the same reason: …` for each reason over the limit, in order of first
    /// appearance.
    func finish() {
        lock.lock(); defer { lock.unlock() }
        for reason in order {
            let more = counts[reason, default: 0] - Self.shownPerReason
            if more > 0 { report("… and \(more) more with the same reason: \(reason)") }
        }
        counts = [:]
        order = []
    }
}
