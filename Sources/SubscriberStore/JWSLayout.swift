import Foundation

/// The archive's compact layout of a document holding JWS (docs/architecture.md, "The archive's
/// layout"): every JWS found in the document's bytes is kept as its header (the `x5c` certificate
/// chain replaced by a reference to the store's `archiveChain` table), its payload decoded from
/// base64url (JSON compresses; a JWS inside it, a v2 notification's `signedTransactionInfo` and
/// `signedRenewalInfo`, is kept the same way) and its signature as raw bytes. Everything else is
/// kept as it is. `unpack` re-encodes the document; `pack` returns a layout only when that gives
/// back the received bytes exactly.
///
/// The packed bytes: a version byte, then a segment list. A segment list is segments up to an
/// end tag; a segment is
/// - `0x00` length bytes: bytes as they are;
/// - `0x01` header-list payload-list length signature: a JWS (both lists end with the end tag);
/// - `0x02` index: the certificate chain `chains[index]` (the `x5c` array's text, brackets included);
/// - `0x03`: the end tag.
/// Lengths and indexes are unsigned LEB128.
public enum JWSLayout {
    static let version: UInt8 = 1
    static let literalTag: UInt8 = 0
    static let jwsTag: UInt8 = 1
    static let chainTag: UInt8 = 2
    static let endTag: UInt8 = 3
    /// JWS nested deeper than this are kept as their text (Apple nests one level).
    static let deepest = 3
    /// Unpacking refuses lists nested deeper than this (a damaged layout must not exhaust the stack).
    static let deepestRead = 8

    /// A document in the compact layout: `bytes` refers to `chains` by index.
    public struct Packed: Sendable, Equatable {
        public var bytes: Data
        /// Each distinct `x5c` array's text, in the order of first use.
        public var chains: [Data]
    }

    /// The document in the compact layout, or nil when it holds no JWS or the layout would not give
    /// back exactly `body` (then it is archived as received).
    public static func pack(_ body: Data) -> Packed? {
        let bytes = [UInt8](body)
        var packer = Packer()
        packer.out.append(version)
        let found = bytes.withUnsafeBufferPointer { packer.segments($0, depth: 0) }
        packer.out.append(endTag)
        guard found else { return nil }
        let packed = Packed(bytes: Data(packer.out), chains: packer.chains.map { Data($0) })
        guard (try? unpack(packed.bytes, chains: packed.chains)) == body else { return nil }
        return packed
    }

    /// The document's bytes again from its compact layout; throws when the layout is damaged or
    /// refers to a chain not given.
    public static func unpack(_ packed: Data, chains: [Data]) throws -> Data {
        let bytes = [UInt8](packed)
        var reader = Reader(bytes: bytes, chains: chains.map { [UInt8]($0) })
        guard reader.byte() == version else { throw LayoutError() }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        try reader.segments(into: &out, depth: 0)
        guard reader.position == bytes.count else { throw LayoutError() }
        return Data(out)
    }

    struct LayoutError: Error {}

    // MARK: - Packing

    struct Packer {
        var out: [UInt8] = []
        var chains: [[UInt8]] = []

        /// Writes `input` as a segment list (without its end tag); true when it held a JWS.
        mutating func segments(_ input: UnsafeBufferPointer<UInt8>, depth: Int) -> Bool {
            var found = false
            var literalStart = 0
            var i = 0
            let n = input.count
            while i + 2 < n {
                // A JWS's header is a JSON object: its base64url starts "eyJ" ("{\"").
                guard input[i] == UInt8(ascii: "e"), input[i + 1] == UInt8(ascii: "y"), input[i + 2] == UInt8(ascii: "J"),
                    i == 0 || !isTokenByte(input[i - 1])
                else {
                    i += 1
                    continue
                }
                var end = i
                var dots = 0
                var firstDot = 0
                var secondDot = 0
                while end < n, isTokenByte(input[end]) {
                    if input[end] == UInt8(ascii: ".") {
                        dots += 1
                        if dots == 1 { firstDot = end } else if dots == 2 { secondDot = end }
                    }
                    end += 1
                }
                if depth < JWSLayout.deepest, dots == 2,
                    let jws = jwsSegment(input, start: i, dots: (firstDot, secondDot), end: end, depth: depth)
                {
                    literal(input, from: literalStart, to: i)
                    out.append(contentsOf: jws)
                    found = true
                    literalStart = end
                }
                i = end
            }
            literal(input, from: literalStart, to: n)
            return found
        }

        mutating func literal(_ input: UnsafeBufferPointer<UInt8>, from: Int, to: Int) {
            guard to > from else { return }
            out.append(JWSLayout.literalTag)
            appendLength(to - from, to: &out)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: input[from..<to]))
        }

        /// The JWS `input[start..<end]` as a segment, or nil when a part is not strict base64url.
        mutating func jwsSegment(_ input: UnsafeBufferPointer<UInt8>, start: Int, dots: (Int, Int), end: Int, depth: Int)
            -> [UInt8]?
        {
            guard let header = Base64URL.decode(UnsafeBufferPointer(rebasing: input[start..<dots.0])),
                let payload = Base64URL.decode(UnsafeBufferPointer(rebasing: input[(dots.0 + 1)..<dots.1])),
                let signature = Base64URL.decode(UnsafeBufferPointer(rebasing: input[(dots.1 + 1)..<end]))
            else { return nil }
            let saved = out
            out = [JWSLayout.jwsTag]
            header.withUnsafeBufferPointer { headerSegments($0) }
            out.append(JWSLayout.endTag)
            _ = payload.withUnsafeBufferPointer { segments($0, depth: depth + 1) }
            out.append(JWSLayout.endTag)
            appendLength(signature.count, to: &out)
            out.append(contentsOf: signature)
            let segment = out
            out = saved
            return segment
        }

        /// A header: its `x5c` array replaced by a chain reference.
        mutating func headerSegments(_ header: UnsafeBufferPointer<UInt8>) {
            guard let (open, close) = Self.x5cArray(header) else {
                literal(header, from: 0, to: header.count)
                return
            }
            literal(header, from: 0, to: open)
            let chain = Array(header[open...close])
            let index: Int
            if let known = chains.firstIndex(of: chain) {
                index = known
            } else {
                index = chains.count
                chains.append(chain)
            }
            out.append(JWSLayout.chainTag)
            appendLength(index, to: &out)
            literal(header, from: close + 1, to: header.count)
        }

        /// The positions of the `[` and `]` of the header's `"x5c": [...]`; nil without one.
        static func x5cArray(_ header: UnsafeBufferPointer<UInt8>) -> (Int, Int)? {
            let quote = UInt8(ascii: "\"")
            var i = 0
            while i + 5 <= header.count {
                if header[i] == quote, header[i + 1] == UInt8(ascii: "x"), header[i + 2] == UInt8(ascii: "5"),
                    header[i + 3] == UInt8(ascii: "c"), header[i + 4] == quote
                {
                    break
                }
                i += 1
            }
            guard i + 5 <= header.count else { return nil }
            i += 5
            func skipSpace() {
                while i < header.count, header[i] == 32 || header[i] == 9 || header[i] == 10 || header[i] == 13 { i += 1 }
            }
            skipSpace()
            guard i < header.count, header[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipSpace()
            guard i < header.count, header[i] == UInt8(ascii: "[") else { return nil }
            let open = i
            while i < header.count, header[i] != UInt8(ascii: "]") { i += 1 }
            guard i < header.count else { return nil }
            return (open, i)
        }
    }

    // MARK: - Unpacking

    struct Reader {
        let bytes: [UInt8]
        let chains: [[UInt8]]
        var position = 0

        init(bytes: [UInt8], chains: [[UInt8]]) {
            self.bytes = bytes
            self.chains = chains
        }

        mutating func byte() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func length() throws -> Int {
            var value = 0
            var shift = 0
            while let b = byte() {
                guard shift < 56 else { throw LayoutError() }
                value |= Int(b & 0x7f) << shift
                if b & 0x80 == 0 { return value }
                shift += 7
            }
            throw LayoutError()
        }

        mutating func take(_ count: Int) throws -> Range<Int> {
            guard count >= 0, count <= bytes.count - position else { throw LayoutError() }
            defer { position += count }
            return position..<(position + count)
        }

        mutating func segments(into out: inout [UInt8], depth: Int) throws {
            guard depth <= JWSLayout.deepestRead else { throw LayoutError() }
            while true {
                switch byte() {
                case JWSLayout.literalTag?: out.append(contentsOf: bytes[try take(try length())])
                case JWSLayout.chainTag?:
                    let index = try length()
                    guard index < chains.count else { throw LayoutError() }
                    out.append(contentsOf: chains[index])
                case JWSLayout.jwsTag?:
                    var part: [UInt8] = []
                    try segments(into: &part, depth: depth + 1)
                    Base64URL.encode(part, into: &out)
                    out.append(UInt8(ascii: "."))
                    part.removeAll(keepingCapacity: true)
                    try segments(into: &part, depth: depth + 1)
                    Base64URL.encode(part, into: &out)
                    out.append(UInt8(ascii: "."))
                    let signature = try take(try length())
                    bytes.withUnsafeBufferPointer { Base64URL.encode(UnsafeBufferPointer(rebasing: $0[signature]), into: &out) }
                case JWSLayout.endTag?: return
                default: throw LayoutError()
                }
            }
        }
    }
}

/// A byte of a compact JWS: base64url's alphabet and the dot.
@inline(__always) private func isTokenByte(_ b: UInt8) -> Bool {
    (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) || b == 0x2d || b == 0x5f || b == 0x2e
}

func appendLength(_ value: Int, to out: inout [UInt8]) {
    var v = UInt(value)
    while v >= 0x80 {
        out.append(UInt8(v & 0x7f) | 0x80)
        v >>= 7
    }
    out.append(UInt8(v))
}

/// base64url without padding (RFC 7515 §2), strict: a text whose re-encoding differs from it
/// (unused bits set, a length no encoding has) does not decode.
enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    /// Each byte's 6-bit value, 0xff for bytes outside the alphabet.
    static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let n = text.count
        guard n % 4 != 1 else { return nil }
        let capacity = n / 4 * 3 + max(0, n % 4 - 1)
        var valid = true
        let out = values.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                var i = 0
                var o = 0
                while i + 4 <= n {
                    let a = table[Int(text[i])]
                    let b = table[Int(text[i + 1])]
                    let c = table[Int(text[i + 2])]
                    let d = table[Int(text[i + 3])]
                    if (a | b | c | d) & 0xc0 != 0 {
                        valid = false
                        break
                    }
                    buffer[o] = a << 2 | b >> 4
                    buffer[o + 1] = b << 4 | c >> 2
                    buffer[o + 2] = c << 6 | d
                    i += 4
                    o += 3
                }
                if valid {
                    switch n - i {
                    case 2:
                        let a = table[Int(text[i])]
                        let b = table[Int(text[i + 1])]
                        if (a | b) & 0xc0 != 0 || b & 0x0f != 0 {
                            valid = false
                        } else {
                            buffer[o] = a << 2 | b >> 4
                            o += 1
                        }
                    case 3:
                        let a = table[Int(text[i])]
                        let b = table[Int(text[i + 1])]
                        let c = table[Int(text[i + 2])]
                        if (a | b | c) & 0xc0 != 0 || c & 0x03 != 0 {
                            valid = false
                        } else {
                            buffer[o] = a << 2 | b >> 4
                            buffer[o + 1] = b << 4 | c >> 2
                            o += 2
                        }
                    default: break
                    }
                }
                count = valid ? o : 0
            }
        }
        return valid ? out : nil
    }

    static func encode(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        let n = bytes.count
        let length = n / 3 * 4 + (n % 3 == 0 ? 0 : n % 3 + 1)
        alphabet.withUnsafeBufferPointer { table in
            let encoded = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
                var i = 0
                var o = 0
                while i + 3 <= n {
                    let a = bytes[i]
                    let b = bytes[i + 1]
                    let c = bytes[i + 2]
                    buffer[o] = table[Int(a >> 2)]
                    buffer[o + 1] = table[Int((a & 0x03) << 4 | b >> 4)]
                    buffer[o + 2] = table[Int((b & 0x0f) << 2 | c >> 6)]
                    buffer[o + 3] = table[Int(c & 0x3f)]
                    i += 3
                    o += 4
                }
                switch n - i {
                case 1:
                    let a = bytes[i]
                    buffer[o] = table[Int(a >> 2)]
                    buffer[o + 1] = table[Int((a & 0x03) << 4)]
                    o += 2
                case 2:
                    let a = bytes[i]
                    let b = bytes[i + 1]
                    buffer[o] = table[Int(a >> 2)]
                    buffer[o + 1] = table[Int((a & 0x03) << 4 | b >> 4)]
                    buffer[o + 2] = table[Int((b & 0x0f) << 2)]
                    o += 3
                default: break
                }
                count = o
            }
            out.append(contentsOf: encoded)
        }
    }

    static func encode(_ bytes: [UInt8], into out: inout [UInt8]) {
        bytes.withUnsafeBufferPointer { encode($0, into: &out) }
    }
}
