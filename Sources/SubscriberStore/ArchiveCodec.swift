import CZlib
import Foundation
import GRDB

/// A document's bytes as the archive keeps them.
public struct ArchivedBody: Sendable, Equatable {
    /// The stored bytes.
    public var data: Data
    /// nil: `data` is the document as it arrived; `zlib`: `data` is it deflated (RFC 1950).
    public var encoding: String?
}

/// The archive keeps every document (DESIGN §2). App Store payloads are verbose JSON (a v1
/// notification repeats the whole receipt history, a v2 one carries three certificate chains), so
/// they are deflated at the fastest level — about a fifth of the size — unless that saves nothing.
public enum ArchiveCodec {
    /// Bodies shorter than this are stored as they are: deflate's framing would eat the gain.
    static let smallest = 256

    public static func archive(_ body: Data) -> ArchivedBody {
        guard body.count >= smallest, let deflated = deflate(body), deflated.count < body.count else {
            return ArchivedBody(data: body, encoding: nil)
        }
        return ArchivedBody(data: deflated, encoding: "zlib")
    }

    /// The original bytes; nil when the stored bytes are damaged or the encoding unknown.
    public static func restore(_ stored: ArchivedBody, originalCount: Int) -> Data? {
        switch stored.encoding {
        case nil: return stored.data
        case "zlib": return inflate(stored.data, originalCount: originalCount)
        default: return nil
        }
    }

    static func deflate(_ input: Data) -> Data? {
        var bound = compressBound(uLong(input.count))
        var output = Data(count: Int(bound))
        let status = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { source in
                compress2(out.baseAddress!.assumingMemoryBound(to: Bytef.self), &bound,
                          source.baseAddress!.assumingMemoryBound(to: Bytef.self), uLong(input.count), 1)
            }
        }
        guard status == Z_OK else { return nil }
        output.count = Int(bound)
        return output
    }

    static func inflate(_ input: Data, originalCount: Int) -> Data? {
        guard !input.isEmpty else { return nil }
        var length = uLongf(max(originalCount, 1))
        var output = Data(count: Int(length))
        let status = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { source in
                uncompress(out.baseAddress!.assumingMemoryBound(to: Bytef.self), &length,
                           source.baseAddress!.assumingMemoryBound(to: Bytef.self), uLong(input.count))
            }
        }
        guard status == Z_OK, Int(length) == originalCount else { return nil }
        return output
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
