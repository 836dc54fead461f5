import Foundation
import SubscriberStore
import Synchronization

/// How much of what the listener rejects it archives. Anyone who can reach the port can post
/// junk, and every rejected body is archived (its first 4 KiB, its size, SHA-256 and reason) so an
/// operator can see what was refused; unchecked, one client posting unique junk grew the store by
/// about 27 GB an hour. So the rows of rejected requests are archived up to `bytesPerWindow` per
/// `window`; past it, a rejected request is answered 400 as before and counted, not written, until
/// the next window begins. Apple retries what it was refused, so a genuine notification rejected by
/// a mistake (an untrusted root) comes back once the mistake is put right.
public final class RejectedArchive: Sendable {
    /// Whether a rejected request's document is written to the archive.
    public enum Admission: Equatable, Sendable {
        case archived
        /// Counted only; `firstInWindow` for the first request of its window past the limit.
        case counted(firstInWindow: Bool)
    }

    /// What the current window has taken.
    public struct Window: Equatable, Sendable {
        /// Bytes archived in it (the rows' estimate, ``rowBytes(_:)``).
        public var archivedBytes = 0
        /// Rejected requests answered in it but not archived.
        public var counted = 0
        /// When it began (nil until the first rejection).
        var start: ContinuousClock.Instant?
    }

    public let bytesPerWindow: Int
    public let window: Duration
    private let current = Mutex(Window())

    public init(bytesPerWindow: Int, window: Duration = .seconds(3600)) {
        self.bytesPerWindow = bytesPerWindow
        self.window = window
    }

    /// Takes room in the current window for a rejected document, or counts it when there is none.
    public func admit(_ document: IncomingDocument, at now: ContinuousClock.Instant = .now) -> Admission {
        let bytes = Self.rowBytes(document)
        return current.withLock { current in
            if let start = current.start, now - start < window {
                // The same window.
            } else {
                current = Window(start: now)
            }
            if current.archivedBytes + bytes <= bytesPerWindow {
                current.archivedBytes += bytes
                return .archived
            }
            current.counted += 1
            return .counted(firstInWindow: current.counted == 1)
        }
    }

    /// The current window's figures (zero once it has passed).
    public func state(at now: ContinuousClock.Instant = .now) -> Window {
        current.withLock { current in
            guard let start = current.start, now - start < window else { return Window() }
            return current
        }
    }

    /// About what a rejected document's row adds to the store: its archived bytes, its reason and
    /// source, its digest, and the row's and its index entries' own cost.
    static func rowBytes(_ document: IncomingDocument) -> Int {
        var reason = 0
        if case .rejected(let text) = document.content { reason = text.utf8.count }
        return (document.archived?.data.count ?? 0) + reason + document.source.utf8.count + 2 * 64 + 64
    }
}
