import Foundation

/// Removes the app's shared secret from a document before it is archived: a v1 notification
/// carries it as `"password": "…"`, and the archive is no place for a credential.
public enum SecretRedaction {
    /// What each byte of the secret becomes: the length is kept, so the archive's size check
    /// still holds and offsets in rejection messages still point at the same bytes.
    public static let placeholder = UInt8(ascii: "*")

    /// `bytes` with every byte of the string value of every `"password"` member replaced by `*`;
    /// the bytes themselves when there is none (the common case costs one search).
    public static func redacted(_ bytes: Data) -> Data {
        let key = Data(#""password""#.utf8)
        guard bytes.range(of: key) != nil else { return bytes }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        let b = [UInt8](bytes)
        let k = [UInt8](key)
        var i = 0
        while i < b.count {
            if b[i] == k[0], i + k.count <= b.count, b[i..<(i + k.count)].elementsEqual(k) {
                var j = i + k.count
                while j < b.count, b[j] == 0x20 || b[j] == 0x09 || b[j] == 0x0A || b[j] == 0x0D { j += 1 }
                if j < b.count, b[j] == UInt8(ascii: ":") {
                    j += 1
                    while j < b.count, b[j] == 0x20 || b[j] == 0x09 || b[j] == 0x0A || b[j] == 0x0D { j += 1 }
                    if j < b.count, b[j] == UInt8(ascii: "\"") {
                        // Copy through the opening quote, skip the value to its closing quote.
                        out += b[i...j]
                        var end = j + 1
                        while end < b.count, b[end] != UInt8(ascii: "\"") { end += b[end] == UInt8(ascii: "\\") ? 2 : 1 }
                        end = min(end, b.count)
                        out += [UInt8](repeating: placeholder, count: end - (j + 1))
                        i = end
                        continue
                    }
                }
            }
            out.append(b[i])
            i += 1
        }
        return Data(out)
    }
}
