import Foundation

/// A compact JWS (`header.payload.signature`, RFC 7515 §7.1) split into its three segments, with
/// the base64url coding App Store payloads use.
///
/// Splitting copies nothing: the segments are slices of the original string. Decoding is on demand.
public struct JWS: Sendable {
    /// The base64url header segment, as it appears in the compact form.
    public let headerSegment: Substring
    /// The base64url payload segment.
    public let payloadSegment: Substring
    /// The base64url signature segment.
    public let signatureSegment: Substring
    /// `header.payload`: the bytes the signature covers.
    public let signingInput: Substring

    /// Splits a compact JWS. Throws when it does not have exactly three dot-separated segments.
    public init(compact: String) throws(PayloadError) {
        var compact = compact
        // The dots are found in the contiguous UTF-8 bytes (a header + payload runs to kilobytes:
        // the generic `firstIndex(of:)` over String.UTF8View was 3 % of a verified v2 import).
        let dots = compact.withUTF8 { bytes -> [Int] in
            var found: [Int] = []
            for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: ".") {
                found.append(offset)
                if found.count > 2 { break }
            }
            return found
        }
        guard dots.count == 2 else {
            let count = dots.count > 2 ? compact.utf8.reduce(1) { $1 == UInt8(ascii: ".") ? $0 + 1 : $0 } : dots.count + 1
            throw JWS.malformed("expected 3 dot-separated segments, found \(count)")
        }
        let utf8 = compact.utf8
        let firstDot = utf8.index(utf8.startIndex, offsetBy: dots[0])
        let secondDot = utf8.index(utf8.startIndex, offsetBy: dots[1])
        let afterFirst = utf8.index(after: firstDot)
        let afterSecond = utf8.index(after: secondDot)
        headerSegment = compact[compact.startIndex..<firstDot]
        payloadSegment = compact[afterFirst..<secondDot]
        signatureSegment = compact[afterSecond...]
        signingInput = compact[compact.startIndex..<secondDot]
    }

    /// The decoded header bytes (JSON for a well-formed JWS).
    public func header() throws(PayloadError) -> Data {
        guard let data = JWS.base64URLDecode(headerSegment) else {
            throw JWS.malformed("header is not valid base64url")
        }
        return data
    }

    /// The decoded payload bytes.
    public func payload() throws(PayloadError) -> Data {
        guard let data = JWS.base64URLDecode(payloadSegment) else {
            throw JWS.malformed("payload is not valid base64url")
        }
        return data
    }

    /// The decoded signature bytes (for ES256, the 64 bytes `r || s`).
    public func signature() throws(PayloadError) -> Data {
        guard let data = JWS.base64URLDecode(signatureSegment) else {
            throw JWS.malformed("signature is not valid base64url")
        }
        return data
    }

    /// Joins already-encoded parts into the compact form.
    public static func compact(header: some DataProtocol, payload: some DataProtocol, signature: some DataProtocol) -> String {
        base64URLEncode(header) + "." + base64URLEncode(payload) + "." + base64URLEncode(signature)
    }

    static func malformed(_ what: String) -> PayloadError {
        PayloadError("malformed JWS: \(what)")
    }
}

// MARK: - base64url

extension JWS {
    /// Decodes base64url (RFC 4648 §5) without padding; trailing `=` padding is tolerated.
    /// Returns nil on any other character or an impossible length.
    public static func base64URLDecode(_ text: some StringProtocol) -> Data? {
        if let decoded = text.utf8.withContiguousStorageIfAvailable({ decode(UnsafeRawBufferPointer($0)) }) {
            return decoded
        }
        var copy = String(text)
        return copy.withUTF8 { decode(UnsafeRawBufferPointer($0)) }
    }

    /// Encodes bytes as base64url without padding.
    public static func base64URLEncode(_ bytes: some DataProtocol) -> String {
        let input = [UInt8](bytes)
        var output = [UInt8]()
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(alphabet[Int(chunk >> 6 & 63)])
            output.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        switch input.count - index {
        case 1:
            let chunk = UInt32(input[index]) << 16
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
        case 2:
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(alphabet[Int(chunk >> 6 & 63)])
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0...63 for base64url characters, 0xFF otherwise.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    private static func decode(_ input: UnsafeRawBufferPointer) -> Data? {
        var length = input.count
        while length > 0, input[length - 1] == UInt8(ascii: "=") { length -= 1 }
        if input.count - length > 2 || length % 4 == 1 { return nil }
        let outputCount = length / 4 * 3 + max(0, length % 4 - 1)
        var output = Data(count: outputCount)
        let ok = decodeTable.withUnsafeBufferPointer { table in
            output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Bool in
                var inIndex = 0
                var outIndex = 0
                var bad: UInt8 = 0
                while inIndex + 4 <= length {
                    let a = table[Int(input[inIndex])], b = table[Int(input[inIndex + 1])]
                    let c = table[Int(input[inIndex + 2])], d = table[Int(input[inIndex + 3])]
                    bad |= a | b | c | d
                    let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[outIndex] = UInt8(truncatingIfNeeded: chunk >> 16)
                    out[outIndex + 1] = UInt8(truncatingIfNeeded: chunk >> 8)
                    out[outIndex + 2] = UInt8(truncatingIfNeeded: chunk)
                    inIndex += 4
                    outIndex += 3
                }
                switch length - inIndex {
                case 2:
                    let a = table[Int(input[inIndex])], b = table[Int(input[inIndex + 1])]
                    bad |= a | b
                    out[outIndex] = UInt8(truncatingIfNeeded: (UInt32(a) << 2) | (UInt32(b) >> 4))
                case 3:
                    let a = table[Int(input[inIndex])], b = table[Int(input[inIndex + 1])]
                    let c = table[Int(input[inIndex + 2])]
                    bad |= a | b | c
                    let chunk = UInt32(a) << 10 | UInt32(b) << 4 | UInt32(c) >> 2
                    out[outIndex] = UInt8(truncatingIfNeeded: chunk >> 8)
                    out[outIndex + 1] = UInt8(truncatingIfNeeded: chunk)
                default:
                    break
                }
                // Valid values are below 64, so bit 7 is set only by the 0xFF marker.
                return bad & 0x80 == 0
            }
        }
        return ok ? output : nil
    }
}
