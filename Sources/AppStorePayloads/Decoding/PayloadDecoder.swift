import Crypto
import Foundation
import SubscriptionModel

/// Turns one document (of any format `PayloadSniffer` recognises) into the facts it states, or one
/// `PayloadError` saying why not. v2 signatures go through the injected verifier.
///
/// Safe to share between threads: it holds no mutable state.
public struct PayloadDecoder: Sendable {
    public let verifier: any SignatureVerifier

    public init(verifier: any SignatureVerifier) { self.verifier = verifier }

    /// Decodes one document. `sha256Hex` (of exactly these bytes) may be passed when the caller
    /// has it already; v1 notification ids are `sha256:` + that digest.
    public func decode(_ document: Data, sha256Hex: String? = nil) throws(PayloadError) -> DocumentFacts {
        let parts = SignedParts(verifier: verifier)
        switch try PayloadSniffer.sniff(document) {
        case .v2Signed(let jws, let path):
            return try V2NotificationDecoder(parts: parts).decode(signedPayload: jws, path: path)
        case .v2Decoded(let payload):
            guard !verifier.verifiesSignatures else {
                throw PayloadError("a decoded v2 notification (notificationType without signedPayload) has no signature "
                    + "to verify: import the original {\"signedPayload\": …} body, or pass --no-verify")
            }
            return try V2NotificationDecoder(parts: parts).decode(payload: FieldReader(payload, path: ""))
        case .v1(let object):
            return try V1NotificationDecoder.decode(object, sha256: sha256Hex ?? Self.sha256Hex(document))
        case .verifyReceipt(let object):
            return try VerifyReceiptDecoder.decode(object)
        case .statusResponse(let object):
            return try ServerAPIDecoder(parts: parts).statusResponse(object)
        case .transactionHistory(let object):
            return try ServerAPIDecoder(parts: parts).transactionHistory(object)
        case .notificationHistory(let object):
            return try ServerAPIDecoder(parts: parts).notificationHistory(object)
        case .customersCSV(let text):
            return try CustomersCSV.decode(text)
        }
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
