import Foundation
import SubscriptionModel

/// Recognises which of Apple's formats a document is in (v2 and v1 notifications, `/verifyReceipt`
/// responses, App Store Server API responses, customer CSV rows: docs/architecture.md, "From a file
/// to a figure on screen").
enum PayloadSniffer {
    /// A document, recognised and parsed as far as recognising needed.
    enum Sniffed {
        case v2Signed(jws: String, path: String)
        case v2Decoded(JSONObject)
        case v1(JSONObject)
        case verifyReceipt(JSONObject)
        case statusResponse(JSONObject)
        case transactionHistory(JSONObject)
        case notificationHistory(JSONObject)
        /// A Get Transaction Info response's `signedTransactionInfo`, or a bare signed transaction.
        case transactionInfo(jws: String, path: String)
        /// A bare signed renewal info.
        case renewalInfo(jws: String, path: String)
        case customersCSV(String)

        var format: PayloadFormat {
            switch self {
            case .v2Signed, .v2Decoded: return .v2Notification
            case .v1: return .v1Notification
            case .verifyReceipt: return .verifyReceipt
            case .statusResponse: return .statusResponse
            case .transactionHistory: return .transactionHistory
            case .notificationHistory: return .notificationHistory
            case .transactionInfo: return .transactionInfo
            case .renewalInfo: return .renewalInfo
            case .customersCSV: return .customersCSV
            }
        }
    }

    static func sniff(_ data: Data) throws(PayloadError) -> Sniffed {
        guard let first = firstSignificantByte(data) else { throw PayloadError("empty document") }
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""):
            return try sniff(JSONParser.parse(data))
        default:
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if isCompactJWS(text) { return bare(text) }
            if let firstLine = text.split(whereSeparator: \.isNewline).first, CustomersCSV.header(firstLine) != nil {
                return .customersCSV(text)
            }
            if looksLikeJWS(text) {
                throw PayloadError(
                    "a compact JWS must be three base64url segments separated by dots; "
                        + "this one has \(text.split(separator: ".", omittingEmptySubsequences: false).count)")
            }
            // Not JSON, not JWS, not CSV: let the parser say where it went wrong.
            return try sniff(JSONParser.parse(data))
        }
    }

    static func sniff(_ value: JSONValue) throws(PayloadError) -> Sniffed {
        let object: JSONObject
        switch value {
        case .object(let o): object = o
        case .string(let s):
            guard isCompactJWS(s) else {
                throw PayloadError("unrecognised document: a JSON string that is not a compact JWS (header.payload.signature)")
            }
            return bare(s)
        default:
            throw PayloadError("unrecognised document: \(value.kindDescription) \(notAnything)")
        }
        if case .string(let jws)? = object["signedPayload"] { return .v2Signed(jws: jws, path: "signedPayload") }
        if object["signedPayload"] != nil {
            throw FieldReader(object, path: "").mismatch(
                "signedPayload", expected: "a compact JWS string",
                found: object["signedPayload"]!)
        }
        if object["notification_type"] != nil { return .v1(object) }
        // Get Transaction Info: `{"signedTransactionInfo": JWS}` at the top level (a status
        // response nests it in `data[].lastTransactions[]`, a v2 notification in `data`).
        if case .string(let jws)? = object["signedTransactionInfo"], object["notificationType"] == nil {
            return .transactionInfo(jws: jws, path: "signedTransactionInfo")
        }
        if object["notificationType"] != nil, object["notificationUUID"] != nil { return .v2Decoded(object) }
        if object["status"] != nil, object["receipt"] != nil || object["latest_receipt_info"] != nil {
            return .verifyReceipt(object)
        }
        // A failed verifyReceipt call answers only `{"status": 21007}` (maybe with `environment`).
        if case .integer(let status)? = object["status"], status != 0,
            object.keys.allSatisfy({ ["status", "environment", "is_retryable", "exception"].contains($0) })
        {
            return .verifyReceipt(object)
        }
        if case .array(let groups)? = object["data"],
            groups.allSatisfy({ $0.object?["lastTransactions"] != nil }),
            !groups.isEmpty || object["bundleId"] != nil || object["appAppleId"] != nil
        {
            return .statusResponse(object)
        }
        if object["signedTransactions"] != nil { return .transactionHistory(object) }
        if object["notificationHistory"] != nil { return .notificationHistory(object) }

        let keys = object.keys
        let shown = keys.prefix(8).joined(separator: ", ") + (keys.count > 8 ? ", …" : "")
        let described = keys.isEmpty ? "an empty object" : "an object with key\(keys.count == 1 ? "" : "s") \(shown)"
        throw PayloadError("unrecognised document: \(described) \(notAnything)")
    }

    /// A bare compact JWS, by what its payload holds: a notification, a signed transaction or a
    /// renewal info. The payload is only looked at here, to choose the decoder; the decoder
    /// verifies the signature before it reads a field. What cannot be looked at goes to the
    /// notification decoder, whose verification says what is wrong with it.
    private static func bare(_ jws: String) -> Sniffed {
        let path = "JWS"
        guard let payload = try? UnverifiedJWS().payload(ofJWS: jws), case .object(let o)? = try? JSONParser.parse(payload)
        else { return .v2Signed(jws: jws, path: path) }
        if o["notificationType"] != nil { return .v2Signed(jws: jws, path: path) }
        if o["transactionId"] != nil { return .transactionInfo(jws: jws, path: path) }
        if o["originalTransactionId"] != nil, o["autoRenewStatus"] != nil || o["autoRenewProductId"] != nil {
            return .renewalInfo(jws: jws, path: path)
        }
        return .v2Signed(jws: jws, path: path)
    }

    private static let notAnything =
        "is not a v1 or v2 notification, verifyReceipt response or App Store Server API response"

    /// Three non-empty base64url segments (the signature may be empty for unsigned examples).
    static func isCompactJWS(_ text: String) -> Bool {
        var segments = 1
        var segmentLength = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                if segmentLength == 0 { return false }
                segments += 1
                segmentLength = 0
                continue
            }
            guard isBase64URL(byte) else { return false }
            segmentLength += 1
        }
        return segments == 3
    }

    /// Base64url text with dots, but not three segments.
    static func looksLikeJWS(_ text: String) -> Bool {
        text.hasPrefix("eyJ") && text.utf8.allSatisfy { isBase64URL($0) || $0 == UInt8(ascii: ".") }
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    static func firstSignificantByte(_ data: Data) -> UInt8? {
        for byte in data {
            switch byte {
            case 0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF: continue
            default: return byte
            }
        }
        return nil
    }
}

extension PayloadFormat {
    /// Recognises a document's format without decoding its facts (nor verifying signatures).
    /// Throws the same "unrecognised document: …" reason the decoder would.
    public init(sniffing document: Data) throws(PayloadError) {
        self = try PayloadSniffer.sniff(document).format
    }
}
