import AppStorePayloads
import Foundation
import StoreImport
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

@testable import LifecycleSimulator

/// Real App Store documents written by hand, field by field, in the wire format of each version
/// (v1 notifications and `/verifyReceipt` responses; v2 signed notifications, transactions and
/// renewal information), then imported through
/// `Importer.appStore` from files, exactly as `subdash import` does. v2 documents are signed with
/// the simulator's test chain and verified against its root.
enum Wire {
    static let bundleId = "com.example.app"
    static let group = "20667927"

    /// `2025-04-16T23:59:59.999Z`. Milliseconds are added exactly (a `Date` round trip could
    /// turn .999 into .998).
    static func at(_ iso: String) -> Instant {
        let parts = iso.dropLast().split(separator: ".")
        let base = Instant(parsing: parts[0] + "Z")!
        return parts.count == 2 ? base.adding(milliseconds: Int64(parts[1])!) : base
    }

    // MARK: - JSON text

    /// A JSON value as the wire spells it.
    enum Value {
        case string(String)
        case int(Int64)
        case bool(Bool)
        /// Already JSON (a nested object or array).
        case raw(String)
    }

    /// An object with its keys in the given order; nil values are left out.
    static func object(_ fields: [(String, Value?)]) -> String {
        let members = fields.compactMap { key, value -> String? in
            guard let value else { return nil }
            let text: String =
                switch value {
                case .string(let s): quoted(s)
                case .int(let i): String(i)
                case .bool(let b): b ? "true" : "false"
                case .raw(let r): r
                }
            return quoted(key) + ":" + text
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    static func array(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }

    static func quoted(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\"", with: "\\\"") + "\"" }

    // MARK: - v1 spellings

    /// `"1736071200000"`: v1 milliseconds are strings.
    static func v1ms(_ t: Instant) -> Value { .string(String(t.milliseconds)) }
    /// `"2025-01-05 10:00:00 Etc/GMT"`.
    static func v1date(_ t: Instant) -> Value {
        .string(t.iso8601.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " Etc/GMT"))
    }
    static func v1bool(_ b: Bool) -> Value { .string(b ? "true" : "false") }
    static func v1digit(_ b: Bool) -> Value { .string(b ? "1" : "0") }

    // MARK: - Importing

    /// The test chain every v2 document here is signed with (valid 2024–2027), made once.
    static func chain() throws -> TestCertificateChain { try sharedChain.get() }

    private static let sharedChain = Result {
        try TestCertificateChain(seed: 20_250_105, validFrom: at("2024-01-01T00:00:00Z"), validUntil: at("2027-01-01T00:00:00Z"))
    }

    /// Writes each document to its own file in a fresh directory (names keep the given order:
    /// the importer reads a directory in name order) and imports the directory into `database`.
    /// Returns the rejection lines, which a test expects to be empty.
    @discardableResult
    static func importDocuments(_ documents: [String], into database: AppDatabase, chain: TestCertificateChain) throws -> [String]
    {
        let dir = try TemporaryDirectory("wire")
        defer { dir.remove() }
        for (i, body) in documents.enumerated() {
            try body.write(toFile: dir.path(String(format: "%04d.json", i)), atomically: true, encoding: .utf8)
        }
        let verifier = try AppleJWSVerifier(additionalRootsPEM: [chain.rootPEM()], includeAppleRoot: false)
        let rejections = Lines()
        // The v1 documents carry the app's shared secret: trusted like signed data, as Apple's.
        let importer = Importer.appStore(
            database: database, verifier: verifier, sharedSecret: "<shared secret>",
            report: { rejections.append($0) })
        _ = try importer.importPaths([dir.path])
        return rejections.all
    }

    /// A fresh in-memory store holding `documents`.
    static func store(_ documents: [String], chain: TestCertificateChain) throws -> (SubscriberAnalytics, [String]) {
        let db = try AppDatabase.inMemory()
        let rejections = try importDocuments(documents, into: db, chain: chain)
        return (SubscriberAnalytics(database: db), rejections)
    }
}

// MARK: - A transaction, in both spellings

/// One transaction (one period) of a story, as Apple would report it.
struct WireTransaction {
    var transactionId: String
    var originalTransactionId: String
    var webOrderLineItemId: String
    var productId: String
    var purchaseDate: Instant
    var originalPurchaseDate: Instant
    var expiresDate: Instant
    var price: Int64
    var appAccountToken: String?
    /// v2 `revocationDate` / v1 `cancellation_date_ms`.
    var revocationDate: Instant?
    var revocationReason: Int?
    /// v1 only: `is_upgraded` on the row the upgrade cancelled (v2 never resends that transaction).
    var isUpgraded = false
    var isRenewal = true
    /// `inAppOwnershipType` / v1 `in_app_ownership_type`: `PURCHASED` or `FAMILY_SHARED`.
    var ownership = "PURCHASED"
    /// v2 `revocationType` of a revoked transaction (`REFUND_FULL` unless set; v1 has none).
    var revocationType: String?
    /// v2 `type`; another than an auto-renewable subscription's has no `expiresDate` and no group.
    var type = "Auto-Renewable Subscription"
    /// v2 `environment`.
    var environment = "Production"
    /// v2 `appTransactionId` and `offerPeriod` (docs/metrics.md, "Renewal details from Apple").
    var appTransactionId: String?
    var offerPeriod: String?
    /// v2 `billingPlanType` and `commitmentInfo`, already JSON (docs/metrics.md, "Billing plans and commitments").
    var billingPlanType: String?
    var commitmentInfo: String?

    /// A `latest_receipt_info` row: every value a string.
    var v1Row: String {
        Wire.object([
            ("quantity", .string("1")),
            ("product_id", .string(productId)),
            ("transaction_id", .string(transactionId)),
            ("original_transaction_id", .string(originalTransactionId)),
            ("purchase_date", Wire.v1date(purchaseDate)),
            ("purchase_date_ms", Wire.v1ms(purchaseDate)),
            ("original_purchase_date", Wire.v1date(originalPurchaseDate)),
            ("original_purchase_date_ms", Wire.v1ms(originalPurchaseDate)),
            ("expires_date", Wire.v1date(expiresDate)),
            ("expires_date_ms", Wire.v1ms(expiresDate)),
            ("cancellation_date", revocationDate.map(Wire.v1date)),
            ("cancellation_date_ms", revocationDate.map(Wire.v1ms)),
            ("cancellation_reason", revocationReason.map { .string(String($0)) }),
            ("web_order_line_item_id", .string(webOrderLineItemId)),
            ("is_upgraded", isUpgraded ? .string("true") : nil),
            ("is_trial_period", .string("false")),
            ("is_in_intro_offer_period", .string("false")),
            ("in_app_ownership_type", .string(ownership)),
            ("subscription_group_identifier", .string(Wire.group)),
            ("app_account_token", appAccountToken.map(Value.string)),
        ])
    }

    /// A `JWSTransactionDecodedPayload` signed at `signedDate`.
    func v2Payload(signedDate: Instant) -> String {
        Wire.object([
            ("transactionId", .string(transactionId)),
            ("originalTransactionId", .string(originalTransactionId)),
            ("webOrderLineItemId", .string(webOrderLineItemId)),
            ("bundleId", .string(Wire.bundleId)),
            ("productId", .string(productId)),
            ("subscriptionGroupIdentifier", isAutoRenewable ? .string(Wire.group) : nil),
            ("purchaseDate", .int(purchaseDate.milliseconds)),
            ("originalPurchaseDate", .int(originalPurchaseDate.milliseconds)),
            ("expiresDate", isAutoRenewable ? .int(expiresDate.milliseconds) : nil),
            ("quantity", .int(1)),
            ("type", .string(type)),
            ("appAccountToken", appAccountToken.map(Value.string)),
            ("inAppOwnershipType", .string(ownership)),
            ("signedDate", .int(signedDate.milliseconds)),
            ("revocationReason", revocationReason.map { .int(Int64($0)) }),
            ("revocationDate", revocationDate.map { .int($0.milliseconds) }),
            ("revocationType", revocationDate == nil ? nil : .string(revocationType ?? "REFUND_FULL")),
            ("environment", .string(environment)),
            ("transactionReason", .string(isRenewal ? "RENEWAL" : "PURCHASE")),
            ("storefront", .string("USA")),
            ("storefrontId", .string("143441")),
            ("price", .int(price)),
            ("currency", .string("USD")),
            ("appTransactionId", appTransactionId.map(Value.string)),
            ("offerPeriod", offerPeriod.map(Value.string)),
            ("billingPlanType", billingPlanType.map(Value.string)),
            ("commitmentInfo", commitmentInfo.map(Value.raw)),
        ])
    }

    private var isAutoRenewable: Bool { type == "Auto-Renewable Subscription" }
}

private typealias Value = Wire.Value

// MARK: - Documents

/// `pending_renewal_info` (v1) / `JWSRenewalInfoDecodedPayload` (v2) values.
struct WireRenewal {
    var productId: String
    var autoRenewProductId: String
    var autoRenewStatus = true
    var isInBillingRetryPeriod: Bool?
    var gracePeriodExpiresDate: Instant?
    var priceIncreaseStatus: Int?
    var expirationIntent: Int?
    /// v2 renewal details (docs/metrics.md, "Renewal details from Apple").
    var renewalPrice: Int64?
    var currency: String?
    var eligibleWinBackOfferIds: [String]?
    var appTransactionId: String?

    /// The renewal details as members of a `JWSRenewalInfoDecodedPayload`.
    var details: [(String, Wire.Value?)] {
        [
            ("renewalPrice", renewalPrice.map(Wire.Value.int)),
            ("currency", currency.map(Wire.Value.string)),
            ("eligibleWinBackOfferIds", eligibleWinBackOfferIds.map { .raw(Wire.array($0.map(Wire.quoted))) }),
            ("appTransactionId", appTransactionId.map(Wire.Value.string)),
        ]
    }
}

extension Wire {
    /// A v1 `responseBodyV1`. `rows` are written newest first (Apple does not sort them).
    static func v1(
        _ type: String, original: String, rows: [WireTransaction], renewal r: WireRenewal,
        autoRenewChangeDate: Instant? = nil
    ) -> String {
        let pending = object([
            ("auto_renew_product_id", .string(r.autoRenewProductId)),
            ("auto_renew_status", v1digit(r.autoRenewStatus)),
            ("original_transaction_id", .string(original)),
            ("product_id", .string(r.productId)),
            ("is_in_billing_retry_period", r.isInBillingRetryPeriod.map(v1digit)),
            ("grace_period_expires_date", r.gracePeriodExpiresDate.map(v1date)),
            ("grace_period_expires_date_ms", r.gracePeriodExpiresDate.map(v1ms)),
            ("price_consent_status", r.priceIncreaseStatus.map { .string(String($0)) }),
            ("expiration_intent", r.expirationIntent.map { .string(String($0)) }),
        ])
        let unified = object([
            ("status", .int(0)),
            ("environment", .string("Production")),
            ("latest_receipt", .string("MIIUGAYJKoZIhvcNAQcCoIIUCTCCFAUCAQExCzAJBgUrDgMCGgUAMIIDuQ")),
            ("latest_receipt_info", .raw(array(rows.sorted { $0.purchaseDate > $1.purchaseDate }.map(\.v1Row)))),
            ("pending_renewal_info", .raw(array([pending]))),
        ])
        return object([
            ("notification_type", .string(type)),
            ("environment", .string("PROD")),
            ("password", .string("<shared secret>")),
            ("bid", .string(bundleId)),
            ("bvrs", .string("42")),
            ("auto_renew_status", v1bool(r.autoRenewStatus)),
            ("auto_renew_product_id", .string(r.autoRenewProductId)),
            ("auto_renew_status_change_date", autoRenewChangeDate.map(v1date)),
            ("auto_renew_status_change_date_ms", autoRenewChangeDate.map(v1ms)),
            ("original_transaction_id", .string(original)),
            ("unified_receipt", .raw(unified)),
        ])
    }

    /// A `/verifyReceipt` response body (status 0) holding `rows` and one `pending_renewal_info`.
    static func verifyReceipt(original: String, rows: [WireTransaction], renewal r: WireRenewal) -> String {
        let pending = object([
            ("auto_renew_product_id", .string(r.autoRenewProductId)),
            ("auto_renew_status", v1digit(r.autoRenewStatus)),
            ("original_transaction_id", .string(original)),
            ("product_id", .string(r.productId)),
            ("expiration_intent", r.expirationIntent.map { .string(String($0)) }),
        ])
        return object([
            ("status", .int(0)),
            ("environment", .string("Production")),
            (
                "receipt",
                .raw(
                    object([
                        ("receipt_type", .string("Production")), ("bundle_id", .string(bundleId)),
                        ("in_app", .raw("[]")),
                    ]))
            ),
            ("latest_receipt_info", .raw(array(rows.sorted { $0.purchaseDate > $1.purchaseDate }.map(\.v1Row)))),
            ("latest_receipt", .string("MIIUGAYJKoZIhvcNAQcCoIIUCTCCFAUCAQExCzAJBgUrDgMCGgUAMIIDuQ")),
            ("pending_renewal_info", .raw(array([pending]))),
        ])
    }

    /// A Get Transaction History response (App Store Server API) holding `transactions`, each a
    /// JWS signed at `signedDate`.
    static func transactionHistory(_ transactions: [WireTransaction], signedDate: Instant, jws: CompactJWS) -> String {
        let signed = transactions.map { t in
            quoted(String(decoding: jws.sign(Array(t.v2Payload(signedDate: signedDate).utf8)), as: UTF8.self))
        }
        return object([
            ("revision", .string("1")),
            ("bundleId", .string(bundleId)),
            ("appAppleId", .int(1_234_567_890)),
            ("environment", .string("Production")),
            ("hasMore", .bool(false)),
            ("signedTransactions", .raw(array(signed))),
        ])
    }

    /// A Get All Subscription Statuses response: one group, one `lastTransactions` entry per
    /// (status, latest transaction, renewal info), all signed at `signedDate`.
    static func statusResponse(
        _ entries: [(status: Int, transaction: WireTransaction, renewal: WireRenewal)],
        signedDate: Instant, jws: CompactJWS
    ) -> String {
        func signed(_ json: String) -> String { String(decoding: jws.sign(Array(json.utf8)), as: UTF8.self) }
        let last = entries.map { e in
            object([
                ("status", .int(Int64(e.status))),
                ("originalTransactionId", .string(e.transaction.originalTransactionId)),
                ("signedTransactionInfo", .string(signed(e.transaction.v2Payload(signedDate: signedDate)))),
                (
                    "signedRenewalInfo",
                    .string(
                        signed(
                            object(
                                [
                                    ("originalTransactionId", .string(e.transaction.originalTransactionId)),
                                    ("autoRenewProductId", .string(e.renewal.autoRenewProductId)),
                                    ("productId", .string(e.renewal.productId)),
                                    ("autoRenewStatus", .int(e.renewal.autoRenewStatus ? 1 : 0)),
                                    ("signedDate", .int(signedDate.milliseconds)),
                                    ("environment", .string("Production")),
                                    ("expirationIntent", e.renewal.expirationIntent.map { .int(Int64($0)) }),
                                ] + e.renewal.details)))
                ),
            ])
        }
        let group = object([("subscriptionGroupIdentifier", .string(group)), ("lastTransactions", .raw(array(last)))])
        return object([
            ("environment", .string("Production")),
            ("bundleId", .string(bundleId)),
            ("appAppleId", .int(1_234_567_890)),
            ("data", .raw(array([group]))),
        ])
    }

    /// A v2 body `{"signedPayload": "<JWS>"}` whose transaction and renewal info are signed JWS
    /// too, all at `signedDate`.
    static func v2(
        _ type: String, _ subtype: String?, uuid: String, signedDate: Instant, status: Int,
        transaction t: WireTransaction, renewal r: WireRenewal, jws: CompactJWS
    ) -> String {
        let renewalInfo = object(
            [
                ("expirationIntent", r.expirationIntent.map { .int(Int64($0)) }),
                ("originalTransactionId", .string(t.originalTransactionId)),
                ("autoRenewProductId", .string(r.autoRenewProductId)),
                ("productId", .string(r.productId)),
                ("autoRenewStatus", .int(r.autoRenewStatus ? 1 : 0)),
                ("isInBillingRetryPeriod", r.isInBillingRetryPeriod.map(Value.bool)),
                ("priceIncreaseStatus", r.priceIncreaseStatus.map { .int(Int64($0)) }),
                ("gracePeriodExpiresDate", r.gracePeriodExpiresDate.map { .int($0.milliseconds) }),
                ("signedDate", .int(signedDate.milliseconds)),
                ("environment", .string("Production")),
                ("recentSubscriptionStartDate", .int(t.originalPurchaseDate.milliseconds)),
                ("renewalDate", status == 2 ? nil : .int(t.expiresDate.milliseconds)),
                ("appAccountToken", t.appAccountToken.map(Value.string)),
            ] + r.details)
        func signed(_ json: String) -> String { String(decoding: jws.sign(Array(json.utf8)), as: UTF8.self) }
        let data = object([
            ("appAppleId", .int(1_234_567_890)),
            ("bundleId", .string(bundleId)),
            ("bundleVersion", .string("42")),
            ("environment", .string("Production")),
            ("signedTransactionInfo", .string(signed(t.v2Payload(signedDate: signedDate)))),
            ("signedRenewalInfo", .string(signed(renewalInfo))),
            ("status", .int(Int64(status))),
        ])
        let payload = object([
            ("notificationType", .string(type)),
            ("subtype", subtype.map(Value.string)),
            ("notificationUUID", .string(uuid)),
            ("data", .raw(data)),
            ("version", .string("2.0")),
            ("signedDate", .int(signedDate.milliseconds)),
        ])
        return object([("signedPayload", .string(signed(payload)))])
    }
}

/// `#expect(got == expected)` for long JSON texts, naming the first member that differs (Swift
/// Testing does not show long strings).
func expectSameJSON(_ got: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard got != expected else { return }
    let g = got.split(separator: ",", omittingEmptySubsequences: false)
    let e = expected.split(separator: ",", omittingEmptySubsequences: false)
    let i = zip(g, e).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(g.count, e.count)
    let context = { (parts: [Substring]) in parts[max(0, i - 2)..<min(parts.count, i + 3)].joined(separator: ",") }
    Issue.record(
        "JSON differs at member \(i):\n  got      …\(context(g))…\n  expected …\(context(e))…",
        sourceLocation: sourceLocation)
}
