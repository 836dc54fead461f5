import Crypto
import Foundation
import SwiftASN1
import X509

/// Verifies App Store v2 JWS the way Apple's App Store Server Library does:
///
/// 1. the header's `alg` is `ES256` and its `x5c` holds three certificates (leaf, intermediate, root);
/// 2. the leaf and intermediate chain to a trusted root (Apple Root CA - G3, built in, plus any
///    added with `--trust-root`); like Apple's library, the root sent in `x5c` is not trusted itself;
/// 3. the intermediate carries OID 1.2.840.113635.100.6.2.1 and the leaf 1.2.840.113635.100.6.11.1;
/// 4. every certificate is valid at the payload's `signedDate` (now when it has none);
/// 5. the ES256 signature over `header.payload` verifies with the leaf's key.
///
/// Steps 1–3 depend only on the header, so their outcome is cached per chain: the usual cost of a
/// document is a header lookup, a scan for `signedDate`, a date comparison and one ES256 verify.
/// Safe to share between threads.
public struct AppleJWSVerifier: SignatureVerifier {
    private let roots: [Certificate]
    private let cache = ChainCache()

    public var verifiesSignatures: Bool { true }

    /// - Parameters:
    ///   - additionalRootsPEM: PEM texts of further trusted roots (each may hold several
    ///     certificates), for sandbox tooling and tests.
    ///   - includeAppleRoot: whether Apple Root CA - G3 is trusted.
    public init(additionalRootsPEM: [String] = [], includeAppleRoot: Bool = true) throws(PayloadError) {
        var roots: [Certificate] = []
        if includeAppleRoot {
            roots += try Self.certificates(fromPEM: Self.appleRootCAG3PEM, origin: "built-in Apple Root CA - G3")
        }
        for (index, pem) in additionalRootsPEM.enumerated() {
            roots += try Self.certificates(fromPEM: pem, origin: "trusted root \(index + 1)")
        }
        guard !roots.isEmpty else {
            throw PayloadError("no trusted root certificate to verify against (pass --trust-root PEM)")
        }
        self.roots = roots
    }

    public func payload(ofJWS jws: String) throws(PayloadError) -> Data {
        let parts = try JWS(compact: jws)
        let chain = try trustedChain(forHeader: parts)
        let payload = try parts.payload()
        let validationTime = try SignedDateScanner.signedDate(in: payload) ?? Date()
        try chain.checkValidity(at: validationTime)
        try Self.verifySignature(of: parts, with: chain.leafKey)
        return payload
    }

    /// Validates a certificate chain given as DER `[leaf, intermediate, root]` at `date`, by the
    /// same code (and cache) that `payload(ofJWS:)` uses for a header's `x5c`.
    public func validateChain(_ der: [[UInt8]], at date: Date) throws(PayloadError) {
        let chain: TrustedChain
        if let cached = cache.outcome(forChain: der.map { Data($0).base64EncodedString() }) {
            chain = try cached.get()
        } else {
            chain = try Self.validate(der: der, roots: roots)
        }
        try chain.checkValidity(at: date)
    }

    // MARK: - Header and chain

    private func trustedChain(forHeader jws: JWS) throws(PayloadError) -> TrustedChain {
        if let cached = cache.outcome(forHeader: jws.headerSegment) {
            return try cached.get()
        }
        var x5c: [String]?
        let outcome = Result { () throws(PayloadError) -> TrustedChain in
            let header = try Self.parseHeader(jws)
            x5c = header.x5c
            if let cached = cache.outcome(forChain: header.x5c) { return try cached.get() }
            var der: [[UInt8]] = []
            for (index, certificate) in header.x5c.enumerated() {
                guard let bytes = Data(base64Encoded: certificate) else {
                    throw PayloadError("JWS x5c certificate \(index + 1) is not valid base64")
                }
                der.append([UInt8](bytes))
            }
            return try Self.validate(der: der, roots: roots)
        }
        cache.store(outcome, header: jws.headerSegment, chain: x5c)
        return try outcome.get()
    }

    private struct Header {
        var x5c: [String]
    }

    private static func parseHeader(_ jws: JWS) throws(PayloadError) -> Header {
        let data = try jws.header()
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw JWS.malformed("header is not a JSON object")
        }
        guard let alg = object["alg"] as? String else {
            throw PayloadError("JWS header has no alg; App Store data is signed with ES256")
        }
        guard alg == "ES256" else {
            throw PayloadError("JWS alg is '\(alg)', expected ES256 (App Store data is signed with ES256)")
        }
        guard let x5c = object["x5c"] as? [String] else {
            throw PayloadError(
                "JWS header has no x5c certificate chain (Xcode and LocalTesting data is unsigned: pass --no-verify)"
            )
        }
        return Header(x5c: x5c)
    }

    /// Parses and checks `[leaf, intermediate, root]` at no particular time.
    private static func validate(der: [[UInt8]], roots: [Certificate]) throws(PayloadError) -> TrustedChain {
        guard der.count == 3 else {
            // Xcode's StoreKit testing signs with one local certificate (`Apple_Xcode_Key`): not
            // the App Store's signature, so its data imports only with verification off.
            let hint = der.count == 1 ? " (an Xcode StoreKit-testing JWS is not signed by the App Store: pass --no-verify)" : ""
            throw PayloadError(
                "JWS x5c holds \(der.count) certificate\(der.count == 1 ? "" : "s"), expected 3 (leaf, intermediate, root)"
                    + hint)
        }
        var certificates: [Certificate] = []
        for (index, bytes) in der.enumerated() {
            do {
                certificates.append(try Certificate(derEncoded: bytes))
            } catch {
                throw PayloadError("JWS x5c certificate \(index + 1) is not a valid X.509 certificate")
            }
        }
        return try TrustedChain.validate(leaf: certificates[0], intermediate: certificates[1], roots: roots)
    }

    // MARK: - Signature

    static let badSignatureMessage =
        "JWS signature does not verify with the leaf certificate's key (payload altered or signed by someone else)"

    private static func verifySignature(of jws: JWS, with key: P256.Signing.PublicKey) throws(PayloadError) {
        let signatureBytes = try jws.signature()
        guard signatureBytes.count == 64 else {
            throw PayloadError("JWS signature is \(signatureBytes.count) bytes; ES256 needs 64 (raw r || s)")
        }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes) else {
            throw PayloadError(badSignatureMessage)
        }
        let digest =
            jws.signingInput.utf8.withContiguousStorageIfAvailable {
                SHA256.hash(data: UnsafeRawBufferPointer($0))
            } ?? SHA256.hash(data: Array(jws.signingInput.utf8))
        guard key.isValidSignature(signature, for: digest) else {
            throw PayloadError(badSignatureMessage)
        }
    }

    // MARK: - Roots

    private static func certificates(fromPEM pem: String, origin: String) throws(PayloadError) -> [Certificate] {
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: pem)
        } catch {
            throw PayloadError("\(origin) is not PEM text")
        }
        var certificates: [Certificate] = []
        for document in documents where document.discriminator == "CERTIFICATE" {
            do {
                certificates.append(try Certificate(derEncoded: document.derBytes))
            } catch {
                throw PayloadError("\(origin) holds a PEM block that is not a valid X.509 certificate")
            }
        }
        guard !certificates.isEmpty else {
            throw PayloadError("\(origin) holds no PEM CERTIFICATE block")
        }
        return certificates
    }
}
