import Crypto
import Dispatch
import Foundation
import SwiftASN1
import Synchronization
@_spi(DisableValidityCheck) import X509

/// An App Store certificate chain (leaf, intermediate, trusted root) that passed every check that
/// does not depend on time, with what the per-document check still needs: the leaf's P-256 key
/// and the validity interval of each certificate.
///
/// The chain is validated by swift-certificates' `Verifier` with `RFC5280Policy` (version, name
/// chaining, signatures, basic constraints, key usage, name constraints, no unhandled critical
/// extension) and ``AppleSigningChainPolicy`` (Apple's OIDs, three certificates, a P-256 leaf).
/// Time is left out of that check on purpose: a chain is validated once per import (``ChainCache``)
/// and each document is then checked against the validity intervals at its own `signedDate`, as
/// Apple's library does.
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

// MARK: - Validation

extension TrustedChain {
    static let wwdrIntermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    static let receiptSigningLeafOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    static let untrustedMessage =
        "certificate chain does not chain to a trusted root (pass --trust-root PEM for sandbox or test data)"

    /// Checks leaf → intermediate → one of `roots`, at no particular time, with `X509.Verifier`.
    static func validate(leaf: Certificate, intermediate: Certificate, roots: [Certificate]) throws(PayloadError) -> TrustedChain
    {
        let outcome = ChainVerification.run {
            var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
                RFC5280Policy.withValidityCheckDisabled()
                AppleSigningChainPolicy()
            }
            return await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        }
        switch outcome {
        case .validCertificate(let chain):
            let certificates = Array(chain)
            // AppleSigningChainPolicy admitted only [leaf, intermediate, root] with a P-256 leaf.
            guard certificates.count == 3, let leafKey = P256.Signing.PublicKey(certificates[0].publicKey) else {
                throw PayloadError(untrustedMessage)
            }
            let validities = zip(certificates, ["leaf", "intermediate", "root"]).map { certificate, role in
                Validity(
                    role: role, name: displayName(certificate),
                    notBefore: certificate.notValidBefore, notAfter: certificate.notValidAfter)
            }
            return TrustedChain(
                leafKey: leafKey,
                validities: validities,
                notBefore: validities.map(\.notBefore).max()!,
                notAfter: validities.map(\.notAfter).min()!
            )
        case .couldNotValidate(let failures):
            throw PayloadError(explanation(leaf: leaf, intermediate: intermediate, roots: roots, failures: failures))
        }
    }

    /// Why the verifier found no chain, in the words a person acts on: Apple's policy speaks for
    /// itself; otherwise the most specific of a broken link, an untrusted root, or the verifier's
    /// own reason.
    private static func explanation(
        leaf: Certificate, intermediate: Certificate, roots: [Certificate],
        failures: [CertificateValidationResult.PolicyFailure]
    ) -> String {
        let reasons = failures.map { String(describing: $0.policyFailureReason) }
        if let apple = reasons.first(where: { $0.hasPrefix(AppleSigningChainPolicy.reasonPrefix) }) {
            return String(apple.dropFirst(AppleSigningChainPolicy.reasonPrefix.count))
        }
        guard leaf.issuer == intermediate.subject,
            intermediate.publicKey.isValidSignature(leaf.signature, for: leaf)
        else {
            return "certificate chain is broken: the leaf is not issued by the intermediate in x5c"
        }
        guard
            roots.contains(where: {
                $0.subject == intermediate.issuer && $0.publicKey.isValidSignature(intermediate.signature, for: intermediate)
            })
        else {
            return untrustedMessage
        }
        if let reason = reasons.first { return "certificate chain rejected: \(reason)" }
        return "certificate chain rejected (a certificate is not allowed to sign, or has an unsupported critical extension)"
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

/// Apple's requirements on top of RFC 5280, as its App Store Server Library states them: three
/// certificates (leaf, intermediate, root), Apple's WWDR OID on the intermediate, the
/// receipt-signing OID on the leaf, and a leaf that can sign ES256.
struct AppleSigningChainPolicy: VerifierPolicy {
    /// Marks this policy's reasons among the verifier's (which come from every policy).
    static let reasonPrefix = "apple-policy: "

    /// The OIDs are markers, not constraints this policy enforces beyond their presence; a critical
    /// one would be understood here.
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [
        TrustedChain.wwdrIntermediateOID, TrustedChain.receiptSigningLeafOID,
    ]

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        let certificates = Array(chain)
        guard certificates.count == 3 else {
            return Self.fails(
                "certificate chain has \(certificates.count) certificate\(certificates.count == 1 ? "" : "s") "
                    + "from leaf to trusted root, expected 3 (leaf, intermediate, root)")
        }
        let leaf = certificates[0]
        let intermediate = certificates[1]
        guard intermediate.extensions[oid: TrustedChain.wwdrIntermediateOID] != nil else {
            return Self.fails(
                "intermediate certificate \(TrustedChain.displayName(intermediate)) lacks Apple's WWDR OID "
                    + "1.2.840.113635.100.6.2.1 (not an App Store signing chain)")
        }
        guard leaf.extensions[oid: TrustedChain.receiptSigningLeafOID] != nil else {
            return Self.fails(
                "leaf certificate \(TrustedChain.displayName(leaf)) lacks Apple's receipt-signing OID "
                    + "1.2.840.113635.100.6.11.1 (not an App Store signing chain)")
        }
        if let keyUsage = try? leaf.extensions.keyUsage, !keyUsage.digitalSignature {
            return Self.fails(
                "leaf certificate \(TrustedChain.displayName(leaf)) may not sign data (key usage lacks digitalSignature)")
        }
        guard P256.Signing.PublicKey(leaf.publicKey) != nil else {
            return Self.fails("leaf certificate \(TrustedChain.displayName(leaf)) holds no P-256 key, so it cannot sign ES256")
        }
        return .meetsPolicy
    }

    private static func fails(_ reason: String) -> PolicyEvaluationResult {
        .failsToMeetPolicy(reason: reasonPrefix + reason)
    }
}

/// Runs the verifier's `async` work to completion from the importer's synchronous threads.
///
/// The work runs on a serial queue of its own (a task executor preference), never on the
/// cooperative pool: a caller blocked here — even one that is itself on the pool, such as the
/// notification listener — cannot starve the work it waits for. Chains are validated once per
/// chain per import (``ChainCache``), so this is off the per-document path.
enum ChainVerification {
    private final class Executor: TaskExecutor {
        private let queue = DispatchQueue(label: "subdash.chain-verification")

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedTaskExecutor()
            queue.async { job.runSynchronously(on: executor) }
        }
    }

    private static let executor = Executor()

    private final class Outcome<T: Sendable>: Sendable {
        let value = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    static func run<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let outcome = Outcome<T>()
        Task(executorPreference: executor) {
            let value = await work()
            outcome.value.withLock { $0 = value }
            outcome.done.signal()
        }
        outcome.done.wait()
        return outcome.value.withLock { $0! }
    }
}
