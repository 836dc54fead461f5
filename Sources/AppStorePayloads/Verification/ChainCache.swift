import Foundation

/// Outcomes of chain validation, shared by every thread that verifies with one `AppleJWSVerifier`.
///
/// Two levels. The hot one is keyed by the JWS header segment itself: App Store documents signed by
/// one certificate chain carry byte-identical headers, so a hit costs a length check and a `memcmp`
/// against a handful of recent headers, not a JSON parse or a hash of 4 KB of base64. Behind it,
/// outcomes keyed by the `x5c` strings catch headers that differ only in members other than the
/// chain. Both are bounded, so a stream of distinct (hostile) chains cannot grow memory.
///
/// `@unchecked Sendable` rather than a `Mutex`: the cached `TrustedChain` holds swift-crypto's
/// `P256.Signing.PublicKey`, an immutable value the library does not mark `Sendable`; every
/// stored property is touched only under `lock`.
final class ChainCache: @unchecked Sendable {
    typealias Outcome = Result<TrustedChain, PayloadError>

    private struct HeaderEntry {
        var header: String
        var outcome: Outcome
    }

    private let lock = NSLock()
    // Guarded by `lock`.
    private var recentHeaders: [HeaderEntry] = []
    private var nextEviction = 0
    private var byChain: [[String]: Outcome] = [:]

    static let headerCapacity = 16
    static let chainCapacity = 256

    /// The outcome cached for this exact header segment.
    func outcome(forHeader header: Substring) -> Outcome? {
        let entries = lock.withLock { recentHeaders }
        for entry in entries where Self.sameBytes(entry.header, header) {
            return entry.outcome
        }
        return nil
    }

    func outcome(forChain x5c: [String]) -> Outcome? {
        lock.withLock { byChain[x5c] }
    }

    func store(_ outcome: Outcome, header: Substring, chain x5c: [String]?) {
        lock.withLock {
            if let x5c {
                if byChain.count >= Self.chainCapacity { byChain.removeAll(keepingCapacity: true) }
                byChain[x5c] = outcome
            }
            let entry = HeaderEntry(header: String(header), outcome: outcome)
            if recentHeaders.count < Self.headerCapacity {
                recentHeaders.append(entry)
            } else {
                recentHeaders[nextEviction] = entry
                nextEviction = (nextEviction + 1) % Self.headerCapacity
            }
        }
    }

    private static func sameBytes(_ stored: String, _ candidate: Substring) -> Bool {
        guard stored.utf8.count == candidate.utf8.count else { return false }
        let fast = stored.utf8.withContiguousStorageIfAvailable { left in
            candidate.utf8.withContiguousStorageIfAvailable { right in
                left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
        if let fast, let fast { return fast }
        return stored.utf8.elementsEqual(candidate.utf8)
    }
}
