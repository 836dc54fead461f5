import Crypto
import Foundation
import SwiftASN1
import X509

/// An App Store certificate chain (leaf, intermediate, trusted root) that passed every check that
/// does not depend on time, with what the per-document check still needs: the leaf's P-256 key
/// and the validity interval of each certificate.
///
/// Validation is done here directly, rather than through `X509.Verifier`, because the verifier is
/// `async` while `SignatureVerifier` is synchronous and runs on importer threads; blocking those on
/// a task would risk starving the cooperative pool. The chain has a fixed shape, so the checks
/// are few and explicit. They are the RFC 5280 ones `RFC5280Policy` applies (version, name
/// chaining, signatures, basic constraints, validity, no unhandled critical extension) plus Apple's
/// OID policy, and key usage where present.
///
/// Not `Sendable` only because swift-crypto does not mark its public keys so; the key is immutable
/// and verification with it does not mutate it, so `ChainCache` shares it between threads.
struct TrustedChain {
    /// One certificate's place in the chain and validity interval.
    struct Validity: Sendable {
        var role: String
        var name: String
        var notBefore: Date
        var notAfter: Date
    }

    let leafKey: P256.Signing.PublicKey
    /// Leaf, intermediate, root.
    let validities: [Validity]
    /// The intersection of the intervals: checking against it is the common fast path.
    let notBefore: Date
    let notAfter: Date

    /// Throws unless every certificate of the chain is valid at `date`.
    func checkValidity(at date: Date) throws(PayloadError) {
        if date >= notBefore, date <= notAfter { return }
        for validity in validities where date < validity.notBefore || date > validity.notAfter {
            throw PayloadError(
                "\(validity.role) certificate \(validity.name) is not valid at signedDate \(Self.format(date)) "
                    + "(valid \(Self.format(validity.notBefore)) → \(Self.format(validity.notAfter)))"
            )
        }
    }

    private static func format(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}

// MARK: - Structural validation

extension TrustedChain {
    static let wwdrIntermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    static let receiptSigningLeafOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    static let untrustedMessage =
        "certificate chain does not chain to a trusted root (pass --trust-root PEM for sandbox or test data)"

    /// Extensions a critical flag may sit on: the ones checked below.
    private static let understoodCriticalExtensions: [ASN1ObjectIdentifier] = [
        .X509ExtensionID.basicConstraints, .X509ExtensionID.keyUsage,
        wwdrIntermediateOID, receiptSigningLeafOID,
    ]

    /// Checks leaf → intermediate → one of `roots`, at no particular time.
    static func validate(leaf: Certificate, intermediate: Certificate, roots: [Certificate]) throws(PayloadError) -> TrustedChain {
        guard let root = roots.first(where: { root in
            root.subject == intermediate.issuer && root.publicKey.isValidSignature(intermediate.signature, for: intermediate)
        }) else {
            throw PayloadError(untrustedMessage)
        }
        guard leaf.issuer == intermediate.subject,
              intermediate.publicKey.isValidSignature(leaf.signature, for: leaf)
        else {
            throw PayloadError("certificate chain is broken: the leaf is not issued by the intermediate in x5c")
        }

        try checkAuthority(root, role: "root")
        try checkAuthority(intermediate, role: "intermediate")
        if case .isCertificateAuthority(let maxPathLength)? = try? root.extensions.basicConstraints,
           let maxPathLength, maxPathLength < 1 {
            throw PayloadError("root certificate \(displayName(root)) allows no intermediate (pathLenConstraint 0)")
        }
        try checkCommon(leaf, role: "leaf")
        if let keyUsage = try decoded({ try leaf.extensions.keyUsage }, role: "leaf", extension: "key usage"),
           !keyUsage.digitalSignature {
            throw PayloadError("leaf certificate \(displayName(leaf)) may not sign data (key usage lacks digitalSignature)")
        }

        guard intermediate.extensions[oid: wwdrIntermediateOID] != nil else {
            throw PayloadError(
                "intermediate certificate \(displayName(intermediate)) lacks Apple's WWDR OID 1.2.840.113635.100.6.2.1 "
                    + "(not an App Store signing chain)"
            )
        }
        guard leaf.extensions[oid: receiptSigningLeafOID] != nil else {
            throw PayloadError(
                "leaf certificate \(displayName(leaf)) lacks Apple's receipt-signing OID 1.2.840.113635.100.6.11.1 "
                    + "(not an App Store signing chain)"
            )
        }
        guard let leafKey = P256.Signing.PublicKey(leaf.publicKey) else {
            throw PayloadError("leaf certificate \(displayName(leaf)) holds no P-256 key, so it cannot sign ES256")
        }

        let validities = [(leaf, "leaf"), (intermediate, "intermediate"), (root, "root")].map { certificate, role in
            Validity(role: role, name: displayName(certificate),
                     notBefore: certificate.notValidBefore, notAfter: certificate.notValidAfter)
        }
        return TrustedChain(
            leafKey: leafKey,
            validities: validities,
            notBefore: validities.map(\.notBefore).max()!,
            notAfter: validities.map(\.notAfter).min()!
        )
    }

    /// A certificate allowed to issue others: CA basic constraints and, when present, keyCertSign.
    private static func checkAuthority(_ certificate: Certificate, role: String) throws(PayloadError) {
        try checkCommon(certificate, role: role)
        let constraints = try decoded({ try certificate.extensions.basicConstraints }, role: role, extension: "basic constraints")
        guard case .isCertificateAuthority? = constraints else {
            throw PayloadError("\(role) certificate \(displayName(certificate)) is not a certificate authority (basic constraints)")
        }
        if let keyUsage = try decoded({ try certificate.extensions.keyUsage }, role: role, extension: "key usage"),
           !keyUsage.keyCertSign {
            throw PayloadError("\(role) certificate \(displayName(certificate)) may not sign certificates (key usage lacks keyCertSign)")
        }
    }

    /// Checks every certificate of the chain gets: version, a sane validity interval, no critical
    /// extension we do not check.
    private static func checkCommon(_ certificate: Certificate, role: String) throws(PayloadError) {
        if certificate.version != .v3, certificate.extensions.count > 0 {
            throw PayloadError("\(role) certificate \(displayName(certificate)) has extensions but is not X.509 v3")
        }
        if certificate.notValidBefore > certificate.notValidAfter {
            throw PayloadError("\(role) certificate \(displayName(certificate)) expires before it becomes valid")
        }
        for ext in certificate.extensions where ext.critical && !understoodCriticalExtensions.contains(ext.oid) {
            throw PayloadError("\(role) certificate \(displayName(certificate)) has an unsupported critical extension \(ext.oid)")
        }
    }

    private static func decoded<T>(_ read: () throws -> T?, role: String, extension name: String) throws(PayloadError) -> T? {
        do {
            return try read()
        } catch {
            throw PayloadError("\(role) certificate has an undecodable \(name) extension")
        }
    }

    /// The subject's common name, quoted, else the whole subject.
    static func displayName(_ certificate: Certificate) -> String {
        for relativeName in certificate.subject {
            for attribute in relativeName where attribute.type == .RDNAttributeType.commonName {
                return "'\(attribute.value)'"
            }
        }
        return "'\(certificate.subject)'"
    }
}
