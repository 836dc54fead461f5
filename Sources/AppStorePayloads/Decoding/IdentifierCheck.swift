import Foundation
import SubscriptionModel

/// Rejects a document whose bytes are not UTF-8, or whose decoded identifiers hold a character
/// no identifier has: NUL and other control characters, or U+FFFD (what a bad byte in a signed
/// payload decodes to). Such a value would be stored as a key that no search or report can
/// match, or shown as something other than what was sent.
enum IdentifierCheck {
    /// Throws when `document` is not valid UTF-8, naming the byte where it stops being so.
    static func utf8(_ document: Data) throws(PayloadError) {
        if let offset = firstInvalidUTF8(document) {
            throw PayloadError("the document is not valid UTF-8 (byte \(offset)): App Store documents are UTF-8 JSON or CSV")
        }
    }

    /// The offset of the first byte that is not part of a valid UTF-8 sequence, or nil.
    static func firstInvalidUTF8(_ data: Data) -> Int? {
        data.withUnsafeBytes { raw -> Int? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var i = 0
            let n = bytes.count
            while i < n {
                let b = bytes[i]
                if b < 0x80 {
                    i += 1
                    continue
                }
                let length: Int
                var minimum: UInt32
                var scalar: UInt32
                switch b {
                case 0xC2...0xDF:
                    length = 2
                    minimum = 0x80
                    scalar = UInt32(b & 0x1F)
                case 0xE0...0xEF:
                    length = 3
                    minimum = 0x800
                    scalar = UInt32(b & 0x0F)
                case 0xF0...0xF4:
                    length = 4
                    minimum = 0x10000
                    scalar = UInt32(b & 0x07)
                default: return i
                }
                guard i + length <= n else { return i }
                for k in 1..<length {
                    let c = bytes[i + k]
                    guard c & 0xC0 == 0x80 else { return i }
                    scalar = scalar << 6 | UInt32(c & 0x3F)
                }
                if scalar < minimum || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) { return i }
                i += length
            }
            return nil
        }
    }

    /// Throws naming the first identifier of `facts` that holds a control character or U+FFFD.
    static func identifiers(_ facts: DocumentFacts) throws(PayloadError) {
        for n in facts.notifications {
            try check("notificationId", n.notificationId)
            try check("notificationType", n.notificationType)
            try check("subtype", n.subtype)
            try check("originalTransactionId", n.originalTransactionId)
            try check("transactionId", n.transactionId)
            try check("bundleId", n.bundleId)
        }
        for t in facts.transactions {
            try check("transactionId", t.transactionId)
            try check("originalTransactionId", t.originalTransactionId)
            try check("webOrderLineItemId", t.webOrderLineItemId)
            try check("productId", t.productId)
            try check("subscriptionGroupIdentifier", t.subscriptionGroupIdentifier)
            try check("offerIdentifier", t.offerIdentifier)
            try check("appAccountToken", t.appAccountToken)
        }
        for r in facts.renewals {
            try check("originalTransactionId", r.originalTransactionId)
            try check("productId", r.productId)
            try check("autoRenewProductId", r.autoRenewProductId)
            try check("transactionId", r.transactionId)
        }
        for c in facts.customers {
            try check("userId", c.userId)
            try check("email", c.email)
            try check("appAccountToken", c.appAccountToken)
            try check("originalTransactionId", c.originalTransactionId)
        }
        try renewalDetails(facts)
    }

    /// The renewal details (docs/metrics.md, "Renewal details from Apple") are searched for and
    /// shown: the same rule.
    static func renewalDetails(_ facts: DocumentFacts) throws(PayloadError) {
        for t in facts.transactions {
            try check("appTransactionId", t.appTransactionId)
            try check("offerPeriod", t.offerPeriod)
            try check("transactionReason", t.transactionReason)
        }
        for r in facts.renewals {
            try check("appTransactionId", r.appTransactionId)
            try check("currency", r.renewalCurrency)
            try check("offerPeriod", r.offerPeriod)
            for id in r.eligibleWinBackOfferIds ?? [] { try check("eligibleWinBackOfferIds", id) }
        }
    }

    private static func check(_ field: String, _ value: String?) throws(PayloadError) {
        guard let value else { return }
        for scalar in value.unicodeScalars {
            switch scalar.value {
            case 0x00:
                throw PayloadError("\(field) holds a NUL character (\\u0000): not an identifier")
            case 0x01...0x1F, 0x7F...0x9F:
                throw PayloadError(
                    "\(field) holds the control character U+\(String(format: "%04X", scalar.value)): not an identifier")
            case 0xFFFD:
                throw PayloadError("\(field) holds U+FFFD (bytes that were not UTF-8): not an identifier")
            default:
                continue
            }
        }
    }
}
