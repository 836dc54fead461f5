import AppStorePayloads
import Foundation

/// The import's decoder (subdash's own JSON tape parser, `PayloadDecoder`) against what a Swift
/// programmer would write instead: swift-foundation's `JSONDecoder` into `Decodable` types holding
/// the same fields, and `JSONSerialization` into dictionaries. Signatures are not checked on
/// either side (the hand path uses `UnverifiedJWS`), so only decoding is compared. The hand path
/// does more (it builds the facts the store keeps and validates every field); the Codable path
/// stops at typed values, so the comparison favours Foundation.
///
/// Thread CPU time per document, every decoder on the same document one after the other, so load
/// from other processes weighs on all alike.
struct DecodeBench {
    static let names = ["subdash (PayloadDecoder)", "JSONDecoder + Decodable", "JSONSerialization"]

    struct Figures {
        var documents = 0
        var bytes = 0
        var cpu = [0.0, 0.0, 0.0]
        var failures = [0, 0, 0]
    }

    static func measure(directory: String, limit: Int) throws -> String {
        let files = (FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? [])
            .filter { $0.contains(".ndjson") || $0.hasSuffix(".json") }.filter { !$0.hasPrefix("manifest") }.sorted()
        let reader = DocumentReader()
        let hand = PayloadDecoder(verifier: UnverifiedJWS())
        let json = JSONDecoder()
        var f = Figures()
        outer: for file in files {
            for document in try reader.documents(atPath: directory + "/" + file) {
                guard f.documents < limit else { break outer }
                guard let body = document.bytes else { continue }
                f.documents += 1
                f.bytes += body.count
                let decoders: [() throws -> Void] = [
                    { _ = try hand.decode(body) },
                    { try CodableDecode.decode(body, with: json) },
                    { try SerializationDecode.decode(body) },
                ]
                for (i, decode) in decoders.enumerated() {
                    let t0 = ArchiveCodecBench.threadCPU()
                    do { try decode() } catch { f.failures[i] += 1 }
                    f.cpu[i] += ArchiveCodecBench.threadCPU() - t0
                }
            }
        }
        guard f.documents > 0 else { return "no documents under \(directory)\n" }
        let n = Double(f.documents)
        var md = "| decoder | µs per document | relative to subdash | documents it failed on |\n|---|---|---|---|\n"
        for (i, name) in names.enumerated() {
            md += "| \(name) | \(String(format: "%.1f", f.cpu[i] / n * 1e6)) | "
            md += "\(String(format: "%.2f×", f.cpu[i] / f.cpu[0])) | \(f.failures[i]) |\n"
        }
        md += "\n\(f.documents) documents, \(f.bytes / f.documents) bytes each on average, from \(directory).\n"
        return md
    }
}

/// Decodes a v1 notification or a v2 `{"signedPayload": …}` body into `Decodable` types with the
/// fields the import reads, the nested JWS segments base64url-decoded with Foundation.
enum CodableDecode {
    struct Kind: Decodable {
        let signedPayload: String?
        let notification_type: String?
    }

    static func decode(_ body: Data, with decoder: JSONDecoder) throws {
        let kind = try decoder.decode(Kind.self, from: body)
        if let jws = kind.signedPayload {
            let payload = try decoder.decode(V2Payload.self, from: try jwsPayload(jws))
            if let t = payload.data?.signedTransactionInfo {
                _ = try decoder.decode(V2Transaction.self, from: try jwsPayload(t))
            }
            if let r = payload.data?.signedRenewalInfo {
                _ = try decoder.decode(V2Renewal.self, from: try jwsPayload(r))
            }
        } else if kind.notification_type != nil {
            let n = try decoder.decode(V1Notification.self, from: body)
            for row in n.unified_receipt?.latest_receipt_info ?? [] {
                guard Int64(row.purchase_date_ms) != nil, Int64(row.transaction_id) != nil else { throw BadValue() }
                _ = row.expires_date_ms.flatMap { Int64($0) }
                _ = row.cancellation_date_ms.flatMap { Int64($0) }
            }
        } else {
            throw BadValue()
        }
    }

    struct BadValue: Error {}

    /// The payload segment, base64url mapped to base64 byte by byte and decoded by Foundation.
    static func jwsPayload(_ jws: String) throws -> Data {
        let parts = jws.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw BadValue() }
        var bytes = [UInt8]()
        bytes.reserveCapacity(parts[1].count + 3)
        for byte in parts[1] {
            bytes.append(byte == UInt8(ascii: "-") ? UInt8(ascii: "+") : byte == UInt8(ascii: "_") ? UInt8(ascii: "/") : byte)
        }
        while bytes.count % 4 != 0 { bytes.append(UInt8(ascii: "=")) }
        guard let data = Data(base64Encoded: Data(bytes)) else { throw BadValue() }
        return data
    }

    struct V1Notification: Decodable {
        let notification_type: String
        let environment: String?
        let bid: String?
        let auto_renew_status: String?
        let auto_renew_status_change_date_ms: String?
        let unified_receipt: UnifiedReceipt?
    }

    struct UnifiedReceipt: Decodable {
        let environment: String?
        let latest_receipt_info: [ReceiptRow]?
        let pending_renewal_info: [PendingRenewal]?
    }

    struct ReceiptRow: Decodable {
        let transaction_id: String
        let original_transaction_id: String
        let product_id: String
        let purchase_date_ms: String
        let original_purchase_date_ms: String?
        let expires_date_ms: String?
        let web_order_line_item_id: String?
        let is_trial_period: String?
        let is_in_intro_offer_period: String?
        let cancellation_date_ms: String?
        let cancellation_reason: String?
        let promotional_offer_id: String?
        let offer_code_ref_name: String?
        let subscription_group_identifier: String?
        let is_upgraded: String?
        let in_app_ownership_type: String?
        let app_account_token: String?
    }

    struct PendingRenewal: Decodable {
        let original_transaction_id: String
        let product_id: String?
        let auto_renew_product_id: String?
        let auto_renew_status: String?
        let expiration_intent: String?
        let grace_period_expires_date_ms: String?
        let is_in_billing_retry_period: String?
        let price_consent_status: String?
        let price_increase_status: String?
    }

    struct V2Payload: Decodable {
        struct Payload: Decodable {
            let bundleId: String?
            let environment: String?
            let signedTransactionInfo: String?
            let signedRenewalInfo: String?
            let status: Int?
        }
        let notificationType: String
        let subtype: String?
        let notificationUUID: String
        let signedDate: Int64
        let data: Payload?
    }

    struct V2Transaction: Decodable {
        let transactionId: String
        let originalTransactionId: String
        let webOrderLineItemId: String?
        let productId: String
        let subscriptionGroupIdentifier: String?
        let purchaseDate: Int64
        let originalPurchaseDate: Int64?
        let expiresDate: Int64?
        let offerType: Int?
        let offerIdentifier: String?
        let offerDiscountType: String?
        let revocationDate: Int64?
        let revocationReason: Int?
        let isUpgraded: Bool?
        let inAppOwnershipType: String?
        let environment: String?
        let signedDate: Int64?
        let appAccountToken: String?
        let price: Int64?
        let currency: String?
    }

    struct V2Renewal: Decodable {
        let originalTransactionId: String
        let autoRenewProductId: String?
        let autoRenewStatus: Int?
        let expirationIntent: Int?
        let gracePeriodExpiresDate: Int64?
        let isInBillingRetryPeriod: Bool?
        let priceIncreaseStatus: Int?
        let signedDate: Int64?
    }
}

/// The same documents into `[String: Any]` with `JSONSerialization`, the nested JWS segments too.
enum SerializationDecode {
    static func decode(_ body: Data) throws {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else { throw CodableDecode.BadValue() }
        guard let jws = object["signedPayload"] as? String else { return }
        guard let payload = try JSONSerialization.jsonObject(with: CodableDecode.jwsPayload(jws)) as? [String: Any],
            let data = payload["data"] as? [String: Any]
        else { throw CodableDecode.BadValue() }
        for key in ["signedTransactionInfo", "signedRenewalInfo"] {
            if let nested = data[key] as? String { _ = try JSONSerialization.jsonObject(with: CodableDecode.jwsPayload(nested)) }
        }
    }
}
