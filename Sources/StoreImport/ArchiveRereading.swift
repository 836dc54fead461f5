import AppStorePayloads
import Foundation
import SubscriberStore

/// How a store reads its archive again when a migration asks (``AppDatabase/rereadArchive(decode:pageSize:)``).
public enum ArchiveRereading {
    /// The decoder for documents the store accepted when they arrived: their signatures were
    /// verified then (or they were imported with `--no-verify`), so they are read without checking
    /// them again; certificates that have expired since cannot make facts disappear.
    public static let decoder: ArchiveDocumentDecoder = { data in
        do throws(PayloadError) {
            return try PayloadDecoder(verifier: UnverifiedJWS()).decode(data)
        } catch {
            throw StoreError(error.reason)
        }
    }

    /// Makes every store this process opens read its queued archive documents; `say` gets a line
    /// when the reading starts and every `every` documents (it takes a while on a large store, once).
    public static func install(every: Int = 10_000, say: (@Sendable (String) -> Void)? = nil) {
        guard let say else {
            AppDatabase.archiveDecoder = decoder
            return
        }
        let count = Counter()
        AppDatabase.archiveDecoder = { data in
            let n = count.next()
            if n == 1 {
                say("reading the store's archive again to fill in what this version keeps (once, after an upgrade)…")
            } else if n % every == 0 {
                say("read \(n) archived documents again…")
            }
            return try decoder(data)
        }
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var n = 0
        func next() -> Int {
            lock.withLock {
                n += 1
                return n
            }
        }
    }
}
