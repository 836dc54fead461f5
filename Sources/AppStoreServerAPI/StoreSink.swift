import AppStorePayloads
import Foundation
import StoreImport
import SubscriberStore

/// Stores what the App Store Server API sent, one response at a time, through the import path
/// (`Importer.incoming`: decoding, signature verification, the archive) and derives the touched
/// subscriptions at once, so a fetch that stops half-way keeps what it had.
public final class StoreSink: Sendable {
    public let database: AppDatabase
    let importer: Importer

    /// What storing one response did.
    public struct Stored: Sendable {
        public var result: BatchResult
        /// Why the response was rejected (it is archived as rejected), or nil.
        public var rejection: String?
        /// Notifications, transactions and renewal facts the response held.
        public var notifications = 0, transactions = 0, renewals = 0
    }

    public init(database: AppDatabase, verifier: any SignatureVerifier) {
        self.database = database
        importer = Importer.appStore(database: database, verifier: verifier, report: { _ in })
    }

    /// Stores a page: its bytes through the import path, or, for a page too large to read, a
    /// rejected document with the reason (as a file's document over the size limit is recorded).
    public func store(_ page: FetchedPage, source: String) throws -> Stored {
        switch page {
        case .body(let body):
            return try store(body, source: source)
        case .tooLarge(let byteCount, let reason):
            let document = IncomingDocument(
                sha256: Importer.sha256Hex(Data((source + reason).utf8)), source: source, byteCount: byteCount, body: nil,
                content: .rejected(reason: reason))
            return Stored(result: try database.apply([document]), rejection: reason)
        }
    }

    public func store(_ body: Data, source: String) throws -> Stored {
        let document = importer.incoming(body, source: source)
        let result = try database.apply([document])
        var stored = Stored(result: result)
        switch document.content {
        case .rejected(let reason): stored.rejection = reason
        case .facts(let facts):
            stored.notifications = facts.notifications.count
            stored.transactions = facts.transactions.count
            stored.renewals = facts.renewals.count
        }
        return stored
    }

    /// The `signedDate` of the latest notification in the store, if any: where a backfill resumes.
    public func latestNotificationMilliseconds() throws -> Int64? {
        try database.latestNotificationInstant()
    }
}
