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

    /// Makes every store this process opens read its queued archive documents.
    public static func install() { AppDatabase.archiveDecoder = decoder }
}
