import Foundation
import GRDB
import SubscriptionModel
import ThreadKit

/// One document read by the importer, decoded or rejected, ready to be written.
public struct IncomingDocument: Sendable {
    public enum Content: Sendable {
        case facts(DocumentFacts)
        case rejected(reason: String)
    }

    /// Hex sha256 of the document's bytes.
    public var sha256: String
    /// Where it came from: `file`, `file:line 12`, `file:index 3`.
    public var source: String
    public var byteCount: Int
    /// The raw bytes as archived (compressed with zstd, or zlib without it, when that saves space:
    /// `ArchiveCodec`); nil when the document is too large to keep.
    public var archived: ArchivedBody?
    public var content: Content

    /// Compresses `body` here, so an importer building documents on several threads compresses
    /// them in parallel rather than on the single writing thread.
    /// `codec`: the store's (`AppDatabase.archiveCodec`), so bodies get their kind's dictionary.
    public init(
        sha256: String, source: String, byteCount: Int, body: Data?, content: Content, codec: ArchiveCodec = .current
    ) {
        self.sha256 = sha256
        self.source = source
        self.byteCount = byteCount
        self.archived = body.map(codec.archive)
        self.content = content
    }
}

/// What one batch did.
public struct BatchResult: Sendable, Equatable {
    public var applied = 0
    public var duplicates = 0
    public var rejected = 0
    /// Unsigned documents not applied because their subscription has signed data.
    public var unverified = 0
    /// Subscriptions whose facts changed, marked pending for `rebuildPending`.
    public var touchedSubscriptions: Set<String> = []
    /// Documents the writer rejected (another app's): source and reason.
    public var rejections: [(source: String, reason: String)] = []
    /// Notifications whose `notificationUUID` was stored already with other content: the first is
    /// kept, the document of the second archived. Source and what differs. A document holding
    /// nothing but such notifications is counted here, not as applied, duplicate or rejected.
    public var conflicts: [(source: String, reason: String)] = []
    /// Documents in conflict as a whole (every notification they hold conflicts or repeats).
    public var conflictingDocuments = 0
    /// Non-subscription transactions (consumables and other one-time purchases) in the documents
    /// newly stored: archived with them, in no fact a subscription is derived from.
    public var nonSubscriptionTransactions = 0
    /// Documents newly stored from each environment Apple does not document (by raw value).
    public var unknownEnvironments: [String: Int] = [:]

    public init() {}

    /// What became of a batch of one document (a receiver's request): the answer to give.
    public enum DocumentOutcome: Equatable, Sendable {
        /// New facts were stored.
        case applied
        /// Nothing new: the same document, or the same notification, was stored before.
        case duplicate
        /// Not stored as accepted; archived with the reason.
        case rejected(reason: String)
        /// An unsigned v1 document stored but not applied: its subscription has signed data.
        case unverified
        /// Its notificationUUID is stored already with other content: the first kept, this one archived.
        case conflict(reason: String)
    }

    /// The outcome of a batch of one document.
    public var documentOutcome: DocumentOutcome {
        if let rejection = rejections.first { return .rejected(reason: rejection.reason) }
        if conflictingDocuments > 0, let conflict = conflicts.first { return .conflict(reason: conflict.reason) }
        if unverified > 0 { return .unverified }
        return applied > 0 ? .applied : .duplicate
    }

    public static func == (a: BatchResult, b: BatchResult) -> Bool {
        a.applied == b.applied && a.duplicates == b.duplicates && a.rejected == b.rejected && a.unverified == b.unverified
            && a.conflictingDocuments == b.conflictingDocuments
            && a.touchedSubscriptions == b.touchedSubscriptions
            && a.rejections.map { "\($0.source): \($0.reason)" } == b.rejections.map { "\($0.source): \($0.reason)" }
            && a.conflicts.map { "\($0.source): \($0.reason)" } == b.conflicts.map { "\($0.source): \($0.reason)" }
    }

    public mutating func add(_ other: BatchResult) {
        applied += other.applied
        duplicates += other.duplicates
        rejected += other.rejected
        unverified += other.unverified
        rejections += other.rejections
        conflicts += other.conflicts
        conflictingDocuments += other.conflictingDocuments
        nonSubscriptionTransactions += other.nonSubscriptionTransactions
        unknownEnvironments.merge(other.unknownEnvironments, uniquingKeysWith: +)
        touchedSubscriptions.formUnion(other.touchedSubscriptions)
    }
}

extension AppDatabase {
    /// Writes a batch of documents in ONE transaction: archive, facts, and the list of
    /// subscriptions whose derived rows must be rebuilt. A crash leaves the store as it was before
    /// the batch. With `rebuild` (the default) the derived rows are rebuilt before returning;
    /// an importer of many batches passes false and calls `rebuildPending()` once at the end, so
    /// each subscription is derived once per import rather than once per batch.
    @discardableResult
    public func apply(_ documents: [IncomingDocument], rebuild: Bool = true) throws -> BatchResult {
        let result = try writer.write { db in
            var written = WrittenVersions()
            return try writeDocuments(documents, db, written: &written)
        }
        if rebuild { try rebuildPending() }
        return result
    }

    /// Writes groups of documents that arrived apart (a receiver's concurrent requests) in ONE
    /// transaction, and returns each group's result on its own so each can be answered. Later
    /// groups see earlier ones: the same notification twice is applied once, then a duplicate.
    /// Derived rows are not rebuilt: call `rebuildPending()` after.
    public func applyEach(_ groups: [[IncomingDocument]]) throws -> [BatchResult] {
        try applyEach(groups, deriving: []).results
    }

    /// What `applyEach(_:deriving:)` did: each group's result, and the seconds the derivation took.
    public struct AppliedAndDerived: Sendable {
        public var results: [BatchResult]
        public var derivationSeconds: Double
    }

    /// Writes groups of documents as `applyEach(_:)` does, then, in the same transaction, rebuilds
    /// the derived rows of the subscriptions `deriving` lists and takes them off the pending list:
    /// a receiver derives what it was sent in slices carried by the commits it makes anyway, so
    /// no request waits for a whole derivation (docs/performance.md, "The listener's derivation").
    /// The derivation reads the facts as this transaction sees them, the documents' included.
    /// Derived rows are a function of the committed facts, so a slice may stop at any
    /// subscription: what is not derived yet stays pending.
    public func applyEach(_ groups: [[IncomingDocument]], deriving ids: [String]) throws -> AppliedAndDerived {
        try writer.write { db in
            var written = WrittenVersions()
            let results = try groups.map { try writeDocuments($0, db, written: &written) }
            guard !ids.isEmpty else { return AppliedAndDerived(results: results, derivationSeconds: 0) }
            let started = DispatchTime.now().uptimeNanoseconds
            try Materializer(db).rebuild(ids)
            try Self.clearPending(ids, db)
            if try !Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pendingSubscription)")! {
                try DerivedIndexes.buildMissing(db)
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            return AppliedAndDerived(results: results, derivationSeconds: seconds)
        }
    }

    /// The first `limit` pending subscriptions in id order: what a receiver derives next.
    public func pendingSubscriptions(limit: Int) throws -> [String] {
        try writer.read { db in try Self.pendingSubscriptions(db, limit: limit) }
    }

    private static func pendingSubscriptions(_ db: Database, limit: Int) throws -> [String] {
        try String.fetchAll(
            db, sql: "SELECT originalTransactionId FROM pendingSubscription ORDER BY 1 LIMIT ?", arguments: [limit])
    }

    /// Takes derived subscriptions off the pending list (in the transaction that stored their rows).
    private static func clearPending(_ ids: [String], _ db: Database) throws {
        let delete = try db.cachedStatement(sql: "DELETE FROM pendingSubscription WHERE originalTransactionId = ?")
        for id in ids { try delete.run(db, id) }
    }

    /// Every commit from now on is flushed to the disk before it returns (`synchronous = FULL`),
    /// not only to the operating system: for a receiver whose 200 tells the sender it may forget
    /// the document.
    public func makeCommitsDurable() throws {
        try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
    }

    /// Settings of the writing connection for a receiver: commits flushed to disk
    /// (`makeCommitsDurable`), and checkpoints left to a thread of their own
    /// (`startBackgroundCheckpoints`): the writer's own autocheckpoint only past `receiverCheckpointPages`,
    /// a safety net. A checkpoint copies pages into the store and flushes it, which took the
    /// commit that crossed the everyday 1,000 pages about 100 ms every third of a second under
    /// load: every request waiting for that commit waited for it (docs/performance.md, "The
    /// listener's derivation").
    public func prepareForReceiving() throws {
        try makeCommitsDurable()
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.receiverCheckpointPages)")
        }
    }

    /// The writer's autocheckpoint while receiving (64 MiB of WAL at 4 KiB pages).
    static let receiverCheckpointPages = 16_384

    /// Runs `body` with commits written to the WAL but not flushed (`synchronous = NORMAL`), then
    /// puts back the setting it found: for work whose input is already durable and which is redone
    /// if a crash loses it (deriving pending subscriptions). The WAL is written in order, so the
    /// next flushed commit flushes these too; a power cut loses at most a suffix of them.
    public func withCommitsNotFlushed<T>(_ body: () throws -> T) throws -> T {
        let previous = try writer.writeWithoutTransaction { db -> Int in
            let previous = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? 2
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            return previous
        }
        defer { try? writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(previous)") } }
        return try body()
    }

    /// The latest verified notification's instant (milliseconds; v2 `signedDate`), or nil when none
    /// is stored: where a backfill of the notification history resumes. An unsigned v1 notification
    /// the shared secret did not vouch for says nothing about what Apple has sent.
    public func latestNotificationInstant() throws -> Int64? {
        try writer.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT instant FROM notification WHERE unverified = 0 ORDER BY instant DESC LIMIT 1")
        }
    }

    /// Writes chunks of documents as `next` hands them over (nil: no more), on the writing
    /// connection held for the whole stream, committing once at least `documentsPerTransaction`
    /// are written (and at the end). Small chunks keep decoding and writing overlapped and the
    /// memory of documents in flight small; large transactions write each dirty page once for
    /// many chunks. `onChunk` receives each chunk's result. Derived rows are not rebuilt: call
    /// `rebuildPending()` after.
    public func applyStream(
        documentsPerTransaction: Int, next: () throws -> [IncomingDocument]?,
        onChunk: (BatchResult) -> Void
    ) throws {
        let turn = writerTurn()
        try writer.writeWithoutTransaction { db in
            var versions = WrittenVersions()
            var chunk = try next()
            while chunk != nil {
                try longWrite(turn) {
                    try db.inTransaction {
                        var written = 0
                        while let documents = chunk {
                            onChunk(try writeDocuments(documents, db, written: &versions))
                            written += documents.count
                            chunk = try next()
                            if written >= documentsPerTransaction { break }
                        }
                        return .commit
                    }
                }
            }
        }
    }

    /// Chunks rebuilt between two pauses of the pipeline that let the WAL start over.
    static let walRestartEvery = 32

    /// Rebuilds the derived rows of every pending subscription, `chunk` subscriptions per
    /// transaction, in id order. Returns how many were rebuilt.
    ///
    /// In a file store the work takes both cores: a reader derives the timelines of the next chunk
    /// from the committed facts while the writer stores this one. If another connection commits
    /// meanwhile (`PRAGMA data_version` moves; say, a second import), what the reader saw may be
    /// stale, so the rest is derived inside the writing transaction.
    ///
    /// From `deferIndexesFrom` pending subscriptions on (a backfill), the derived tables' indexes
    /// that the rebuild itself does not read are dropped first and built again, sorted, in the
    /// transaction of the last chunk (see ``DerivedIndexes``).
    @discardableResult
    public func rebuildPending(
        chunk: Int = 2000, deferIndexesFrom: Int = DerivedIndexes.deferFrom,
        progress: ((_ done: Int, _ total: Int?) -> Void)? = nil
    ) throws -> Int {
        guard let pool = writer as? DatabasePool else {
            return try rebuildPendingInline(chunk: chunk, turn: writerTurn(), progress: progress)
        }
        // The pending ids when the rebuild starts, 8 bytes each (docs/performance.md, "An import's
        // memory"); each chunk is made into strings when its turn comes.
        let pending = try pool.read { db in try SubscriptionIdList.pending(db) }
        guard !pending.isEmpty else { return 0 }
        let chunks = pending.chunks(of: chunk)
        let turn = writerTurn()
        let startVersion = try pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
        if pending.count >= deferIndexesFrom {
            try longWrite(turn) { try pool.write { db in try DerivedIndexes.drop(db) } }
        }
        // Indexes built at the end sort their keys in temporary files, not in memory (this cannot
        // change inside a transaction).
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA temp_store = FILE") }
        defer { try? pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA temp_store = MEMORY") } }
        var ahead = DerivedChunk()
        ahead.start(pending[chunks[0]], pool: pool)
        var total = 0
        for (k, range) in chunks.enumerated() {
            let ids = pending[range]
            let derived = ahead.wait()
            // The reader deriving ahead always holds a snapshot, so the WAL could never start over:
            // at 1,000,000 subscribers it grew to 4.6 GB, and every page read searches the WAL's
            // index, which grows with it. Every `walRestartEvery` chunks the next derivation waits
            // until this chunk is written and checkpointed with no reader in the way; the next
            // write then starts the WAL from its beginning; the pauses cost no measurable time.
            let restart = (k + 1) % Self.walRestartEvery == 0
            if k + 1 < chunks.count && !restart { ahead.start(pending[chunks[k + 1]], pool: pool) }
            try longWrite(turn) {
                try pool.write { db in
                    let materializer = Materializer(db)
                    let unchanged = try Int.fetchOne(db, sql: "PRAGMA data_version") == startVersion
                    if unchanged, case .success(let timelines) = derived {
                        try materializer.store(timelines)
                    } else {
                        try materializer.rebuild(ids)
                    }
                    try Self.clearPending(ids, db)
                    // With the last pending rows gone, the indexes are whole again in the same
                    // commit: a store never has an index missing and nothing pending.
                    if k + 1 == chunks.count { try DerivedIndexes.buildMissing(db) }
                }
            }
            if restart {
                _ = try pool.writeWithoutTransaction { db in try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)") }
                if k + 1 < chunks.count { ahead.start(pending[chunks[k + 1]], pool: pool) }
            }
            total += ids.count
            progress?(total, pending.count)
        }
        _ = ahead.wait()
        return total + (try rebuildPendingInline(chunk: chunk, turn: turn, progress: nil))
    }

    /// One connection does everything (an in-memory store has no second one). After the
    /// pipeline, what another import left pending meanwhile; each transaction in its turn (an
    /// import writing back to back would otherwise starve it past the busy timeout).
    private func rebuildPendingInline(
        chunk: Int, turn: WriterTurn?, progress: ((_ done: Int, _ total: Int?) -> Void)?
    ) throws -> Int {
        var total = 0
        while true {
            let done = try longWrite(turn) {
                try writer.write { db -> Int in
                    let ids = try Self.pendingSubscriptions(db, limit: chunk)
                    try Materializer(db).rebuild(ids)
                    try Self.clearPending(ids, db)
                    return ids.count
                }
            }
            total += done
            progress?(total, nil)
            if done < chunk { return total }
        }
    }

    /// The store's turns among its writers (``WriterTurn``; its lock files are created): nil in
    /// memory, or where the lock files cannot be opened.
    func writerTurn() -> WriterTurn? { path.flatMap { WriterTurn(storePath: $0) } }

    /// One transaction of an import, in its turn among the store's writers (``WriterTurn``).
    private func longWrite<T>(_ turn: WriterTurn?, _ body: () throws -> T) rethrows -> T {
        guard let turn else { return try body() }
        return try turn.longWrite(body)
    }

    /// Subscriptions whose derived rows are not rebuilt yet (after an interrupted import).
    public func pendingCount() throws -> Int {
        try writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pendingSubscription") ?? 0 }
    }
}

/// The idempotent writer. Set-based where it can be: every fact is an `INSERT … ON CONFLICT`
/// through a cached prepared statement, never a read-modify-write of a row.
struct FactWriter {
    let db: Database

    init(_ db: Database) { self.db = db }

    /// The `archiveChain` ids of the certificate chains a body's compact layout refers to,
    /// space-separated in its order, each chain stored once by its sha256; nil for a body kept as
    /// received.
    func chainIds(_ body: ArchivedBody?) throws -> String? {
        guard let body, body.layout != nil else { return nil }
        let find = try db.cachedStatement(sql: "SELECT id FROM archiveChain WHERE sha256 = ?")
        let insert = try db.cachedStatement(sql: "INSERT INTO archiveChain (sha256, chain) VALUES (?, ?)")
        var ids: [String] = []
        for chain in body.chains {
            if let id = try Int64.fetchOne(find, arguments: [chain.sha256]) {
                ids.append(String(id))
            } else {
                try insert.execute(arguments: [chain.sha256, chain.text])
                ids.append(String(db.lastInsertedRowID))
            }
        }
        return ids.joined(separator: " ")
    }

    /// - Parameter written: the transaction versions already written by this import; updated.
    func apply(_ documents: [IncomingDocument], written: inout WrittenVersions) throws -> BatchResult {
        var result = BatchResult()
        var touched = Set<String>()
        // Every v1 document repeats the subscription's whole receipt: the batch's versions of each
        // transaction are reduced to the one that ranks highest before anything is written, which
        // is what writing them one by one would leave (the store keeps the highest rank).
        var winners = RankedTransactions()
        let insertDocument = try db.cachedStatement(
            sql: """
                INSERT INTO document (
                    sha256, source, format, outcome, reason, byteCount, body, bodyEncoding, bodyLayout, bodyChains,
                    bodyDictionary)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(sha256) DO NOTHING
                """)
        let existingOutcome = try db.cachedStatement(sql: "SELECT outcome FROM document WHERE sha256 = ?")
        let subscriptionsWithToken = try db.cachedStatement(
            sql: """
                SELECT DISTINCT originalTransactionId FROM "transaction" WHERE appAccountToken = ?
                """)
        let replaceDocument = try db.cachedStatement(
            sql: """
                UPDATE document SET source = ?, format = ?, outcome = ?, reason = NULL WHERE sha256 = ?
                """)
        let setOutcome = try db.cachedStatement(sql: "UPDATE document SET outcome = ? WHERE sha256 = ?")
        let setRejected = try db.cachedStatement(sql: "UPDATE document SET outcome = 'rejected', reason = ? WHERE sha256 = ?")

        // Keys in order: the sha256 index (and a v1 notification's id, the same digest) and the
        // subscription-keyed renewal facts are then visited page after page rather than at random.
        // Arrival order is kept among equal digests, and nothing else depends on it (facts rank
        // themselves).
        var renewals: [(RenewalFact, Bool)] = []
        var app = try StoreApp.fetch(db)
        // Subscriptions given signed data by this batch: unsigned data about them is not applied
        // whatever the order of the two in the batch.
        var signedHere = Set<String>()
        for doc in documents {
            if case .facts(let facts) = doc.content, facts.isSigned {
                signedHere.formUnion(facts.originalTransactionIds)
            }
        }
        let signedInStore = try db.cachedStatement(sql: "SELECT \(SignedData.exists("?1"))")
        let listUnverified = try db.cachedStatement(
            sql: """
                INSERT INTO unverifiedDocument (originalTransactionId, documentSha256) VALUES (?, ?) ON CONFLICT DO NOTHING
                """)
        // Indices are sorted, not the documents: moving whole documents about costs a retain and
        // release of each of their facts (a few percent of a v1 import's CPU on this thread).
        let ordered = documents.indices.sorted { (documents[$0].sha256, $0) < (documents[$1].sha256, $1) }
        for index in ordered {
            let doc = documents[index]
            switch doc.content {
            case .rejected(let reason):
                try insertDocument.run(
                    db, doc.sha256, doc.source, String?.none, "rejected", reason, doc.byteCount,
                    doc.archived?.data, doc.archived?.encoding, doc.archived?.layout, chainIds(doc.archived),
                    doc.archived?.dictionary)
                result.rejected += 1
            case .facts(let facts):
                if let documentApp = facts.app, facts.isSigned {
                    if let storeApp = app, !storeApp.matches(documentApp) {
                        let reason =
                            "for the app \(documentApp), but this store holds \(storeApp) (one app per store: use another --db)"
                        try insertDocument.run(
                            db, doc.sha256, doc.source, String?.none, "rejected", reason, doc.byteCount,
                            doc.archived?.data, doc.archived?.encoding, doc.archived?.layout, chainIds(doc.archived),
                            doc.archived?.dictionary)
                        result.rejected += 1
                        result.rejections.append((doc.source, reason))
                        continue
                    }
                    if app == nil {
                        app = documentApp
                        try StoreApp.record(documentApp, db)
                    }
                }
                let unverified = facts.isUnverifiedSubscriptionData
                var countedUnverified = false
                if unverified {
                    // Listed whatever the order of arrival; counted in this import's summary
                    // when the subscription already has signed data.
                    var signed = facts.originalTransactionIds.contains { signedHere.contains($0) }
                    if !signed {
                        signed = try facts.originalTransactionIds.contains {
                            try Bool.fetchOne(signedInStore, arguments: [$0]) == true
                        }
                    }
                    if signed {
                        result.unverified += 1
                        countedUnverified = true
                    }
                }
                try insertDocument.run(
                    db, doc.sha256, doc.source, facts.format.rawValue, "applied", String?.none,
                    doc.byteCount, doc.archived?.data, doc.archived?.encoding, doc.archived?.layout, chainIds(doc.archived),
                    doc.archived?.dictionary)
                if db.changesCount == 0 {
                    let previous = try String.fetchOne(existingOutcome, arguments: [doc.sha256])
                    if previous != "rejected" {
                        // The same bytes were applied before: nothing new can come of them.
                        result.duplicates += 1
                        if countedUnverified { result.unverified -= 1 }
                        continue
                    }
                    // Rejected before (say, an untrusted root), accepted now.
                    try replaceDocument.run(db, doc.source, facts.format.rawValue, "applied", doc.sha256)
                }
                result.nonSubscriptionTransactions += facts.nonSubscriptionTransactions
                for environment in facts.unknownEnvironments { result.unknownEnvironments[environment, default: 0] += 1 }
                let written = try writeNotifications(facts.notifications, document: doc.sha256, unverified: unverified)
                let newNotifications = written.inserted
                result.conflicts += written.conflicts.map { (doc.source, $0) }
                if !written.conflicts.isEmpty && newNotifications == 0 {
                    // Nothing in it is new but what conflicts: the first version stays, this
                    // one is archived (not applied), and reported as a conflict.
                    try setRejected.run(db, "conflict: " + written.conflicts[0], doc.sha256)
                    result.conflictingDocuments += 1
                    if countedUnverified { result.unverified -= 1 }
                    continue
                }
                for t in facts.transactions { winners.offer(t, unverified: unverified) }
                renewals += facts.renewals.map { ($0, unverified) }
                try writeCustomers(facts.customers)
                if !facts.notifications.isEmpty && newNotifications == 0 {
                    // A redelivery of a notification already stored (same notificationUUID).
                    try setOutcome.run(db, "duplicate", doc.sha256)
                    if !countedUnverified { result.duplicates += 1 }
                } else if !countedUnverified {
                    result.applied += 1
                }
                if unverified {
                    for id in facts.originalTransactionIds { try listUnverified.run(db, id, doc.sha256) }
                }
                touched.formUnion(facts.originalTransactionIds)
                for c in facts.customers {
                    if let o = c.originalTransactionId, !o.isEmpty {
                        touched.insert(o)
                    } else if let token = c.appAccountToken, !token.isEmpty {
                        // Linked by its token only: the subscriptions with that token show (and are found by) it.
                        touched.formUnion(try String.fetchAll(subscriptionsWithToken, arguments: [token]))
                    }
                }
            }
        }
        try writeTransactions(winners.facts.filter { written.insert($0.0.transactionId, rank: $0.1) })
        renewals.sort { ($0.0.originalTransactionId, $0.0.instant) < ($1.0.originalTransactionId, $1.0.instant) }
        try writeRenewals(renewals)
        try writeRenewalDetails(winners.facts.map(\.0), renewals.map(\.0))
        let pending = try db.cachedStatement(sql: "INSERT INTO pendingSubscription VALUES (?) ON CONFLICT DO NOTHING")
        for id in touched.sorted() { try pending.run(db, id) }
        result.touchedSubscriptions = touched
        return result
    }

    /// Inserts the notifications; returns how many were new, and for each whose notificationUUID
    /// was stored already with other content (``NotificationContent``) what differs.
    private func writeNotifications(
        _ notifications: [NotificationFact], document: String, unverified: Bool
    ) throws -> (inserted: Int, conflicts: [String]) {
        guard !notifications.isEmpty else { return (0, []) }
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO notification (notificationId, format, notificationType, subtype, instant, originalTransactionId,
                    transactionId, environment, status, autoRenewStatus, bundleId, documentSha256, unverified)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(notificationId) DO NOTHING
                """)
        var inserted = 0
        var conflicts: [String] = []
        for n in notifications {
            try statement.run(
                db, n.notificationId, n.format.rawValue, n.notificationType, n.subtype,
                n.instant.milliseconds, n.originalTransactionId, n.transactionId,
                n.environment.rawValue, n.status, n.autoRenewStatus, n.bundleId, document, unverified)
            if db.changesCount > 0 {
                inserted += 1
            } else if let stored = try NotificationContent.stored(n.notificationId, db), stored != NotificationContent(n) {
                conflicts.append(
                    "notificationUUID \(n.notificationId) is stored already as \(stored) (document \(stored.document.prefix(12))…); "
                        + "this one, \(NotificationContent(n)), is archived, not applied")
            }
        }
        return (inserted, conflicts)
    }

    private func writeTransactions(_ transactions: [(TransactionFact, String)]) throws {
        guard !transactions.isEmpty else { return }
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO "transaction" (transactionId, originalTransactionId, webOrderLineItemId, productId,
                    subscriptionGroupIdentifier, purchaseDate, originalPurchaseDate, expiresDate, revocationDate,
                    revocationReason, isUpgraded, offerType, offerDiscountType, offerIdentifier, appAccountToken,
                    environment, price, currency, inAppOwnershipType, signedDate, storefront, revocationType,
                    revocationPercentage, rank, unverified,
                    billingPlanType, commitmentPeriod, commitmentPeriods, commitmentExpiresDate, commitmentPrice)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(transactionId) DO UPDATE SET
                    originalTransactionId = excluded.originalTransactionId, webOrderLineItemId = excluded.webOrderLineItemId,
                    productId = excluded.productId, subscriptionGroupIdentifier = excluded.subscriptionGroupIdentifier,
                    purchaseDate = excluded.purchaseDate, originalPurchaseDate = excluded.originalPurchaseDate,
                    expiresDate = excluded.expiresDate, revocationDate = excluded.revocationDate,
                    revocationReason = excluded.revocationReason, isUpgraded = excluded.isUpgraded,
                    offerType = excluded.offerType, offerDiscountType = excluded.offerDiscountType,
                    offerIdentifier = excluded.offerIdentifier, appAccountToken = excluded.appAccountToken,
                    environment = excluded.environment, price = excluded.price, currency = excluded.currency,
                    inAppOwnershipType = excluded.inAppOwnershipType, signedDate = excluded.signedDate,
                    storefront = excluded.storefront, revocationType = excluded.revocationType,
                    revocationPercentage = excluded.revocationPercentage, rank = excluded.rank,
                    unverified = excluded.unverified,
                    billingPlanType = excluded.billingPlanType, commitmentPeriod = excluded.commitmentPeriod,
                    commitmentPeriods = excluded.commitmentPeriods, commitmentExpiresDate = excluded.commitmentExpiresDate,
                    commitmentPrice = excluded.commitmentPrice
                WHERE excluded.rank > "transaction".rank
                """)
        for (t, rank) in transactions {
            try statement.run(
                db, t.transactionId, t.originalTransactionId, t.webOrderLineItemId, t.productId, t.subscriptionGroupIdentifier,
                t.purchaseDate.milliseconds, t.originalPurchaseDate?.milliseconds, t.expiresDate?.milliseconds,
                t.revocationDate?.milliseconds, t.revocationReason, t.isUpgraded, t.offerType, t.offerDiscountType,
                t.offerIdentifier, t.appAccountToken, t.environment.rawValue, t.price, t.currency, t.inAppOwnershipType,
                t.signedDate?.milliseconds, t.storefront, t.revocationType, t.revocationPercentage, rank,
                rank.hasPrefix(FactRank.unverifiedPrefix),
                t.billingPlanType, t.commitment?.billingPeriodNumber, t.commitment?.totalBillingPeriods,
                t.commitment?.commitmentExpiresDate?.milliseconds, t.commitment?.commitmentPrice)
        }
    }

    private func writeRenewals(_ renewals: [(RenewalFact, Bool)]) throws {
        guard !renewals.isEmpty else { return }
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO renewalFact (originalTransactionId, instant, contentHash, productId, autoRenewProductId,
                    autoRenewStatus, isInBillingRetryPeriod, gracePeriodExpiresDate, expirationIntent, priceIncreaseStatus,
                    transactionId, environment, isV1, unverified,
                    renewalBillingPlanType, commitmentInfo, commitmentAutoRenewStatus, commitmentAutoRenewProductId,
                    commitmentRenewalBillingPlanType, commitmentRenewalDate, commitmentRenewalPrice)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (originalTransactionId, instant, contentHash) DO UPDATE SET unverified = 0
                WHERE excluded.unverified = 0 AND renewalFact.unverified = 1
                """)
        for (r, unverified) in renewals {
            try statement.run(
                db, r.originalTransactionId, r.instant.milliseconds, FactRank.contentHash(of: r), r.productId,
                r.autoRenewProductId, r.autoRenewStatus, r.isInBillingRetryPeriod, r.gracePeriodExpiresDate?.milliseconds,
                r.expirationIntent, r.priceIncreaseStatus, r.transactionId, r.environment.rawValue, r.isV1, unverified,
                r.renewalBillingPlanType, r.commitment != nil, r.commitment?.commitmentAutoRenewStatus,
                r.commitment?.commitmentAutoRenewProductId,
                r.commitment?.commitmentRenewalBillingPlanType, r.commitment?.commitmentRenewalDate?.milliseconds,
                r.commitment?.commitmentRenewalPrice)
        }
    }

    private func writeCustomers(_ customers: [CustomerFact]) throws {
        guard !customers.isEmpty else { return }
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO customer (userId, email, appAccountToken, originalTransactionId) VALUES (?, ?, ?, ?)
                ON CONFLICT DO NOTHING
                """)
        for c in customers {
            try statement.run(db, c.userId ?? "", c.email ?? "", c.appAccountToken ?? "", c.originalTransactionId ?? "")
        }
    }
}

/// The highest-ranked version of each transaction seen so far (FactRank's order).
struct RankedTransactions {
    private var best: [String: (fact: TransactionFact, rank: String)] = [:]

    mutating func offer(_ t: TransactionFact, unverified: Bool = false) {
        if let current = best[t.transactionId] {
            // Cheap exits first: a v1 receipt repeats identical rows.
            if current.fact == t && (unverified || !current.rank.hasPrefix(FactRank.unverifiedPrefix)) { return }
            let rank = FactRank.rank(of: t, unverified: unverified)
            if rank > current.rank { best[t.transactionId] = (t, rank) }
        } else {
            best[t.transactionId] = (t, FactRank.rank(of: t, unverified: unverified))
        }
    }

    /// In transactionId order, so the index pages are visited in order.
    var facts: [(TransactionFact, String)] {
        best.sorted { $0.key < $1.key }.map { ($0.value.fact, $0.value.rank) }
    }
}

/// The timelines of one chunk, derived on a background thread through a pool's reader, handed
/// back through a channel of one.
private struct DerivedChunk {
    private let results = BlockingChannel<Result<[Materializer.Derived], any Error>>(capacity: 1)
    /// The deriving reader's page cache, in KiB. It reads each subscription's facts once, in id
    /// order, so beyond the tables' inner pages a cache holds nothing it reads again; at the
    /// everyday 64 MiB it was 64 MiB more of a rebuild's memory, beside the writer's cache.
    static let cacheKibibytes = 16 * 1024
    /// Whether a derivation was started and not waited for.
    private var running = false

    mutating func start(_ ids: [String], pool: DatabasePool) {
        precondition(!running, "one derivation ahead at a time")
        running = true
        DispatchQueue.global().async { [results] in
            results.send(
                Result {
                    try pool.read { db in
                        let cache = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -AppDatabase.everydayCacheKibibytes
                        // A setting only: were it refused, the derivation goes ahead with the larger cache.
                        try? db.execute(sql: "PRAGMA cache_size = -\(Self.cacheKibibytes)")
                        defer { try? db.execute(sql: "PRAGMA cache_size = \(cache)") }
                        return try Materializer.derive(ids, from: db)
                    }
                })
        }
    }

    /// The started derivation's timelines (none when nothing was started).
    mutating func wait() -> Result<[Materializer.Derived], any Error> {
        guard running else { return .success([]) }
        running = false
        return results.receive() ?? .success([])
    }
}

/// The transaction versions (id and rank) one import has written lately. Every v1 document repeats
/// its subscription's whole receipt; without this, each repeated transaction costs a lookup in the
/// transaction index, at a random place in it, only to find the same version there. A rank ends
/// with a hash of the version's content, so the same id and rank is the same version. Kept as
/// 128-bit digests.
///
/// Only a hint: forgetting a version costs that lookup, never a wrong row (the store keeps the
/// highest rank whatever is written). So it holds at most `budgetBytes`, in two generations: when
/// the newer one is full the older is dropped, and a version found in the older one moves to the
/// newer, so the receipts of subscriptions still renewing stay. Without the bound it held every
/// version of the import: at 1,000,000 subscribers about 3.4 million, a 128 MiB table and 192 MiB
/// while it last doubled (docs/performance.md, "An import's memory").
struct WrittenVersions {
    private struct Key: Hashable {
        var a: Int
        var b: Int
    }

    /// Memory of both generations together. 16 MiB hold two generations of 393,216 versions: the
    /// newer alone holds every version of a 100,000-subscriber import (about 342,000), and a
    /// larger one forgets only versions not seen again for the last few hundred thousand written.
    static let defaultBudgetBytes = 16 << 20

    /// Versions one generation holds: its table of 16-byte keys, a power of two of buckets at
    /// most three quarters full (how `Set` grows), fits half the budget.
    let generationCapacity: Int
    /// The first generation grows as `Set`s do, so a small import's table stays small (at most
    /// one and a half halves of the budget while it doubles); a later one is made whole at once.
    private var newer = Set<Key>()
    private var older = Set<Key>()

    init(budgetBytes: Int = Self.defaultBudgetBytes) {
        let buckets = max(16, budgetBytes / 2 / MemoryLayout<Key>.stride)
        // The largest power of two not above `buckets`, three quarters of it usable.
        let power = 1 << (Int.bitWidth - 1 - buckets.leadingZeroBitCount)
        generationCapacity = power / 4 * 3
    }

    /// How many versions it holds (both generations).
    var count: Int { newer.count + older.count }

    /// Bytes its tables take.
    var tableBytes: Int { (newer.capacity + older.capacity) / 3 * 4 * MemoryLayout<Key>.stride }

    /// Records the version; false when it was written before (and not forgotten since).
    mutating func insert(_ transactionId: String, rank: String) -> Bool {
        var first = Hasher()
        var second = Hasher()
        first.combine(0 as UInt8)
        first.combine(transactionId)
        first.combine(rank)
        second.combine(1 as UInt8)
        second.combine(transactionId)
        second.combine(rank)
        let key = Key(a: first.finalize(), b: second.finalize())
        if newer.contains(key) { return false }
        let known = older.remove(key) != nil
        if newer.count >= generationCapacity {
            older = newer
            newer = Set(minimumCapacity: generationCapacity)
        }
        newer.insert(key)
        return !known
    }
}
