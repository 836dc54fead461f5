import Crypto
import Foundation
import SubscriptionModel

/// Turns one document (of any format `PayloadSniffer` recognises) into the facts it states, or one
/// `PayloadError` saying why not. v2 signatures go through the injected verifier.
///
/// Safe to share between threads: it holds no mutable state.
public struct PayloadDecoder: Sendable {
    public let verifier: any SignatureVerifier
    /// The app's shared secret: a v1 notification whose `password` matches it is trusted as
    /// Apple's; one whose `password` differs is rejected. Without it, v1 data is unverified.
    public let sharedSecret: String?

    public init(verifier: any SignatureVerifier, sharedSecret: String? = nil) {
        self.verifier = verifier
        self.sharedSecret = sharedSecret?.isEmpty == false ? sharedSecret : nil
    }

    /// Decodes one document. `sha256Hex` (of exactly these bytes) may be passed when the caller
    /// has it already; v1 notification ids are `sha256:` + that digest.
    public func decode(_ document: Data, sha256Hex: String? = nil) throws(PayloadError) -> DocumentFacts {
        try IdentifierCheck.utf8(document)
        let facts = try decodeFacts(document, sha256Hex: sha256Hex)
        try IdentifierCheck.identifiers(facts)
        return facts
    }

    private func decodeFacts(_ document: Data, sha256Hex: String?) throws(PayloadError) -> DocumentFacts {
        let parts = SignedParts(verifier: verifier)
        switch try PayloadSniffer.sniff(document) {
        case .v2Signed(let jws, let path):
            return try V2NotificationDecoder(parts: parts).decode(signedPayload: jws, path: path)
        case .v2Decoded(let payload):
            guard !verifier.verifiesSignatures else {
                throw PayloadError(
                    "a decoded v2 notification (notificationType without signedPayload) has no signature "
                        + "to verify: import the original {\"signedPayload\": …} body, or pass --no-verify")
            }
            return try V2NotificationDecoder(parts: parts).decode(payload: FieldReader(payload, path: ""))
        case .v1(let object):
            var facts = try V1NotificationDecoder.decode(object, sha256: sha256Hex ?? Self.sha256Hex(document))
            if let sharedSecret {
                guard case .string(let password)? = object["password"] else {
                    throw PayloadError("password: missing, so the notification cannot be checked against the shared secret")
                }
                guard Self.sameBytes(password, sharedSecret) else {
                    throw PayloadError(
                        "password: does not match the shared secret (--shared-secret): not sent by the App Store for this app")
                }
                facts.sharedSecretMatched = true
            }
            return facts
        case .verifyReceipt(let object):
            return try VerifyReceiptDecoder.decode(object)
        case .statusResponse(let object):
            return try ServerAPIDecoder(parts: parts).statusResponse(object)
        case .transactionHistory(let object):
            return try ServerAPIDecoder(parts: parts).transactionHistory(object)
        case .notificationHistory(let object):
            return try ServerAPIDecoder(parts: parts).notificationHistory(object)
        case .transactionInfo(let jws, let path):
            return try ServerAPIDecoder(parts: parts).transactionInfo(jws, path: path)
        case .renewalInfo(let jws, let path):
            return try ServerAPIDecoder(parts: parts).renewalInfo(jws, path: path)
        case .customersCSV(let text):
            return try CustomersCSV.decode(text)
        }
    }

    /// Compares every byte whatever the first difference, so the time taken says nothing about
    /// how much of a guessed secret was right.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = x.count ^ y.count
        for i in 0..<max(x.count, y.count) {
            difference |= Int((i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0))
        }
        return difference == 0
    }

    /// Lower-case hex SHA-256 of a document's bytes (the archive key and the v1 notification id).
    public static func sha256Hex(_ data: Data) -> String {
        let digest = SHA256.hash(data: data)
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in digest {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
