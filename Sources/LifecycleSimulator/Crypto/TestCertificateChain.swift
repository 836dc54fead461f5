import Crypto
import Foundation
import SubscriptionModel
import SwiftASN1
import X509

/// A three-certificate chain shaped like Apple's (root → WWDR-style intermediate → receipt
/// signing leaf), with keys derived from the simulation seed and deterministic signatures, so
/// the same seed gives byte-identical certificates. Import trusts it with `--trust-root`.
public struct TestCertificateChain: Sendable {
    /// Apple's marker extension on the WWDR intermediate.
    public static let intermediateMarkerOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    /// Apple's marker extension on the receipt-signing leaf.
    public static let leafMarkerOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    static let ecdsaWithSHA256: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 2]

    public let root: Certificate
    public let intermediate: Certificate
    public let leaf: Certificate
    /// Signs JWS with the leaf's key.
    public let leafSigner: DeterministicP256Signer

    /// - Parameters:
    ///   - seed: the simulation seed; the keys are derived from it.
    ///   - validFrom, validUntil: every certificate is valid over this whole range.
    public init(seed: UInt64, validFrom: Instant, validUntil: Instant) throws {
        let rootKey = try DeterministicP256Signer(seed: seed, label: "root")
        let intermediateKey = try DeterministicP256Signer(seed: seed, label: "intermediate")
        let leafKey = try DeterministicP256Signer(seed: seed, label: "leaf")
        let rootName = try DistinguishedName {
            CountryName("US")
            OrganizationName("subdash simulator")
            CommonName("subdash Test Root CA")
        }
        let intermediateName = try DistinguishedName {
            CountryName("US")
            OrganizationName("subdash simulator")
            CommonName("subdash Test WWDR Intermediate")
        }
        let leafName = try DistinguishedName {
            CountryName("US")
            OrganizationName("subdash simulator")
            CommonName("subdash Test Receipt Signing")
        }
        let notBefore = validFrom.date
        let notAfter = validUntil.date
        root = try Self.certificate(
            serial: [0x01], subjectKey: rootKey.publicKey, subject: rootName, issuer: rootName, issuerKey: rootKey,
            notBefore: notBefore, notAfter: notAfter,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            })
        intermediate = try Self.certificate(
            serial: [0x02], subjectKey: intermediateKey.publicKey, subject: intermediateName, issuer: rootName,
            issuerKey: rootKey, notBefore: notBefore, notAfter: notAfter,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                Certificate.Extension(oid: Self.intermediateMarkerOID, critical: false, value: [0x05, 0x00])
            })
        leaf = try Self.certificate(
            serial: [0x03], subjectKey: leafKey.publicKey, subject: leafName, issuer: intermediateName,
            issuerKey: intermediateKey, notBefore: notBefore, notAfter: notAfter,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                Certificate.Extension(oid: Self.leafMarkerOID, critical: false, value: [0x05, 0x00])
            })
        leafSigner = leafKey
    }

    /// The root as PEM, for `--trust-root`.
    public func rootPEM() throws -> String { try root.serializeAsPEM().pemString }

    /// DER of leaf, intermediate and root: the JWS `x5c` order.
    public func x5cDER() throws -> [[UInt8]] {
        try [leaf, intermediate, root].map { certificate in
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return serializer.serializedBytes
        }
    }

    /// swift-certificates can only sign with a randomised ECDSA nonce, so it builds the
    /// TBSCertificate and this re-signs those exact bytes deterministically.
    private static func certificate(
        serial: [UInt8], subjectKey: P256.Signing.PublicKey, subject: DistinguishedName,
        issuer: DistinguishedName, issuerKey: DeterministicP256Signer, notBefore: Date,
        notAfter: Date, extensions: Certificate.Extensions
    ) throws -> Certificate {
        let draft = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(bytes: serial), publicKey: Certificate.PublicKey(subjectKey),
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: issuer, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(issuerKey.privateKey))
        let tbs = draft.tbsCertificateBytes
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: issuerKey.signature(for: tbs)).derRepresentation
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            coder.serializeRawBytes(tbs)
            try coder.appendConstructedNode(identifier: .sequence) { algorithm in
                try algorithm.serialize(Self.ecdsaWithSHA256)
            }
            try coder.serialize(ASN1BitString(bytes: ArraySlice(signature)))
        }
        return try Certificate(derEncoded: serializer.serializedBytes)
    }
}
