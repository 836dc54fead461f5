import Crypto
import Foundation
import SubscriptionModel
import SwiftASN1
import Testing
@_spi(FixedExpiryValidationTime) import X509

@testable import LifecycleSimulator

@Suite("deterministic ES256 and the test chain")
struct SigningTests {
    @Test func scalarInverseAndProduct() throws {
        var rng = SplitMix64(state: 42)
        for _ in 0..<50 {
            var bytes: [UInt8] = []
            for _ in 0..<4 { withUnsafeBytes(of: rng.next()) { bytes.append(contentsOf: $0) } }
            let k = P256Scalar(reducingBigEndian: bytes)
            guard !k.isZero else { continue }
            #expect(k.multiplied(by: k.inverse) == .one)
            #expect(k.adding(.zero) == k)
        }
        #expect(P256Scalar.montgomeryFactor == P256Scalar.montgomeryFactorByNewton)
        // (n − 1)² = 1 mod n.
        let minusOne = P256Scalar.order.subtractingReportingBorrow(.one).0
        #expect(minusOne.multiplied(by: minusOne) == .one)
    }

    @Test func signaturesAreDeterministicAndVerifyWithSwiftCrypto() throws {
        let signer = try DeterministicP256Signer(seed: 99, label: "leaf")
        for i in 0..<40 {
            let message = Array("message number \(i) for subdash".utf8)
            let signature = signer.signature(for: message)
            #expect(signature.count == 64)
            #expect(signer.signature(for: message) == signature)
            let parsed = try P256.Signing.ECDSASignature(rawRepresentation: signature)
            #expect(signer.publicKey.isValidSignature(parsed, for: message))
            #expect(!signer.publicKey.isValidSignature(parsed, for: message + [0]))
        }
        #expect(
            try DeterministicP256Signer(seed: 99, label: "leaf").publicKey.rawRepresentation == signer.publicKey.rawRepresentation
        )
        #expect(
            try DeterministicP256Signer(seed: 98, label: "leaf").publicKey.rawRepresentation != signer.publicKey.rawRepresentation
        )
    }

    static func chain() throws -> TestCertificateChain {
        try TestCertificateChain(
            seed: 5, validFrom: UTCCalendar.instant(year: 2023, month: 1, day: 1),
            validUntil: UTCCalendar.instant(year: 2031, month: 1, day: 1))
    }

    @Test func chainCarriesApplesOIDsAndVerifies() async throws {
        let chain = try Self.chain()
        #expect(chain.intermediate.extensions[oid: TestCertificateChain.intermediateMarkerOID] != nil)
        #expect(chain.leaf.extensions[oid: TestCertificateChain.leafMarkerOID] != nil)
        #expect(chain.leaf.extensions[oid: TestCertificateChain.intermediateMarkerOID] == nil)
        #expect(chain.root.publicKey.isValidSignature(chain.intermediate.signature, for: chain.intermediate))
        #expect(chain.intermediate.publicKey.isValidSignature(chain.leaf.signature, for: chain.leaf))
        #expect(chain.root.publicKey.isValidSignature(chain.root.signature, for: chain.root))

        let validationTime = UTCCalendar.instant(year: 2025, month: 6, day: 1).date
        var verifier = Verifier(rootCertificates: CertificateStore([chain.root])) {
            RFC5280Policy(fixedExpiryValidationTime: validationTime)
        }
        let result = await verifier.validate(leaf: chain.leaf, intermediates: CertificateStore([chain.intermediate]))
        guard case .validCertificate(let path) = result else {
            Issue.record("chain did not validate: \(result)")
            return
        }
        #expect(path.count == 3)

        // Same seed, same certificates, byte for byte.
        #expect(try Self.chain().x5cDER() == chain.x5cDER())
        let pem = try chain.rootPEM()
        #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(try Certificate(pemEncoded: pem) == chain.root)
    }

    @Test func generatedJWSVerifyAgainstTheirX5C() throws {
        let dir = Scratch.directory("jws")
        defer { try? FileManager.default.removeItem(at: dir) }
        let simulator = try Simulator(configuration: SimulationConfiguration(seed: 12, subscribers: 25, format: .v2))
        try simulator.generate(into: dir)
        let root = try Certificate(
            pemEncoded: String(decoding: Data(contentsOf: dir.appendingPathComponent("test-root.pem")), as: UTF8.self))
        #expect(root == simulator.chain.root)
        let lines = Scratch.lines(try Data(contentsOf: dir.appendingPathComponent("v2/notifications-0001.ndjson")))
        #expect(!lines.isEmpty)
        for line in lines.prefix(60) {
            let body = try JSONSerialization.jsonObject(with: line) as? [String: Any] ?? [:]
            let outer = body["signedPayload"] as? String ?? ""
            try verify(outer, root: root)
            let payload = try V2Decoded.decode(outer)
            let data = payload["data"] as? [String: Any] ?? [:]
            try verify(data["signedTransactionInfo"] as? String ?? "", root: root)
            try verify(data["signedRenewalInfo"] as? String ?? "", root: root)
        }
    }

    /// Checks one compact JWS like Apple's library: ES256, three x5c certificates chaining to
    /// `root`, the signature by the leaf.
    private func verify(_ jws: String, root: Certificate) throws {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        let segments = V2Decoded.segments(jws)
        let header = try JSONSerialization.jsonObject(with: segments[0]) as? [String: Any] ?? [:]
        #expect(header["alg"] as? String == "ES256")
        let x5c = (header["x5c"] as? [String] ?? []).compactMap { Data(base64Encoded: $0) }
        #expect(x5c.count == 3)
        let certificates = try x5c.map { try Certificate(derEncoded: Array($0)) }
        #expect(certificates[2] == root)
        #expect(certificates[1].publicKey.isValidSignature(certificates[0].signature, for: certificates[0]))
        #expect(root.publicKey.isValidSignature(certificates[1].signature, for: certificates[1]))
        let key = try #require(P256.Signing.PublicKey(certificates[0].publicKey))
        #expect(segments[2].count == 64)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: segments[2])
        #expect(key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
    }
}
