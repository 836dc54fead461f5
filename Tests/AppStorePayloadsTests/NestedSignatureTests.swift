import AppStorePayloads
import Foundation
import SubscriptionModel
import Synchronization
import Testing

@testable import LifecycleSimulator

/// A v2 notification's signed transaction and renewal info sit inside its signed payload: the
/// outer signature covers their bytes, so they are read without a verification of their own.
@Suite struct NestedSignatureTests {
    static let chain = Result {
        try TestCertificateChain(
            seed: 11, validFrom: UTCCalendar.instant(year: 2023, month: 1, day: 1),
            validUntil: UTCCalendar.instant(year: 2031, month: 1, day: 1))
    }

    /// The real verifier, counting the JWS it is asked to check.
    final class Counting: SignatureVerifier {
        let verifier: AppleJWSVerifier
        private let checked = Mutex(0)

        init() throws {
            verifier = try AppleJWSVerifier(additionalRootsPEM: [try chain.get().rootPEM()], includeAppleRoot: false)
        }

        var verifiesSignatures: Bool { true }
        var count: Int { checked.withLock { $0 } }

        func payload(ofJWS jws: String) throws(PayloadError) -> Data {
            checked.withLock { $0 += 1 }
            return try verifier.payload(ofJWS: jws)
        }
    }

    static func sign(_ json: String) throws -> String {
        String(decoding: try CompactJWS(chain: chain.get()).sign(Array(json.utf8)), as: UTF8.self)
    }

    static let transaction =
        #"{"transactionId":"5001","originalTransactionId":"5000","productId":"pro.monthly","purchaseDate":1735689600000,"expiresDate":1738368000000,"signedDate":1735689600000,"environment":"Production"}"#
    static let renewal =
        #"{"originalTransactionId":"5000","autoRenewProductId":"pro.monthly","autoRenewStatus":1,"signedDate":1735689600000,"environment":"Production"}"#

    static func payload(transactionInfo: String, renewalInfo: String) -> String {
        #"{"notificationType":"DID_RENEW","notificationUUID":"n-5001","signedDate":1735689600000,"data":{"environment":"Production","signedTransactionInfo":"\#(transactionInfo)","signedRenewalInfo":"\#(renewalInfo)"}}"#
    }

    static func decode(_ body: String, _ verifier: some SignatureVerifier) throws(PayloadError) -> DocumentFacts {
        try PayloadDecoder(verifier: verifier).decode(Data(body.utf8))
    }

    @Test func aNotificationIsOneVerificationAndItsSignedPartsAreRead() throws {
        let verifier = try Counting()
        let body =
            #"{"signedPayload":"\#(try Self.sign(Self.payload(transactionInfo: try Self.sign(Self.transaction), renewalInfo: try Self.sign(Self.renewal))))"}"#
        let facts = try Self.decode(body, verifier)
        #expect(verifier.count == 1)
        #expect(facts.transactions.map(\.transactionId) == ["5001"])
        #expect(facts.renewals.map(\.autoRenewStatus) == [true])
    }

    @Test func aSignedPartChangedAfterSigningBreaksTheOuterSignature() throws {
        let original = try Self.sign(
            Self.payload(transactionInfo: try Self.sign(Self.transaction), renewalInfo: try Self.sign(Self.renewal)))
        // The same outer header and signature over a payload whose transaction says another product.
        let forgedTransaction = try Self.sign(Self.transaction.replacingOccurrences(of: "pro.monthly", with: "pro.yearly"))
        let forgedPayload = Self.payload(transactionInfo: forgedTransaction, renewalInfo: try Self.sign(Self.renewal))
        let parts = original.split(separator: ".").map(String.init)
        let payloadSegment: String = Data(forgedPayload.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let forged = [parts[0], payloadSegment, parts[2]].joined(separator: ".")
        #expect(throws: PayloadError.self) { try Self.decode(#"{"signedPayload":"\#(forged)"}"#, try Counting()) }
        do {
            _ = try Self.decode(#"{"signedPayload":"\#(forged)"}"#, try Counting())
        } catch let error as PayloadError {
            #expect(
                error.reason
                    == "signedPayload: JWS signature does not verify with the leaf certificate's key (payload altered or signed by someone else)"
            )
        }
    }

    @Test func aSignedPartMustStillBeACompactJWS() throws {
        let body =
            #"{"signedPayload":"\#(try Self.sign(Self.payload(transactionInfo: "not a token", renewalInfo: try Self.sign(Self.renewal))))"}"#
        #expect(throws: PayloadError.self) { try Self.decode(body, try Counting()) }
    }

    @Test func anAPIResponseHasNoOuterSignatureSoEachPartIsVerified() throws {
        let verifier = try Counting()
        let body =
            #"{"bundleId":"com.example.app","environment":"Production","hasMore":false,"signedTransactions":["\#(try Self.sign(Self.transaction))","\#(try Self.sign(Self.transaction.replacingOccurrences(of: "5001", with: "5002")))"]}"#
        let facts = try Self.decode(body, verifier)
        #expect(verifier.count == 2)
        #expect(facts.transactions.count == 2)
    }
}
