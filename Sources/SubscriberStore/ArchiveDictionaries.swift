import CZstd
import Foundation
import GRDB

/// The archive's trained zstd dictionaries, one per kind of body (docs/architecture.md, "The
/// archive's layout"). A v2 notification's compact layout is mostly the same JSON keys and JWS
/// headers as every other one, which a compressor that sees one document at a time cannot share;
/// a dictionary trained on a store's first documents of a kind gives them to every later one
/// (docs/performance.md, "A dictionary per kind of body").
///
/// A dictionary is trained once a store holds ``threshold`` bodies of its kind (counted in
/// `archiveUntrained` as they are stored, so the rule is the store's, whichever process writes),
/// from the first of them, and is never changed nor deleted: a body names the one it was compressed with
/// (`document.bodyDictionary`), so it reads back with any later subdash. Without zstd's dictionary
/// functions (or without zstd) nothing is trained and bodies are compressed as before.
///
/// `@unchecked Sendable`: every field is behind `lock`; the zstd handles are read-only once made
/// (a cdict or ddict may be used by several threads at once).
public final class ArchiveDictionaries: @unchecked Sendable {
    /// The kinds of body a dictionary is trained for.
    public enum Kind: String, CaseIterable, Sendable {
        /// A JWS document's compact layout (`JWSLayout`): v2 notifications and signed API answers.
        case jws
        /// A document kept as it arrived: v1 notifications, receipts, other JSON.
        case received
    }

    /// Bodies of a kind stored before its dictionary is trained from them.
    public static let defaultThreshold = 1_000
    /// A dictionary's largest size: 16 KB compressed SampleData's layouts as well as 64 or 110 KB
    /// (docs/performance.md, "Per document, and a trained dictionary").
    static let capacity = 16 * 1024
    /// The level dictionaries compress at, as `ArchiveCodec` without one.
    static let level: Int32 = 1

    private let lock = NSLock()
    private var compressing: [Kind: (id: Int64, handle: CompressionDictionary)] = [:]
    private var decompressing: [Int64: DecompressionDictionary] = [:]
    /// The kinds whose training failed in this process (zstd could not train on the samples):
    /// not tried again until the next process.
    private var failed: Set<Kind> = []
    private var trainingThreshold: Int

    /// Whether zstd and its dictionary functions loaded in this process.
    public let available: Bool

    public init(threshold: Int = defaultThreshold, available: Bool = czstd_dictionaries_available() != 0) {
        trainingThreshold = threshold
        self.available = available
    }

    /// Bodies of a kind stored before its dictionary is trained (tests lower it).
    public var threshold: Int {
        get { lock.withLock { trainingThreshold } }
        set { lock.withLock { trainingThreshold = newValue } }
    }

    /// The kind of a body as `ArchiveCodec` lays it out.
    static func kind(layout: String?) -> Kind { layout == "jws" ? .jws : .received }

    /// The dictionary new bodies of `kind` are compressed with, if one is trained.
    func compressor(_ kind: Kind) -> (id: Int64, handle: CompressionDictionary)? {
        lock.withLock { compressing[kind] }
    }

    /// The dictionary `id`, read from the store the first time.
    func decompressor(_ id: Int64, _ db: Database) throws -> DecompressionDictionary {
        if let known = lock.withLock({ decompressing[id] }) { return known }
        guard available else {
            throw StoreError(
                """
                this document is archived compressed with zstd and a dictionary, and zstd's dictionary functions \
                could not be loaded (\(ArchiveCodec.zstdUnavailableReason ?? "libzstd.so.1 lacks them")); install \
                them (Debian and Ubuntu: apt-get install libzstd1) to read it. Nothing in the store was changed.
                """)
        }
        guard let bytes = try Data.fetchOne(db, sql: "SELECT dictionary FROM archiveDictionary WHERE id = ?", arguments: [id])
        else {
            throw StoreError("this document's archived bytes refer to a dictionary the store does not have (\(id))")
        }
        let handle = try DecompressionDictionary(bytes)
        lock.withLock { decompressing[id] = handle }
        return handle
    }

    /// Makes the store's dictionaries the ones new bodies are compressed with.
    func load(_ db: Database) throws {
        guard available, try db.tableExists("archiveDictionary") else { return }
        for row in try Row.fetchAll(db, sql: "SELECT id, kind, dictionary FROM archiveDictionary") {
            guard let kind = Kind(rawValue: row["kind"]) else { continue }
            try register(id: row["id"], kind: kind, bytes: row["dictionary"])
        }
    }

    private func register(id: Int64, kind: Kind, bytes: Data) throws {
        let compression = try CompressionDictionary(bytes)
        let decompression = try DecompressionDictionary(bytes)
        lock.withLock {
            compressing[kind] = (id, compression)
            decompressing[id] = decompression
        }
    }

    /// Whether bodies of `kind` are still counted towards its training: it has no dictionary and
    /// its training has not failed in this process.
    func untrained(_ kind: Kind) -> Bool {
        available && lock.withLock { compressing[kind] == nil && !failed.contains(kind) }
    }

    /// Adds `count` bodies of `kind` stored without a dictionary to the store's count; true when
    /// the store now holds enough of them to train one.
    func count(_ count: Int, _ kind: Kind, _ db: Database) throws -> Bool {
        guard count > 0 else { return false }
        let total = try Int.fetchOne(
            db,
            sql: """
                INSERT INTO archiveUntrained (kind, bodies) VALUES (?, ?)
                ON CONFLICT (kind) DO UPDATE SET bodies = bodies + excluded.bodies RETURNING bodies
                """, arguments: [kind.rawValue, count])
        return (total ?? 0) >= threshold
    }

    /// The dictionary of `kind`: the store's if it has one (another process may have trained it),
    /// else one trained from the first ``threshold`` bodies of the kind the store holds (nil when
    /// it holds fewer, or training fails). Runs in the caller's write transaction.
    func train(_ kind: Kind, _ db: Database, restore: (Row) throws -> Data?) throws -> Int64? {
        guard available else { return nil }
        if let row = try Row.fetchOne(
            db, sql: "SELECT id, dictionary FROM archiveDictionary WHERE kind = ?", arguments: [kind.rawValue])
        {
            // Trained by another process meanwhile: adopted.
            try db.execute(sql: "DELETE FROM archiveUntrained WHERE kind = ?", arguments: [kind.rawValue])
            try register(id: row["id"], kind: kind, bytes: row["dictionary"])
            return row["id"]
        }
        // A body still as received (stored before migration v30) is a sample of the kind it
        // becomes: the compact layout when it is JWS, else itself.
        let layout = kind == .jws ? "(bodyLayout = 'jws' OR bodyLayout IS NULL)" : "bodyLayout IS NULL"
        let wanted = threshold
        var samples = Data()
        var sizes: [Int] = []
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT \(AppDatabase.archiveColumns()) FROM document
                WHERE body IS NOT NULL AND \(layout) ORDER BY id
                """)
        while sizes.count < wanted, let row = try rows.next() {
            // A rejected document's kept prefix, or one that cannot be read here, is no sample.
            guard let original = try? restore(row), original.count == row["byteCount"] as Int else { continue }
            let packed = JWSLayout.pack(original).map { Data($0.bytes) }
            guard let sample = kind == .jws ? packed : (packed == nil ? original : nil), !sample.isEmpty else { continue }
            samples.append(sample)
            sizes.append(sample.count)
        }
        guard sizes.count >= wanted, sizes.count >= 10 else {
            // Fewer than the threshold: that is how many the store holds (the query read them all).
            try db.execute(
                sql: """
                    INSERT INTO archiveUntrained (kind, bodies) VALUES (?, ?)
                    ON CONFLICT (kind) DO UPDATE SET bodies = excluded.bodies
                    """, arguments: [kind.rawValue, sizes.count])
            return nil
        }
        var dictionary = Data(count: Self.capacity)
        let trained = dictionary.withUnsafeMutableBytes { out in
            samples.withUnsafeBytes { s in
                sizes.withUnsafeBufferPointer { z in
                    czstd_train_dictionary(out.baseAddress, Self.capacity, s.baseAddress, z.baseAddress, UInt32(sizes.count))
                }
            }
        }
        guard czstd_is_error(trained) == 0, trained > 0 else {
            lock.withLock { _ = failed.insert(kind) }
            return nil
        }
        dictionary.count = trained
        try db.execute(
            sql: "INSERT INTO archiveDictionary (kind, dictionary) VALUES (?, ?)", arguments: [kind.rawValue, dictionary])
        let id = db.lastInsertedRowID
        try db.execute(sql: "DELETE FROM archiveUntrained WHERE kind = ?", arguments: [kind.rawValue])
        try register(id: id, kind: kind, bytes: dictionary)
        return id
    }
}

/// A zstd dictionary prepared for compression (a `ZSTD_CDict`).
final class CompressionDictionary: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer

    init(_ bytes: Data) throws {
        guard let made = bytes.withUnsafeBytes({ czstd_create_cdict($0.baseAddress, bytes.count, ArchiveDictionaries.level) })
        else { throw StoreError("a zstd dictionary of the archive could not be prepared") }
        pointer = made
    }

    deinit { czstd_free_cdict(pointer) }
}

/// A zstd dictionary prepared for decompression (a `ZSTD_DDict`).
final class DecompressionDictionary: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer

    init(_ bytes: Data) throws {
        guard let made = bytes.withUnsafeBytes({ czstd_create_ddict($0.baseAddress, bytes.count) }) else {
            throw StoreError("a zstd dictionary of the archive could not be prepared")
        }
        pointer = made
    }

    deinit { czstd_free_ddict(pointer) }
}

extension AppDatabase {
    /// Writes documents through `FactWriter`, their bodies with their kind's dictionary: a body
    /// compressed before the dictionary was trained (in flight in the importer meanwhile, or from a
    /// caller without the store's codec) is compressed again here. Once the store holds
    /// ``ArchiveDictionaries/threshold`` bodies of a kind without one, the kind's dictionary is
    /// trained from the store's first bodies, and the bodies stored without it are converted, in
    /// this transaction.
    func writeDocuments(_ documents: [IncomingDocument], _ db: Database, written: inout WrittenVersions) throws -> BatchResult {
        let dictionaries = archiveDictionaries
        guard dictionaries.available else { return try FactWriter(db).apply(documents, written: &written) }
        let codec = archiveCodec
        var documents = documents
        var new: [ArchiveDictionaries.Kind: Int] = [:]
        var counted = Set<String>()
        let stored = try db.cachedStatement(sql: "SELECT 1 FROM document WHERE sha256 = ?")
        for index in documents.indices {
            guard let body = documents[index].archived, body.dictionary == nil, body.encoding == "zstd" else { continue }
            let kind = ArchiveDictionaries.kind(layout: body.layout)
            if let again = codec.withDictionary(body, originalCount: documents[index].byteCount) {
                documents[index].archived = again
            } else if dictionaries.untrained(kind), counted.insert(documents[index].sha256).inserted,
                try Int.fetchOne(stored, arguments: [documents[index].sha256]) == nil
            {
                // Counted while the kind has no dictionary (its first thousand bodies): a document
                // stored already is not stored again.
                new[kind, default: 0] += 1
            }
        }
        let result = try FactWriter(db).apply(documents, written: &written)
        for kind in ArchiveDictionaries.Kind.allCases where try dictionaries.count(new[kind] ?? 0, kind, db) {
            guard try dictionaries.train(kind, db, restore: { try restoreArchived($0, db) }) != nil else { continue }
            try convertToDictionary(kind, db)
        }
        return result
    }

    /// Bodies of `kind` converted to its dictionary per call: those stored before it was trained in
    /// this process. More (a store that held many before, say one whose dictionary another
    /// process trained) are left to the archive's conversion the next time the store opens.
    static let convertedAtTraining = 20_000

    /// Compresses the bodies of `kind` stored without its dictionary again with it (in `db`'s
    /// transaction), up to ``convertedAtTraining``; the rest, if any, are queued for
    /// `repackArchive`.
    func convertToDictionary(_ kind: ArchiveDictionaries.Kind, _ db: Database) throws {
        let layout = kind == .jws ? "bodyLayout = 'jws'" : "bodyLayout IS NULL"
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT id, \(Self.archiveColumns()) FROM document
                WHERE body IS NOT NULL AND bodyDictionary IS NULL AND bodyEncoding = 'zstd' AND \(layout)
                ORDER BY id LIMIT ?
                """, arguments: [Self.convertedAtTraining + 1])
        let update = try db.cachedStatement(sql: "UPDATE document SET body = ?, bodyDictionary = ? WHERE id = ?")
        let codec = archiveCodec
        for row in rows.prefix(Self.convertedAtTraining) {
            let body = ArchivedBody(
                data: row["body"], encoding: row["bodyEncoding"], layout: row["bodyLayout"], dictionary: nil)
            guard let again = codec.withDictionary(body, originalCount: row["byteCount"]) else { continue }
            try update.execute(arguments: [again.data, again.dictionary, row["id"]])
        }
        if rows.count > Self.convertedAtTraining {
            try db.execute(
                sql: """
                    INSERT INTO archiveRepack (id, doneThroughId, lastId)
                        SELECT 1, 0, MAX(id) FROM document WHERE body IS NOT NULL HAVING MAX(id) IS NOT NULL
                    ON CONFLICT (id) DO UPDATE SET doneThroughId = 0, lastId = excluded.lastId
                    """)
        }
    }
}
