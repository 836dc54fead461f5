import CZstd
import Foundation
import GRDB

/// A document's bytes as the archive keeps them.
public struct ArchivedBody: Sendable, Equatable {
    /// The stored bytes.
    public var data: Data
    /// nil: `data` is the document as it arrived; `zstd`: `data` is it compressed by zstd.
    public var encoding: String?
}

/// The archive keeps every document (DESIGN §2). App Store payloads are verbose JSON (a v1
/// notification repeats the whole receipt history, a v2 one carries three certificate chains), so
/// they are compressed with zstd at its fastest level (a fifth of the size, at several hundred
/// MB/s) unless that saves nothing.
public enum ArchiveCodec {
    /// Bodies shorter than this are stored as they are: the frame would eat the gain.
    static let smallest = 256
    static let level: Int32 = 1

    public static func archive(_ body: Data) -> ArchivedBody {
        guard body.count >= smallest, let packed = compress(body), packed.count < body.count else {
            return ArchivedBody(data: body, encoding: nil)
        }
        return ArchivedBody(data: packed, encoding: "zstd")
    }

    /// The original bytes; nil when the stored bytes are damaged or the encoding unknown.
    public static func restore(_ stored: ArchivedBody, originalCount: Int) -> Data? {
        switch stored.encoding {
        case nil: return stored.data
        case "zstd": return decompress(stored.data, originalCount: originalCount)
        default: return nil
        }
    }

    /// Compression contexts kept between documents: creating one costs more than compressing a
    /// typical payload.
    private static let pool = ContextPool()

    static func compress(_ input: Data) -> Data? {
        let context = pool.take()
        defer { pool.give(context) }
        let bound = ZSTD_compressBound(input.count)
        var output = Data(count: bound)
        let written = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { source in
                ZSTD_compressCCtx(context.pointer, out.baseAddress, bound, source.baseAddress, input.count, level)
            }
        }
        guard ZSTD_isError(written) == 0 else { return nil }
        output.count = written
        return output
    }

    static func decompress(_ input: Data, originalCount: Int) -> Data? {
        guard !input.isEmpty else { return nil }
        var output = Data(count: max(originalCount, 1))
        let written = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { source in
                ZSTD_decompress(out.baseAddress, originalCount, source.baseAddress, input.count)
            }
        }
        guard ZSTD_isError(written) == 0, written == originalCount else { return nil }
        output.count = written
        return output
    }
}

/// One zstd compression context.
final class CompressionContext {
    let pointer: OpaquePointer

    init() { pointer = ZSTD_createCCtx() }

    deinit { ZSTD_freeCCtx(pointer) }
}

/// Contexts shared by the import's decoding threads.
final class ContextPool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [CompressionContext] = []

    func take() -> CompressionContext {
        lock.lock(); defer { lock.unlock() }
        return idle.popLast() ?? CompressionContext()
    }

    func give(_ context: CompressionContext) {
        lock.lock(); idle.append(context); lock.unlock()
    }
}

extension AppDatabase {
    /// The archived bytes of a document exactly as they arrived; nil when the store does not have
    /// them (unknown sha256, or a document too large to keep).
    public func archivedBody(sha256: String) throws -> Data? {
        try writer.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT body, bodyEncoding, byteCount FROM document WHERE sha256 = ?",
                                             arguments: [sha256]),
                  let data = row["body"] as Data? else { return nil }
            return ArchiveCodec.restore(ArchivedBody(data: data, encoding: row["bodyEncoding"]), originalCount: row["byteCount"])
        }
    }
}
