/// Base64 straight into a byte buffer: standard alphabet with padding (x5c certificates) and
/// the URL-safe alphabet without padding (JWS segments, RFC 7515).
enum Base64 {
    private static let standard: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let url: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func append<C: Collection>(_ input: C, to out: inout [UInt8], urlSafe: Bool) where C.Element == UInt8 {
        let alphabet = urlSafe ? url : standard
        out.reserveCapacity(out.count + (input.count + 2) / 3 * 4)
        var iterator = input.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = iterator.next()
            let v = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
            out.append(alphabet[Int(v >> 18 & 63)])
            out.append(alphabet[Int(v >> 12 & 63)])
            if b1 != nil { out.append(alphabet[Int(v >> 6 & 63)]) } else if !urlSafe { out.append(UInt8(ascii: "=")) }
            if b2 != nil { out.append(alphabet[Int(v & 63)]) } else if !urlSafe { out.append(UInt8(ascii: "=")) }
        }
    }

    static func encode<C: Collection>(_ input: C, urlSafe: Bool) -> [UInt8] where C.Element == UInt8 {
        var out: [UInt8] = []
        append(input, to: &out, urlSafe: urlSafe)
        return out
    }

    static func string<C: Collection>(_ input: C, urlSafe: Bool) -> String where C.Element == UInt8 {
        String(decoding: encode(input, urlSafe: urlSafe), as: UTF8.self)
    }
}
