import Foundation

/// Removes the app's shared secret from a document before it is archived: a v1 notification
/// carries it as `"password": "…"`, and the archive is no place for a credential.
public enum SecretRedaction {
    /// What each byte of the secret becomes: the length is kept, so the archive's size check
    /// still holds and offsets in rejection messages still point at the same bytes.
    public static let placeholder = UInt8(ascii: "*")

    /// `bytes` with every byte of the string value of every `"password"` member replaced by `*`;
    /// the bytes themselves when there is none. Every v1 notification has one, so this runs once
    /// per document: the key is looked for at each quote (found with `memchr`) and the value
    /// overwritten in a copy, rather than
    /// the document rebuilt byte by byte (which was 8 % of a v1 import's CPU time).
    public static func redacted(_ bytes: Data) -> Data {
        let values = bytes.withUnsafeBytes { secretValues(in: $0) }
        guard !values.isEmpty else { return bytes }
        var out = bytes
        out.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
            for range in values {
                for i in range { buffer[i] = placeholder }
            }
        }
        return out
    }

    private static let key = Array(#""password""#.utf8)

    /// The byte ranges of the string values of every `"password"` member (between the quotes).
    private static func secretValues(in b: UnsafeRawBufferPointer) -> [Range<Int>] {
        guard let base = b.baseAddress, b.count >= key.count else { return [] }
        var found: [Range<Int>] = []
        var i = 0
        while i + key.count <= b.count {
            guard let quote = memchr(base + i, Int32(UInt8(ascii: "\"")), b.count - i) else { break }
            let at = base.distance(to: UnsafeRawPointer(quote))
            guard at + key.count <= b.count else { break }
            guard key.withUnsafeBytes({ $0.baseAddress.map { memcmp(base + at, $0, key.count) } }) == 0 else {
                i = at + 1
                continue
            }
            var j = at + key.count
            i = j
            while j < b.count, isSpace(b[j]) { j += 1 }
            guard j < b.count, b[j] == UInt8(ascii: ":") else { continue }
            j += 1
            while j < b.count, isSpace(b[j]) { j += 1 }
            guard j < b.count, b[j] == UInt8(ascii: "\"") else { continue }
            var end = j + 1
            while end < b.count, b[end] != UInt8(ascii: "\"") { end += b[end] == UInt8(ascii: "\\") ? 2 : 1 }
            end = min(end, b.count)
            found.append((j + 1)..<end)
            i = end
        }
        return found
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
}
