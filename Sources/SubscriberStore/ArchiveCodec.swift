import CZlib
import CZstd
import Crypto
import Foundation
import GRDB
import ThreadKit

/// A document's bytes as the archive keeps them.
public struct ArchivedBody: Sendable, Equatable {
    /// The stored bytes.
    public var data: Data
    /// nil: `data` is the document (or its layout) as it is; `zstd` or `zlib`: compressed so.
    public var encoding: String?
    /// nil: the document as it arrived; `jws`: its compact layout (`JWSLayout`), `data` starting
    /// with the layout's length (LEB128) before compression.
    public var layout: String?
    /// The certificate chains the layout refers to, by index (`archiveChain` rows when stored).
    public var chains: [ArchiveChain]
    /// The `archiveDictionary` row a zstd body was compressed with (``ArchiveDictionaries``); nil:
    /// none.
    public var dictionary: Int64?

    public init(
        data: Data, encoding: String?, layout: String? = nil, chains: [ArchiveChain] = [], dictionary: Int64? = nil
    ) {
        self.data = data
        self.encoding = encoding
        self.layout = layout
        self.chains = chains
        self.dictionary = dictionary
    }
}

/// One certificate chain (an `x5c` array's text) kept once in the store, keyed by its sha256.
public struct ArchiveChain: Sendable, Equatable {
    public var text: Data
    public var sha256: Data

    public init(text: Data) {
        self.text = text
        self.sha256 = Data(SHA256.hash(data: text))
    }
}

/// The archive keeps every document (docs/architecture.md, "The store"). App Store payloads are
/// verbose JSON (a v1 notification repeats the whole receipt history, a v2 one carries three
/// certificate chains), so they are compressed unless that saves nothing: with zstd at its
/// fastest level when `libzstd.so.1` can be loaded at run time, else with zlib at its fastest
/// level (docs/performance.md, "Archive compression", has the figures for both). The build needs
/// no zstd headers; a body stored as zstd reads back wherever the library loads, and elsewhere
/// fails with a message naming the package to install — nothing is rewritten.
public struct ArchiveCodec: Sendable {
    /// Bodies shorter than this are stored as they are: the frame would eat the gain.
    static let smallest = 256
    static let zstdLevel: Int32 = 1
    static let zlibLevel: Int32 = 1

    /// Whether new bodies are compressed with zstd (else zlib) and zstd bodies can be read.
    public let zstdAvailable: Bool
    /// A store's trained dictionaries, which new bodies of their kind are compressed with; nil:
    /// none (every body compressed on its own).
    public let dictionaries: ArchiveDictionaries?

    /// The codec of this process: zstd when `libzstd.so.1` loads (and `SUBDASH_DISABLE_ZSTD` is
    /// unset), zlib otherwise.
    public static let current = ArchiveCodec(zstdAvailable: czstd_load() != 0)

    /// Why zstd is not available in this process; nil when it is.
    public static var zstdUnavailableReason: String? {
        czstd_load_error().map { String(cString: $0) }
    }

    public init(zstdAvailable: Bool, dictionaries: ArchiveDictionaries? = nil) {
        self.zstdAvailable = zstdAvailable
        self.dictionaries = zstdAvailable ? dictionaries : nil
    }

    public static func archive(_ body: Data) -> ArchivedBody { current.archive(body) }

    public func archive(_ body: Data) -> ArchivedBody {
        if let packed = JWSLayout.pack(body) {
            var data = Data()
            var prefix: [UInt8] = []
            appendLength(packed.bytes.count, to: &prefix)
            data.append(contentsOf: prefix)
            let dictionary = dictionaries?.compressor(.jws)
            let compressed =
                zstdAvailable
                ? Self.zstdCompress(Data(packed.bytes), dictionary: dictionary?.handle) : Self.zlibCompress(Data(packed.bytes))
            let encoding: String?
            var used: Int64?
            if let compressed, compressed.count < packed.bytes.count {
                data.append(compressed)
                encoding = zstdAvailable ? "zstd" : "zlib"
                used = dictionary?.id
            } else {
                data.append(contentsOf: packed.bytes)
                encoding = nil
            }
            if data.count < body.count {
                return ArchivedBody(
                    data: data, encoding: encoding, layout: "jws", chains: packed.chains.map(ArchiveChain.init),
                    dictionary: used)
            }
        }
        return archiveAsReceived(body)
    }

    /// The document as it arrived, compressed when that saves space (the layout of every document
    /// before migration v30, and of those the compact layout does not give back exactly).
    public func archiveAsReceived(_ body: Data) -> ArchivedBody {
        guard body.count >= Self.smallest else { return ArchivedBody(data: body, encoding: nil) }
        let encoding = zstdAvailable ? "zstd" : "zlib"
        let dictionary = dictionaries?.compressor(.received)
        let packed = zstdAvailable ? Self.zstdCompress(body, dictionary: dictionary?.handle) : Self.zlibCompress(body)
        guard let packed, packed.count < body.count else { return ArchivedBody(data: body, encoding: nil) }
        return ArchivedBody(data: packed, encoding: encoding, dictionary: dictionary?.id)
    }

    /// `body` compressed again with its kind's dictionary, when one is trained and that saves
    /// space; nil otherwise. For a body made before the dictionary was (the importer's documents in
    /// flight when it was trained): the bytes before compression are the same, so nothing is
    /// unpacked. `originalCount`: the document's length.
    public func withDictionary(_ body: ArchivedBody, originalCount: Int) -> ArchivedBody? {
        guard body.dictionary == nil, body.encoding == "zstd", zstdAvailable,
            let dictionary = dictionaries?.compressor(ArchiveDictionaries.kind(layout: body.layout))
        else { return nil }
        var prefix = Data()
        let plain: Data?
        switch body.layout {
        case nil: plain = Self.zstdDecompress(body.data, originalCount: originalCount)
        case "jws":
            var reader = JWSLayout.Reader(bytes: [UInt8](body.data.prefix(10)), chains: [])
            guard let count = try? reader.length(), count <= originalCount * 2 + 64 else { return nil }
            prefix = body.data.prefix(reader.position)
            plain = Self.zstdDecompress(Data(body.data.dropFirst(reader.position)), originalCount: count)
        default: return nil
        }
        guard let plain, let compressed = Self.zstdCompress(plain, dictionary: dictionary.handle),
            prefix.count + compressed.count < body.data.count
        else { return nil }
        var again = body
        again.data = prefix + compressed
        again.dictionary = dictionary.id
        return again
    }

    public static func restore(_ stored: ArchivedBody, originalCount: Int, chains: [Data] = []) throws -> Data {
        try current.restore(stored, originalCount: originalCount, chains: chains)
    }

    /// The original bytes, or an error saying why they cannot be had. `chains`: the texts of the
    /// certificate chains a compact layout refers to, in its order. A body compressed with a
    /// dictionary is read through the store (`AppDatabase.restoreArchived`).
    public func restore(_ stored: ArchivedBody, originalCount: Int, chains: [Data] = []) throws -> Data {
        try restore(stored, originalCount: originalCount, chains: chains, dictionary: nil)
    }

    /// `restore` with the dictionary `stored.dictionary` names.
    func restore(
        _ stored: ArchivedBody, originalCount: Int, chains: [Data], dictionary: DecompressionDictionary?
    ) throws -> Data {
        guard (stored.dictionary == nil) == (dictionary == nil) else {
            throw StoreError("this document's archived bytes are damaged (dictionary)")
        }
        switch stored.layout {
        case nil:
            return try decompress(stored.data, encoding: stored.encoding, originalCount: originalCount, dictionary: dictionary)
        case "jws":
            var reader = JWSLayout.Reader(bytes: [UInt8](stored.data.prefix(10)), chains: [])
            guard let packedCount = try? reader.length(), packedCount <= originalCount * 2 + 64 else {
                throw StoreError("this document's archived bytes are damaged (jws)")
            }
            let packed = try decompress(
                stored.data.dropFirst(reader.position), encoding: stored.encoding, originalCount: packedCount,
                dictionary: dictionary)
            guard let restored = try? JWSLayout.unpack(packed, chains: chains), restored.count == originalCount else {
                throw StoreError("this document's archived bytes are damaged (jws)")
            }
            return restored
        case let other?:
            throw StoreError("this document is archived in an unknown layout '\(other)'")
        }
    }

    func decompress(
        _ data: Data, encoding: String?, originalCount: Int, dictionary: DecompressionDictionary? = nil
    ) throws -> Data {
        let data = Data(data)
        let restored: Data?
        switch encoding {
        case nil: restored = data
        case "zlib": restored = Self.zlibDecompress(data, originalCount: originalCount)
        case "zstd":
            guard zstdAvailable else {
                throw StoreError(
                    """
                    this document is archived compressed with zstd, and the zstd library could not be loaded \
                    (\(Self.zstdUnavailableReason ?? "disabled")); install it (Debian and Ubuntu: apt-get install libzstd1) \
                    to read it. Nothing in the store was changed.
                    """)
            }
            restored = Self.zstdDecompress(data, originalCount: originalCount, dictionary: dictionary)
        case let other?:
            throw StoreError("this document is archived with an unknown encoding '\(other)'")
        }
        guard let restored else {
            throw StoreError("this document's archived bytes are damaged (\(encoding ?? "raw"))")
        }
        return restored
    }

    // MARK: - zstd

    /// Compression contexts kept between documents: creating one costs more than compressing a
    /// typical payload.
    private static let pool = ContextPool(make: { CompressionContext() })

    /// Decompression contexts, for bodies compressed with a dictionary.
    private static let decompressionPool = ContextPool(make: { DecompressionContext() })

    static func zstdCompress(_ input: Data, dictionary: CompressionDictionary? = nil) -> Data? {
        let context = pool.take()
        defer { pool.give(context) }
        let bound = czstd_compress_bound(input.count)
        var output = Data(count: bound)
        let written = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { source in
                if let dictionary {
                    czstd_compress_cdict(
                        context.pointer, out.baseAddress, bound, source.baseAddress, input.count, dictionary.pointer)
                } else {
                    czstd_compress_cctx(context.pointer, out.baseAddress, bound, source.baseAddress, input.count, zstdLevel)
                }
            }
        }
        guard czstd_is_error(written) == 0 else { return nil }
        output.count = written
        return output
    }

    static func zstdDecompress(_ input: Data, originalCount: Int, dictionary: DecompressionDictionary? = nil) -> Data? {
        guard !input.isEmpty else { return nil }
        var output = Data(count: max(originalCount, 1))
        let written = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { source in
                if let dictionary {
                    let context = decompressionPool.take()
                    defer { decompressionPool.give(context) }
                    return czstd_decompress_ddict(
                        context.pointer, out.baseAddress, originalCount, source.baseAddress, input.count, dictionary.pointer)
                }
                return czstd_decompress(out.baseAddress, originalCount, source.baseAddress, input.count)
            }
        }
        guard czstd_is_error(written) == 0, written == originalCount else { return nil }
        output.count = written
        return output
    }

    // MARK: - zlib

    static func zlibCompress(_ input: Data) -> Data? {
        var capacity = compressBound(uLong(input.count))
        var output = Data(count: Int(capacity))
        let status = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { source in
                compress2(
                    out.baseAddress!.assumingMemoryBound(to: Bytef.self), &capacity,
                    source.baseAddress!.assumingMemoryBound(to: Bytef.self), uLong(input.count), zlibLevel)
            }
        }
        guard status == Z_OK else { return nil }
        output.count = Int(capacity)
        return output
    }

    static func zlibDecompress(_ input: Data, originalCount: Int) -> Data? {
        guard !input.isEmpty else { return nil }
        var length = uLongf(originalCount)
        var output = Data(count: max(originalCount, 1))
        let status = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { source in
                uncompress(
                    out.baseAddress!.assumingMemoryBound(to: Bytef.self), &length,
                    source.baseAddress!.assumingMemoryBound(to: Bytef.self), uLong(input.count))
            }
        }
        guard status == Z_OK, Int(length) == originalCount else { return nil }
        output.count = originalCount
        return output
    }
}

/// One zstd compression context. `@unchecked Sendable`: a context moves between threads but is used
/// by one at a time (`ContextPool` hands each to one caller until it is given back).
final class CompressionContext: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer

    init() { pointer = czstd_create_cctx() }

    deinit { czstd_free_cctx(pointer) }
}

/// One zstd decompression context, for bodies compressed with a dictionary (`@unchecked Sendable`
/// as ``CompressionContext``).
final class DecompressionContext: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer

    init() { pointer = czstd_create_dctx() }

    deinit { czstd_free_dctx(pointer) }
}

/// Contexts shared by the import's decoding threads.
final class ContextPool<Context: Sendable>: Sendable {
    private let idle = BlockingChannel<Context>(capacity: .max)
    private let make: @Sendable () -> Context

    init(make: @escaping @Sendable () -> Context) { self.make = make }

    func take() -> Context { idle.receive(before: .distantPast) ?? make() }

    func give(_ context: Context) { idle.send(context) }
}

extension AppDatabase {
    /// The columns of `document` the one decoder (`restoreArchived`) reads, for a SELECT; `alias`:
    /// the table's alias in it, if any.
    public static func archiveColumns(_ alias: String = "") -> String {
        let p = alias.isEmpty ? "" : "\(alias)."
        return "\(p)body, \(p)bodyEncoding, \(p)bodyLayout, \(p)bodyChains, \(p)bodyDictionary, \(p)byteCount"
    }

    /// A document's bytes exactly as they arrived from its row (read with `archiveColumns`), in
    /// whichever layout and encoding it is kept; nil when it has no archived body (too large to
    /// keep). Every reader of the archive goes through here (docs/architecture.md, "The archive's
    /// layout").
    public func restoreArchived(_ row: Row, _ db: Database) throws -> Data? {
        guard let data = row["body"] as Data? else { return nil }
        let layout: String? = row["bodyLayout"]
        var chains: [Data] = []
        if layout != nil {
            for id in (row["bodyChains"] as String? ?? "").split(separator: " ") {
                guard let id = Int64(id) else { throw StoreError("this document's archived bytes are damaged (chains)") }
                chains.append(try archiveChains.text(id: id, db))
            }
        }
        let dictionary: Int64? = row["bodyDictionary"]
        return try archiveCodec.restore(
            ArchivedBody(data: data, encoding: row["bodyEncoding"], layout: layout, dictionary: dictionary),
            originalCount: row["byteCount"], chains: chains,
            dictionary: try dictionary.map { try archiveDictionaries.decompressor($0, db) })
    }

    /// The archived bytes of a document exactly as they arrived; nil when the store does not have
    /// them (unknown sha256, or a document too large to keep).
    public func archivedBody(sha256: String) throws -> Data? {
        try writer.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT \(Self.archiveColumns()) FROM document WHERE sha256 = ?", arguments: [sha256])
            else { return nil }
            return try restoreArchived(row, db)
        }
    }

    /// Every archived document in sha256 order, with its bytes as they arrived (or why they cannot
    /// be had), read in pages so memory stays bounded by the largest document.
    public func forEachArchivedDocument(
        _ body: (_ sha256: String, _ source: String, _ bytes: Result<Data, StoreError>?) throws -> Void
    ) throws {
        var after = ""
        let page = 256
        while true {
            let rows = try writer.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT sha256, source, \(Self.archiveColumns()) FROM document WHERE sha256 > ? ORDER BY sha256 LIMIT ?
                        """, arguments: [after, page]
                ).map { row -> (String, String, Result<Data, StoreError>?) in
                    let bytes: Result<Data, StoreError>? =
                        row["body"] == nil
                        ? nil
                        : Result { try restoreArchived(row, db)! }.mapError { $0 as? StoreError ?? StoreError("\($0)") }
                    return (row["sha256"], row["source"], bytes)
                }
            }
            for (sha, source, bytes) in rows {
                try body(sha, source, bytes)
                after = sha
            }
            if rows.count < page { return }
        }
    }
}

/// The certificate chains of a store's archive, read once (`archiveChain` rows are never changed
/// nor deleted, so an id always names the same text).
public final class ArchiveChainCache: @unchecked Sendable {
    private let lock = NSLock()
    private var texts: [Int64: Data] = [:]

    public init() {}

    func text(id: Int64, _ db: Database) throws -> Data {
        if let known = lock.withLock({ texts[id] }) { return known }
        guard let text = try Data.fetchOne(db, sql: "SELECT chain FROM archiveChain WHERE id = ?", arguments: [id]) else {
            throw StoreError("this document's archived bytes refer to a certificate chain the store does not have (\(id))")
        }
        lock.withLock { texts[id] = text }
        return text
    }
}
