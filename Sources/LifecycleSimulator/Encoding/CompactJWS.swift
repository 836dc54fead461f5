/// Builds compact JWS (`header.payload.signature`, RFC 7515) the way the App Store signs its
/// payloads: ES256 with the x5c chain in the header.
public struct CompactJWS: Sendable {
    private let headerSegment: [UInt8]
    private let signer: DeterministicP256Signer

    public init(chain: TestCertificateChain) throws {
        var header = JSONBuffer()
        header.beginObject()
        header.field("alg", "ES256")
        header.beginArray("x5c")
        for der in try chain.x5cDER() { header.rawString(Base64.encode(der, urlSafe: false)) }
        header.endArray()
        header.endObject()
        headerSegment = Base64.encode(header.bytes, urlSafe: true)
        signer = chain.leafSigner
    }

    /// The compact serialisation of `payload` (JSON bytes).
    public func sign(_ payload: [UInt8]) -> [UInt8] {
        var out = headerSegment
        out.reserveCapacity(headerSegment.count + payload.count * 4 / 3 + 100)
        out.append(UInt8(ascii: "."))
        Base64.append(payload, to: &out, urlSafe: true)
        let signature = signer.signature(for: out)
        out.append(UInt8(ascii: "."))
        Base64.append(signature, to: &out, urlSafe: true)
        return out
    }
}
