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
    /// Returns nil on any other character (the standard alphabet's `+` and `/` included) or an
    /// impossible length. The alphabet is mapped to standard base64 and Foundation decodes it.
    public static func base64URLDecode(_ text: some StringProtocol) -> Data? {
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.utf8.count + 3)
        var padding = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0 else { return nil }
            switch byte {
            case UInt8(ascii: "-"): bytes.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): bytes.append(UInt8(ascii: "/"))
            case UInt8(ascii: "+"), UInt8(ascii: "/"): return nil
            default: bytes.append(byte)
            }
        }
        guard padding <= 2, bytes.count % 4 != 1 else { return nil }
        while bytes.count % 4 != 0 { bytes.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(bytes))
    }

    /// Encodes bytes as base64url without padding.
    public static func base64URLEncode(_ bytes: some DataProtocol) -> String {
        var encoded = Array(Data(bytes).base64EncodedData())
        while encoded.last == UInt8(ascii: "=") { encoded.removeLast() }
        for i in encoded.indices {
            if encoded[i] == UInt8(ascii: "+") {
                encoded[i] = UInt8(ascii: "-")
            } else if encoded[i] == UInt8(ascii: "/") {
                encoded[i] = UInt8(ascii: "_")
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }
}
