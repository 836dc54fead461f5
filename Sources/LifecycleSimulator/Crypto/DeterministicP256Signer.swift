import Crypto
import Foundation

/// ES256 (ECDSA P-256 with SHA-256) with a deterministic nonce, so that the same key and
/// message always give the same signature (swift-crypto's signer is randomised).
///
/// The nonce is k = HMAC-SHA256(d, SHA-256(message) ‖ counter) mod n, in the spirit of
/// RFC 6979 but not RFC 6979 itself. `k·G` comes from swift-crypto (the public key of the
/// private key k); the scalar arithmetic `s = k⁻¹(z + r·d) mod n` is `P256Scalar`.
///
/// For the simulator's test data only (the same seed gives the same bytes): it is not constant
/// time and signs with test keys; nothing real is ever signed with it.
public struct DeterministicP256Signer: Sendable {
    private let scalar: P256Scalar
    private let scalarBytes: [UInt8]
    private let publicKeyBytes: Data

    /// The key swift-crypto verifies with.
    public var publicKey: P256.Signing.PublicKey {
        try! P256.Signing.PublicKey(rawRepresentation: publicKeyBytes)
    }
    /// The same key as swift-crypto's type (for swift-certificates, which needs one).
    public var privateKey: P256.Signing.PrivateKey {
        try! P256.Signing.PrivateKey(rawRepresentation: scalarBytes)
    }

    /// - Parameter privateKeyBytes: 32 big-endian bytes; reduced mod n, must not reduce to 0.
    public init(privateKeyBytes: [UInt8]) throws {
        let scalar = P256Scalar(reducingBigEndian: privateKeyBytes)
        guard !scalar.isZero else { throw CryptoKitError.incorrectParameterSize }
        self.scalar = scalar
        self.scalarBytes = scalar.bigEndianBytes
        self.publicKeyBytes = try P256.Signing.PrivateKey(rawRepresentation: scalarBytes).publicKey.rawRepresentation
    }

    /// A key derived from a seed and a label (HMAC-SHA256), for reproducible test chains.
    public init(seed: UInt64, label: String) throws {
        var seedBytes = [UInt8](repeating: 0, count: 8)
        for i in 0..<8 { seedBytes[i] = UInt8(truncatingIfNeeded: seed >> (56 - 8 * UInt64(i))) }
        var counter: UInt8 = 0
        while true {
            let mac = HMAC<SHA256>.authenticationCode(
                for: Array(("subdash-simulator-key:" + label).utf8) + [counter],
                using: SymmetricKey(data: seedBytes))
            if let signer = try? DeterministicP256Signer(privateKeyBytes: Array(mac)) {
                self = signer
                return
            }
            counter &+= 1
        }
    }

    /// The raw r ‖ s signature (64 bytes) of SHA-256(message), as JWS ES256 wants it.
    public func signature<D: DataProtocol>(for message: D) -> [UInt8] {
        let nonceKey = SymmetricKey(data: scalarBytes)
        let digest = Array(SHA256.hash(data: message))
        let z = P256Scalar(reducingBigEndian: digest)
        var counter: UInt8 = 0
        while true {
            var nonceInput = digest
            if counter > 0 { nonceInput.append(counter) }
            counter &+= 1
            let k = P256Scalar(reducingBigEndian: Array(HMAC<SHA256>.authenticationCode(for: nonceInput, using: nonceKey)))
            guard !k.isZero,
                let point = try? P256.Signing.PrivateKey(rawRepresentation: k.bigEndianBytes).publicKey.rawRepresentation
            else { continue }
            let r = P256Scalar(reducingBigEndian: point.prefix(32))
            guard !r.isZero else { continue }
            let s = k.inverse.multiplied(by: z.adding(r.multiplied(by: scalar)))
            guard !s.isZero else { continue }
            return r.bigEndianBytes + s.bigEndianBytes
        }
    }
}
