import Foundation
import GRDB
import SubscriptionModel

/// The renewal details Apple added to v2 payloads (docs/metrics.md, "Renewal details from
/// Apple"), written beside a fact once the fact is stored: they are the same in every version of a
/// transaction and are not part of which version wins or of a renewal fact's identity.
extension FactWriter {
    func writeRenewalDetails(_ transactions: [TransactionFact], _ renewals: [RenewalFact]) throws {
        let withTransactionDetails = transactions.filter {
            $0.appTransactionId != nil || $0.offerPeriod != nil || $0.transactionReason != nil
        }
        if !withTransactionDetails.isEmpty {
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE "transaction" SET appTransactionId = COALESCE(?2, appTransactionId),
                        offerPeriod = COALESCE(?3, offerPeriod), transactionReason = COALESCE(?4, transactionReason)
                    WHERE transactionId = ?1
                    """)
            for t in withTransactionDetails {
                try statement.run(db, t.transactionId, t.appTransactionId, t.offerPeriod, t.transactionReason)
            }
        }
        let withRenewalDetails = renewals.filter {
            $0.renewalPrice != nil || $0.renewalCurrency != nil || $0.eligibleWinBackOfferIds != nil
                || $0.appTransactionId != nil || $0.offerPeriod != nil
        }
        if !withRenewalDetails.isEmpty {
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE renewalFact SET renewalPrice = ?4, renewalCurrency = ?5, eligibleWinBackOfferIds = ?6,
                        appTransactionId = ?7, offerPeriod = ?8
                    WHERE originalTransactionId = ?1 AND instant = ?2 AND contentHash = ?3
                    """)
            for r in withRenewalDetails {
                try statement.run(
                    db, r.originalTransactionId, r.instant.milliseconds, FactRank.contentHash(of: r), r.renewalPrice,
                    r.renewalCurrency, r.eligibleWinBackOfferIds.map(RenewalDetailColumns.offerIds),
                    r.appTransactionId, r.offerPeriod)
            }
        }
    }

    /// Fills in the billing plans and commitments (docs/metrics.md, "Billing plans and
    /// commitments") of the versions stored from a document read before they were kept: only the
    /// version this document gave (its rank or content hash without them) is changed, and it takes
    /// the rank and content hash an import of the document gives now, so Apple sending it again
    /// adds nothing. Returns the subscriptions changed.
    func fillCommitments(_ transactions: [TransactionFact], _ renewals: [RenewalFact]) throws -> Set<String> {
        var changed = Set<String>()
        let transaction = try db.cachedStatement(
            sql: """
                UPDATE "transaction" SET billingPlanType = ?3, commitmentPeriod = ?4, commitmentPeriods = ?5,
                    commitmentExpiresDate = ?6, commitmentPrice = ?7, rank = ?8
                WHERE transactionId = ?1 AND rank = ?2
                """)
        for t in transactions where t.billingPlanType != nil || t.commitment != nil {
            var before = t
            (before.billingPlanType, before.commitment) = (nil, nil)
            try transaction.run(
                db, t.transactionId, FactRank.rank(of: before), t.billingPlanType, t.commitment?.billingPeriodNumber,
                t.commitment?.totalBillingPeriods, t.commitment?.commitmentExpiresDate?.milliseconds,
                t.commitment?.commitmentPrice, FactRank.rank(of: t))
            if db.changesCount > 0 { changed.insert(t.originalTransactionId) }
        }
        let renewal = try db.cachedStatement(
            sql: """
                UPDATE OR IGNORE renewalFact SET contentHash = ?4, renewalBillingPlanType = ?5, commitmentInfo = ?6,
                    commitmentAutoRenewStatus = ?7, commitmentAutoRenewProductId = ?8,
                    commitmentRenewalBillingPlanType = ?9, commitmentRenewalDate = ?10, commitmentRenewalPrice = ?11
                WHERE originalTransactionId = ?1 AND instant = ?2 AND contentHash = ?3
                """)
        for r in renewals where r.renewalBillingPlanType != nil || r.commitment != nil {
            var before = r
            (before.renewalBillingPlanType, before.commitment) = (nil, nil)
            try renewal.run(
                db, r.originalTransactionId, r.instant.milliseconds, FactRank.contentHash(of: before),
                FactRank.contentHash(of: r), r.renewalBillingPlanType, r.commitment != nil,
                r.commitment?.commitmentAutoRenewStatus, r.commitment?.commitmentAutoRenewProductId,
                r.commitment?.commitmentRenewalBillingPlanType, r.commitment?.commitmentRenewalDate?.milliseconds,
                r.commitment?.commitmentRenewalPrice)
            if db.changesCount > 0 { changed.insert(r.originalTransactionId) }
        }
        return changed
    }

    /// Moves transactions the archive names as another product type than an auto-renewable
    /// subscription out of the facts (into `nonSubscriptionTransaction`, kept); returns their
    /// subscriptions, to be derived again. A notification about one no longer names a
    /// subscription, as one imported now does not.
    func setAside(nonSubscriptionTransactionIds ids: [String]) throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        let find = try db.cachedStatement(sql: #"SELECT originalTransactionId FROM "transaction" WHERE transactionId = ?"#)
        let keep = try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO nonSubscriptionTransaction
                    (transactionId, originalTransactionId, productId, purchaseDate, environment, price, currency)
                SELECT transactionId, originalTransactionId, productId, purchaseDate, environment, price, currency
                FROM "transaction" WHERE transactionId = ?
                """)
        let remove = try db.cachedStatement(sql: #"DELETE FROM "transaction" WHERE transactionId = ?"#)
        let unlink = try db.cachedStatement(
            sql: "UPDATE notification SET originalTransactionId = NULL WHERE transactionId = ?1 AND originalTransactionId = ?2")
        var touched = Set<String>()
        for id in ids {
            guard let subscription = try String.fetchOne(find, arguments: [id]) else { continue }
            try keep.run(db, id)
            try remove.run(db, id)
            try unlink.run(db, id, subscription)
            touched.insert(subscription)
        }
        return touched
    }
}

/// How the renewal details' columns hold a list.
enum RenewalDetailColumns {
    /// One id per line ('' an empty list): an id holds no control character (the decoder rejects one).
    static func offerIds(_ ids: [String]) -> String { ids.joined(separator: "\n") }

    static func offerIds(_ stored: String?) -> [String]? {
        stored.map { $0.isEmpty ? [] : $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    }
}

/// Reads a stored document's bytes into facts again; set by the process (the decoder lives above
/// the store), used by ``AppDatabase/rereadArchive(decode:progress:)`` when a migration asked for it.
public typealias ArchiveDocumentDecoder = @Sendable (Data) throws -> DocumentFacts

extension AppDatabase {
    /// The decoder stores opened by this process read their archive with when a migration
    /// queued documents (`pendingArchiveDocument`); nil: they stay queued until a process that
    /// has one opens the store.
    public static var archiveDecoder: ArchiveDocumentDecoder? {
        get { ArchiveDecoderSlot.shared.get() }
        set { ArchiveDecoderSlot.shared.set(newValue) }
    }

    /// Whether documents wait to be read again from the archive.
    static func hasPendingArchiveDocuments(_ db: Database) throws -> Bool {
        guard try db.tableExists("pendingArchiveDocument") else { return false }
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pendingArchiveDocument)") ?? false
    }

    /// Reads the queued documents again from the archive (documents applied before a migration
    /// added what is read from them now): writes their renewal details, sets aside their
    /// non-subscription transactions, marks the subscriptions that changed pending and derives
    /// them again; billing plans and commitments (migration v22) are filled in the same way. A
    /// document that no longer decodes keeps the facts it gave (it was accepted when
    /// it arrived). `pageSize` documents per transaction, so an interruption loses one page's work.
    /// Returns how many documents were read.
    @discardableResult
    public func rereadArchive(decode: ArchiveDocumentDecoder, pageSize: Int = 256) throws -> Int {
        var read = 0
        while true {
            let page = try writer.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT p.sha256, \(Self.archiveColumns("d")) FROM pendingArchiveDocument p
                        LEFT JOIN document d ON d.sha256 = p.sha256 ORDER BY p.sha256 LIMIT ?
                        """, arguments: [pageSize]
                ).map { row in (sha256: row["sha256"] as String, body: try? restoreArchived(row, db)) }
            }
            guard !page.isEmpty else { break }
            var decoded: [(sha256: String, facts: DocumentFacts?)] = []
            for (sha, body) in page {
                decoded.append((sha, body.flatMap { try? decode($0) }))
            }
            try writer.write { db in
                let writer = FactWriter(db)
                var touched = Set<String>()
                let done = try db.cachedStatement(sql: "DELETE FROM pendingArchiveDocument WHERE sha256 = ?")
                for (sha, facts) in decoded {
                    if let facts {
                        touched.formUnion(try writer.setAside(nonSubscriptionTransactionIds: facts.nonSubscriptionTransactionIds))
                        // Before the renewal details: they find a renewal fact by its content hash as imported now.
                        touched.formUnion(try writer.fillCommitments(facts.transactions, facts.renewals))
                        try writer.writeRenewalDetails(facts.transactions, facts.renewals)
                        for t in facts.transactions
                        where t.appTransactionId != nil || t.offerPeriod != nil || t.transactionReason != nil {
                            touched.insert(t.originalTransactionId)
                        }
                        for r in facts.renewals
                        where r.renewalPrice != nil || r.eligibleWinBackOfferIds != nil || r.appTransactionId != nil {
                            touched.insert(r.originalTransactionId)
                        }
                    }
                    try done.run(db, sha)
                }
                let pending = try db.cachedStatement(sql: "INSERT INTO pendingSubscription VALUES (?) ON CONFLICT DO NOTHING")
                for id in touched.sorted() { try pending.run(db, id) }
            }
            read += decoded.count
        }
        if read > 0 { try rebuildPending() }
        return read
    }
}

extension AppDatabase {
    /// Every subscription with this `appTransactionId` on a transaction or a renewal fact, sorted.
    public func subscriptions(sharingAppTransactionId id: String) throws -> [String] {
        try writer.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT originalTransactionId FROM "transaction" WHERE appTransactionId = ?1
                    UNION SELECT originalTransactionId FROM renewalFact WHERE appTransactionId = ?1
                    ORDER BY 1
                    """, arguments: [id])
        }
    }
}

/// The process's archive decoder, behind a lock.
final class ArchiveDecoderSlot: @unchecked Sendable {
    static let shared = ArchiveDecoderSlot()
    private let lock = NSLock()
    private var decoder: ArchiveDocumentDecoder?

    func get() -> ArchiveDocumentDecoder? { lock.withLock { decoder } }
    func set(_ d: ArchiveDocumentDecoder?) { lock.withLock { decoder = d } }
}

extension EligibilityReads {
    /// Apple's win-back offer ids for each of `ids` that has a list (docs/metrics.md, "Renewal
    /// details from Apple"): from its latest v2 renewal fact at or before as-of carrying
    /// `eligibleWinBackOfferIds`. One statement over the whole id list (a primary-key range read
    /// per id inside SQLite): a statement per id cost about 5 µs each, 0.07 s of `report
    /// eligibility` at 100,000 subscribers (docs/performance.md).
    public func appleWinBackOfferIds(of ids: [String]) throws -> [String: [String]] {
        guard !ids.isEmpty else { return [:] }
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT ids.value, (
                    SELECT r.eligibleWinBackOfferIds FROM renewalFact r
                    WHERE r.originalTransactionId = ids.value AND r.instant <= ?2 AND r.isV1 = 0 AND r.unverified = 0
                        AND r.eligibleWinBackOfferIds IS NOT NULL
                    ORDER BY r.instant DESC, r.contentHash DESC LIMIT 1)
                FROM json_each(?1) ids
                """,
            arguments: [String(decoding: try JSONEncoder().encode(ids), as: UTF8.self), asOf])
        var found: [String: [String]] = [:]
        while let row = try rows.next() {
            if let offers = RenewalDetailColumns.offerIds(row[1] as String?), !offers.isEmpty { found[row[0]] = offers }
        }
        return found
    }
}
