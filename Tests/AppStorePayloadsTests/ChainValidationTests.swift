import AppStorePayloads
import Crypto
import Foundation
import SwiftASN1
import Testing
import X509

/// Certificate chains as `x5c` carries them, validated by the same code a v2 JWS goes through:
/// Apple's real production chain, and forged or broken ones each rejected with its reason.
@Suite struct ChainValidationTests {
    static let wwdrOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    static let leafOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text + "T00:00:00Z")! }

    /// A chain built here: root → intermediate → leaf, each part adjustable to break one rule.
    struct Chain {
        var root: Certificate
        var intermediate: Certificate
        var leaf: Certificate
        var der: [[UInt8]] {
            get throws {
                try [leaf, intermediate, root].map {
                    var s = DER.Serializer()
                    try s.serialize($0)
                    return s.serializedBytes
                }
            }
        }
        var rootPEM: String { get throws { try root.serializeAsPEM().pemString } }

        init(
            rootName: String = "Test Root", intermediateOID: Bool = true, leafOID: Bool = true, intermediateIsCA: Bool = true,
            leafValidity: (String, String) = ("2020-01-01", "2030-01-01"), leafIssuerKey: P256.Signing.PrivateKey? = nil
        ) throws {
            let rootKey = P256.Signing.PrivateKey()
            let intermediateKey = P256.Signing.PrivateKey()
            let leafKey = P256.Signing.PrivateKey()
            let rootDN = try DistinguishedName { CommonName(rootName) }
            let intermediateDN = try DistinguishedName { CommonName("Test WWDR") }
            let leafDN = try DistinguishedName { CommonName("Test Receipt Signing") }
            root = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
                notValidBefore: ChainValidationTests.date("2010-01-01"), notValidAfter: ChainValidationTests.date("2040-01-01"),
                issuer: rootDN, subject: rootDN, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                }, issuerPrivateKey: .init(rootKey))
            intermediate = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
                notValidBefore: ChainValidationTests.date("2015-01-01"), notValidAfter: ChainValidationTests.date("2035-01-01"),
                issuer: rootDN, subject: intermediateDN, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    if intermediateIsCA {
                        Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                        Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    } else {
                        Critical(BasicConstraints.notCertificateAuthority)
                    }
                    if intermediateOID {
                        Certificate.Extension(oid: ChainValidationTests.wwdrOID, critical: false, value: [0x05, 0x00])
                    }
                }, issuerPrivateKey: .init(rootKey))
            leaf = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
                notValidBefore: ChainValidationTests.date(leafValidity.0),
                notValidAfter: ChainValidationTests.date(leafValidity.1),
                issuer: intermediateDN, subject: leafDN, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    if leafOID { Certificate.Extension(oid: ChainValidationTests.leafOID, critical: false, value: [0x05, 0x00]) }
                }, issuerPrivateKey: .init(leafIssuerKey ?? intermediateKey))
        }
    }

    func rejection(_ chain: Chain, trusting roots: [String]? = nil, at date: String = "2025-06-01") throws -> String? {
        let verifier = try AppleJWSVerifier(additionalRootsPEM: roots ?? [try chain.rootPEM], includeAppleRoot: false)
        let der = try chain.der
        do throws(PayloadError) {
            try verifier.validateChain(der, at: Self.date(date))
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func aWellFormedChainIsAcceptedInsideItsValidity() throws {
        let chain = try Chain()
        #expect(try rejection(chain) == nil)
        #expect(try rejection(chain, at: "2029-12-31") == nil)
    }

    @Test func aChainToAnotherRootIsNotTrusted() throws {
        let chain = try Chain(rootName: "Test Root")
        let stranger = try Chain(rootName: "Test Root")  // same name, another key
        #expect(
            try rejection(chain, trusting: [try stranger.rootPEM])
                == "certificate chain does not chain to a trusted root (pass --trust-root PEM for sandbox or test data)")
    }

    @Test func missingAppleOIDsAreNamed() throws {
        #expect(
            try rejection(Chain(intermediateOID: false))
                == "intermediate certificate 'Test WWDR' lacks Apple's WWDR OID 1.2.840.113635.100.6.2.1 (not an App Store signing chain)"
        )
        #expect(
            try rejection(Chain(leafOID: false))
                == "leaf certificate 'Test Receipt Signing' lacks Apple's receipt-signing OID 1.2.840.113635.100.6.11.1 (not an App Store signing chain)"
        )
    }

    @Test func anExpiredLeafIsRejectedAtTheDocumentsDate() throws {
        let chain = try Chain(leafValidity: ("2020-01-01", "2021-01-01"))
        #expect(try rejection(chain, at: "2020-06-01") == nil)
        let reason = try #require(try rejection(chain, at: "2025-06-01"))
        #expect(reason.hasPrefix("leaf certificate 'Test Receipt Signing' is not valid at signedDate 2025-06-01"))
    }

    @Test func anIntermediateThatIsNotACertificateAuthorityCannotIssueTheLeaf() throws {
        let reason = try #require(try rejection(Chain(intermediateIsCA: false)))
        #expect(reason.hasPrefix("certificate chain rejected"), "\(reason)")
    }

    @Test func aLeafNotSignedByTheIntermediateIsABrokenChain() throws {
        #expect(
            try rejection(Chain(leafIssuerKey: P256.Signing.PrivateKey()))
                == "certificate chain is broken: the leaf is not issued by the intermediate in x5c")
    }

    @Test func twoCertificatesAreNotAnAppStoreChain() throws {
        let chain = try Chain()
        let verifier = try AppleJWSVerifier(additionalRootsPEM: [try chain.rootPEM], includeAppleRoot: false)
        let error = #expect(throws: PayloadError.self) {
            try verifier.validateChain(Array(try chain.der.prefix(2)), at: Self.date("2025-06-01"))
        }
        #expect(error?.reason == "JWS x5c holds 2 certificates, expected 3 (leaf, intermediate, root)")
    }

    /// Xcode's StoreKit testing signs with one certificate of its own: the rejection says how to
    /// import such data anyway, as the one for a header without x5c does.
    @Test func oneCertificateIsXcodeDataAndTheRejectionSaysNoVerify() throws {
        let chain = try Chain()
        let verifier = try AppleJWSVerifier(additionalRootsPEM: [try chain.rootPEM], includeAppleRoot: false)
        let error = #expect(throws: PayloadError.self) {
            try verifier.validateChain(Array(try chain.der.prefix(1)), at: Self.date("2025-06-01"))
        }
        #expect(
            error?.reason
                == "JWS x5c holds 1 certificate, expected 3 (leaf, intermediate, root) (an Xcode StoreKit-testing JWS is not signed by the App Store: pass --no-verify)"
        )
    }

    // MARK: - Apple's production chain

    static func applePEM(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/apple-certificates/\(name).pem")
        return try String(contentsOf: url, encoding: .utf8)
    }

    static func appleChainDER() throws -> [[UInt8]] {
        try ["AppleReceiptSigning-2025", "AppleWWDRCA-G6", "AppleRootCA-G3"].map {
            var serializer = DER.Serializer()
            try serializer.serialize(try Certificate(pemEncoded: try applePEM($0)))
            return serializer.serializedBytes
        }
    }

    @Test func applesProductionChainIsTrustedByTheBuiltInRootInsideItsValidity() throws {
        let verifier = try AppleJWSVerifier()
        try verifier.validateChain(try Self.appleChainDER(), at: Self.date("2026-06-01"))
        let before = #expect(throws: PayloadError.self) {
            try verifier.validateChain(try Self.appleChainDER(), at: Self.date("2025-01-01"))
        }
        #expect(
            before?.reason.hasPrefix(
                "leaf certificate 'Prod ECC Mac App Store and iTunes Store Receipt Signing' is not valid at signedDate 2025-01-01"
            ) == true)
        let after = #expect(throws: PayloadError.self) {
            try verifier.validateChain(try Self.appleChainDER(), at: Self.date("2028-01-01"))
        }
        #expect(
            after?.reason.hasPrefix("leaf certificate 'Prod ECC Mac App Store and iTunes Store Receipt Signing' is not valid")
                == true)
    }

    @Test func applesProductionChainIsNotTrustedWithoutAppleRoot() throws {
        let verifier = try AppleJWSVerifier(additionalRootsPEM: [try Chain().rootPEM], includeAppleRoot: false)
        let error = #expect(throws: PayloadError.self) {
            try verifier.validateChain(try Self.appleChainDER(), at: Self.date("2026-06-01"))
        }
        #expect(
            error?.reason == "certificate chain does not chain to a trusted root (pass --trust-root PEM for sandbox or test data)"
        )
    }
}
