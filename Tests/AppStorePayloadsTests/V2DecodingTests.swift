import AppStorePayloads
import Foundation
import SubscriptionModel
import TestSupport
import Testing

/// What one v2 example must decode to.
struct V2Case: CustomTestStringConvertible, Sendable {
    var file: String
    var type: String
    var subtype: String?
    var signedDate: Instant
    var status: Int?
    var transactionId: String?
    var toggle: Bool? = nil
    var renewalAutoRenew: Bool? = nil
    var expirationIntent: Int? = nil
    var inBillingRetry: Bool? = nil
    var nonSubscriptionTransactions = 0

    var testDescription: String { file }
}

@Suite struct V2DecodingTests {
    static let may = "2000000900000103"
    static let cases: [V2Case] = [
        V2Case(
            file: "SUBSCRIBED-INITIAL_BUY", type: "SUBSCRIBED", subtype: "INITIAL_BUY", signedDate: utc(2024, 3, 1, 10),
            status: 1,
            transactionId: "2000000900000001", renewalAutoRenew: true),
        V2Case(
            file: "SUBSCRIBED-RESUBSCRIBE", type: "SUBSCRIBED", subtype: "RESUBSCRIBE", signedDate: utc(2024, 7, 1, 12),
            status: 1,
            transactionId: "2000000900000401", renewalAutoRenew: true),
        V2Case(
            file: "DID_RENEW", type: "DID_RENEW", signedDate: utc(2024, 3, 8, 10, 1), status: 1, transactionId: "2000000900000101"
        ),
        V2Case(
            file: "DID_RENEW-BILLING_RECOVERY", type: "DID_RENEW", subtype: "BILLING_RECOVERY",
            signedDate: utc(2024, 4, 8, 9, 58),
            status: 1, transactionId: "2000000900000102", inBillingRetry: false),
        V2Case(
            file: "DID_FAIL_TO_RENEW", type: "DID_FAIL_TO_RENEW", signedDate: utc(2024, 4, 8, 10, 2), status: 3,
            transactionId: "2000000900000101", expirationIntent: 2, inBillingRetry: true),
        V2Case(
            file: "DID_FAIL_TO_RENEW-GRACE_PERIOD", type: "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD",
            signedDate: utc(2024, 4, 8, 10, 2),
            status: 4, transactionId: "2000000900000101", expirationIntent: 2, inBillingRetry: true),
        V2Case(
            file: "GRACE_PERIOD_EXPIRED", type: "GRACE_PERIOD_EXPIRED", signedDate: utc(2024, 4, 24, 10), status: 3,
            transactionId: "2000000900000101", expirationIntent: 2, inBillingRetry: true),
        V2Case(
            file: "EXPIRED-VOLUNTARY", type: "EXPIRED", subtype: "VOLUNTARY", signedDate: utc(2024, 6, 8, 10), status: 2,
            transactionId: may, renewalAutoRenew: false, expirationIntent: 1),
        V2Case(
            file: "EXPIRED-BILLING_RETRY", type: "EXPIRED", subtype: "BILLING_RETRY", signedDate: utc(2024, 8, 7, 10), status: 2,
            transactionId: may, renewalAutoRenew: false, expirationIntent: 2, inBillingRetry: false),
        V2Case(
            file: "EXPIRED-PRICE_INCREASE", type: "EXPIRED", subtype: "PRICE_INCREASE", signedDate: utc(2024, 6, 8, 10),
            status: 2,
            transactionId: may, expirationIntent: 3),
        V2Case(
            file: "EXPIRED-PRODUCT_NOT_FOR_SALE", type: "EXPIRED", subtype: "PRODUCT_NOT_FOR_SALE",
            signedDate: utc(2024, 6, 8, 10),
            status: 2, transactionId: may, expirationIntent: 4),
        V2Case(
            file: "EXPIRED", type: "EXPIRED", signedDate: utc(2024, 6, 8, 10), status: 2, transactionId: may, expirationIntent: 5),
        V2Case(
            file: "DID_CHANGE_RENEWAL_PREF-UPGRADE", type: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE",
            signedDate: utc(2024, 5, 20, 18),
            status: 1, transactionId: "2000000900000201"),
        V2Case(
            file: "DID_CHANGE_RENEWAL_PREF-DOWNGRADE", type: "DID_CHANGE_RENEWAL_PREF", subtype: "DOWNGRADE",
            signedDate: utc(2024, 5, 12, 11, 30),
            status: 1, transactionId: may),
        V2Case(
            file: "DID_CHANGE_RENEWAL_PREF", type: "DID_CHANGE_RENEWAL_PREF", signedDate: utc(2024, 5, 14, 11, 30), status: 1,
            transactionId: may),
        V2Case(
            file: "DID_CHANGE_RENEWAL_STATUS-AUTO_RENEW_DISABLED", type: "DID_CHANGE_RENEWAL_STATUS",
            subtype: "AUTO_RENEW_DISABLED",
            signedDate: utc(2024, 3, 20, 21, 15), status: 1, transactionId: "2000000900000101", toggle: false,
            renewalAutoRenew: false),
        V2Case(
            file: "DID_CHANGE_RENEWAL_STATUS-AUTO_RENEW_ENABLED", type: "DID_CHANGE_RENEWAL_STATUS",
            subtype: "AUTO_RENEW_ENABLED",
            signedDate: utc(2024, 3, 22, 8, 40), status: 1, transactionId: "2000000900000101", toggle: true,
            renewalAutoRenew: true),
        V2Case(file: "OFFER_REDEEMED", type: "OFFER_REDEEMED", signedDate: utc(2024, 5, 8, 9, 59), status: 1, transactionId: may),
        V2Case(
            file: "OFFER_REDEEMED-UPGRADE", type: "OFFER_REDEEMED", subtype: "UPGRADE", signedDate: utc(2024, 5, 20, 18),
            status: 1,
            transactionId: "2000000900000202"),
        V2Case(
            file: "OFFER_REDEEMED-DOWNGRADE", type: "OFFER_REDEEMED", subtype: "DOWNGRADE", signedDate: utc(2024, 5, 12, 11, 30),
            status: 1, transactionId: may),
        V2Case(
            file: "PRICE_INCREASE-PENDING", type: "PRICE_INCREASE", subtype: "PENDING", signedDate: utc(2024, 5, 15, 16),
            status: 1,
            transactionId: may),
        V2Case(
            file: "PRICE_INCREASE-ACCEPTED", type: "PRICE_INCREASE", subtype: "ACCEPTED", signedDate: utc(2024, 5, 18, 7, 45),
            status: 1,
            transactionId: may),
        V2Case(
            file: "REFUND", type: "REFUND", signedDate: utc(2024, 5, 21, 13, 5), status: 5, transactionId: may,
            renewalAutoRenew: false),
        V2Case(
            file: "REFUND_DECLINED", type: "REFUND_DECLINED", signedDate: utc(2024, 5, 21, 13, 5), status: 1, transactionId: may),
        V2Case(file: "REFUND_REVERSED", type: "REFUND_REVERSED", signedDate: utc(2024, 6, 2, 9), status: 1, transactionId: may),
        V2Case(
            file: "CONSUMPTION_REQUEST", type: "CONSUMPTION_REQUEST", signedDate: utc(2024, 5, 19, 22, 10), status: nil,
            transactionId: may),
        V2Case(
            file: "RENEWAL_EXTENDED", type: "RENEWAL_EXTENDED", signedDate: utc(2024, 5, 25, 12), status: 1, transactionId: may),
        V2Case(
            file: "RENEWAL_EXTENSION-SUMMARY", type: "RENEWAL_EXTENSION", subtype: "SUMMARY",
            signedDate: utc(2024, 5, 25, 12, 30),
            status: nil, transactionId: nil),
        V2Case(
            file: "RENEWAL_EXTENSION-FAILURE", type: "RENEWAL_EXTENSION", subtype: "FAILURE",
            signedDate: utc(2024, 5, 25, 12, 30),
            status: 1, transactionId: may),
        V2Case(
            file: "REVOKE", type: "REVOKE", signedDate: utc(2024, 5, 27, 17, 20), status: 5, transactionId: may,
            renewalAutoRenew: false),
        // A Consumable: the notification is stored, its transaction kept aside (docs/metrics.md,
        // "Non-subscription transactions").
        V2Case(
            file: "ONE_TIME_CHARGE", type: "ONE_TIME_CHARGE", signedDate: utc(2024, 4, 2, 14, 10), status: nil,
            transactionId: nil, nonSubscriptionTransactions: 1),
        V2Case(file: "TEST", type: "TEST", signedDate: utc(2024, 2, 29, 8), status: nil, transactionId: nil),
        V2Case(
            file: "EXTERNAL_PURCHASE_TOKEN-UNREPORTED", type: "EXTERNAL_PURCHASE_TOKEN", subtype: "UNREPORTED",
            signedDate: utc(2024, 6, 1),
            status: nil, transactionId: nil),
        V2Case(
            file: "EXTERNAL_PURCHASE_TOKEN-CREATED", type: "EXTERNAL_PURCHASE_TOKEN", subtype: "CREATED",
            signedDate: utc(2024, 5, 1, 12),
            status: nil, transactionId: nil),
        V2Case(
            file: "EXTERNAL_PURCHASE_TOKEN-ACTIVE_TOKEN_REMINDER", type: "EXTERNAL_PURCHASE_TOKEN",
            subtype: "ACTIVE_TOKEN_REMINDER",
            signedDate: utc(2024, 6, 1, 12), status: nil, transactionId: nil),
        V2Case(file: "METADATA_UPDATE", type: "METADATA_UPDATE", signedDate: utc(2024, 5, 30, 10), status: 1, transactionId: may),
        V2Case(file: "MIGRATION", type: "MIGRATION", signedDate: utc(2024, 5, 30, 10, 5), status: 1, transactionId: may),
        V2Case(file: "PRICE_CHANGE", type: "PRICE_CHANGE", signedDate: utc(2024, 5, 30, 10, 10), status: 1, transactionId: may),
        V2Case(file: "RESCIND_CONSENT", type: "RESCIND_CONSENT", signedDate: utc(2024, 6, 3, 9), status: nil, transactionId: nil),
    ]

    @Test(arguments: cases)
    func signedExample(_ c: V2Case) throws {
        let facts = try Examples.decode("v2/\(c.file).json")
        try check(facts, c)
    }

    /// The readable copies decode to the same facts, with signatures off only.
    @Test(arguments: cases)
    func decodedExample(_ c: V2Case) throws {
        let signed = try Examples.decode("v2/\(c.file).json")
        let decoded = try Examples.decode("v2/\(c.file).decoded.json")
        #expect(decoded == signed)
        #expect(throws: PayloadError.self) {
            try Examples.decode("v2/\(c.file).decoded.json", verifier: Base64URLVerifier(verifiesSignatures: true))
        }
    }

    func check(_ facts: DocumentFacts, _ c: V2Case) throws {
        #expect(facts.format == .v2Notification)
        let n = try #require(facts.notifications.first)
        #expect(facts.notifications.count == 1)
        #expect(n.format == .v2Notification)
        #expect(n.notificationType == c.type)
        #expect(n.subtype == c.subtype)
        #expect(n.instant == c.signedDate)
        #expect(n.status == c.status)
        #expect(n.transactionId == c.transactionId)
        #expect(n.autoRenewStatus == c.toggle)
        #expect(n.isToggle == (c.toggle != nil))
        #expect(n.notificationId.hasPrefix("5f0c2d7e-8a41-4c7b-9d3e-"))
        #expect(facts.transactions.map(\.transactionId) == (c.transactionId.map { [$0] } ?? []))
        #expect(facts.nonSubscriptionTransactions == c.nonSubscriptionTransactions)
        if c.nonSubscriptionTransactions > 0 { #expect(n.originalTransactionId == nil && facts.originalTransactionIds == []) }
        if let t = facts.transactions.first { #expect(n.originalTransactionId == t.originalTransactionId) }
        if let r = facts.renewals.first {
            #expect(r.instant == c.signedDate)
            #expect(!r.isV1)
            if let expected = c.renewalAutoRenew { #expect(r.autoRenewStatus == expected) }
            #expect(r.expirationIntent == c.expirationIntent)
            if let expected = c.inBillingRetry { #expect(r.isInBillingRetryPeriod == expected) }
            if c.transactionId != nil { #expect(r.transactionId == c.transactionId) }
        }
    }

    // MARK: - Fields

    @Test func freeTrialWithPriceInMilliunits() throws {
        let facts = try Examples.decode("v2/SUBSCRIBED-INITIAL_BUY.json")
        let t = try #require(facts.transactions.first)
        #expect(t.offerType == 1 && t.offerDiscountType == "FREE_TRIAL" && t.offerKind == .freeTrial && t.isFree)
        #expect(t.price == 0 && t.currency == "USD")
        #expect(t.purchaseDate == utc(2024, 3, 1, 10) && t.expiresDate == utc(2024, 3, 8, 10))
        #expect(t.originalPurchaseDate == utc(2024, 3, 1, 10))
        #expect(t.signedDate == utc(2024, 3, 1, 10))
        #expect(t.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(t.webOrderLineItemId == "4000009900000001")
        #expect(t.environment == .production)
        let renewed = try Examples.decode("v2/DID_RENEW.json").transactions[0]
        #expect(renewed.price == 9990)
        #expect(renewed.offerKind == .standard)
    }

    @Test func offersAndWinBack() throws {
        let promo = try Examples.decode("v2/OFFER_REDEEMED.json").transactions[0]
        #expect(
            promo.offerType == 2 && promo.offerIdentifier == "retention.50off" && promo.offerKind == .promotional
                && promo.price == 4990)
        let code = try Examples.decode("v2/OFFER_REDEEMED-UPGRADE.json").transactions[0]
        #expect(code.offerType == 3 && code.offerDiscountType == "PAY_UP_FRONT" && code.offerKind == .offerCode)
        let winBack = try Examples.decode("v2/SUBSCRIBED-RESUBSCRIBE.json").transactions[0]
        #expect(winBack.offerType == 4 && winBack.offerKind == .winBack)
    }

    @Test func refundAndRevoke() throws {
        let refund = try Examples.decode("v2/REFUND.json").transactions[0]
        #expect(refund.revocationDate == utc(2024, 5, 21, 13) && refund.revocationReason == 0)
        #expect(refund.signedDate == utc(2024, 5, 21, 13, 5))
        let revoke = try Examples.decode("v2/REVOKE.json").transactions[0]
        #expect(revoke.inAppOwnershipType == "FAMILY_SHARED" && revoke.revocationDate == utc(2024, 5, 27, 17, 20))
    }

    @Test func renewalInfoFields() throws {
        let grace = try Examples.decode("v2/DID_FAIL_TO_RENEW-GRACE_PERIOD.json").renewals[0]
        #expect(grace.gracePeriodExpiresDate == utc(2024, 4, 24, 10))
        #expect(grace.originalTransactionId == "2000000900000001")
        let downgrade = try Examples.decode("v2/DID_CHANGE_RENEWAL_PREF-DOWNGRADE.json").renewals[0]
        #expect(downgrade.autoRenewProductId == "com.example.basic.monthly" && downgrade.productId == "com.example.pro.monthly")
        #expect(try Examples.decode("v2/PRICE_INCREASE-PENDING.json").renewals[0].priceIncreaseStatus == 0)
        #expect(try Examples.decode("v2/PRICE_INCREASE-ACCEPTED.json").renewals[0].priceIncreaseStatus == 1)
        let upgrade = try Examples.decode("v2/DID_CHANGE_RENEWAL_PREF-UPGRADE.json")
        #expect(upgrade.transactions[0].productId == "com.example.pro.yearly" && upgrade.transactions[0].price == 99990)
    }

    @Test func notificationsWithoutDataKeepTheirEnvironmentAndNoFacts() throws {
        let summary = try Examples.decode("v2/RENEWAL_EXTENSION-SUMMARY.json")
        #expect(summary.transactions.isEmpty && summary.renewals.isEmpty)
        #expect(summary.notifications[0].bundleId == "com.example.app")
        #expect(summary.notifications[0].environment == .production)
        #expect(summary.notifications[0].originalTransactionId == nil)
        let sandboxToken = try Examples.decode("v2/EXTERNAL_PURCHASE_TOKEN-CREATED.json")
        #expect(sandboxToken.notifications[0].environment == .sandbox)
        #expect(try Examples.decode("v2/EXTERNAL_PURCHASE_TOKEN-UNREPORTED.json").notifications[0].environment == .production)
    }

    @Test func fractionalMillisecondsFromXcode() throws {
        let facts = try Examples.decode("v2/SUBSCRIBED-INITIAL_BUY-xcode.json")
        let n = facts.notifications[0]
        #expect(n.environment == .xcode)
        #expect(n.instant == utc(2024, 3, 1, 10).adding(milliseconds: 7))
        let t = facts.transactions[0]
        #expect(t.purchaseDate == utc(2024, 3, 1, 10))
        #expect(t.signedDate == utc(2024, 3, 1, 10).adding(milliseconds: 6))
        #expect(t.environment == .xcode)
        #expect(t.originalTransactionId == "0")
    }

    @Test func unknownTypesAndSubtypesAreKeptRaw() throws {
        let payload =
            #"{"notificationType":"SOMETHING_NEW","subtype":"SHINY","notificationUUID":"u-1","signedDate":1700000000000.5,"data":{"environment":"Sandbox","status":9}}"#
        let facts = try decode(#"{"signedPayload":"\#(unsignedJWS(payload))"}"#)
        #expect(facts.notifications[0].notificationType == "SOMETHING_NEW")
        #expect(facts.notifications[0].subtype == "SHINY")
        #expect(facts.notifications[0].status == 9)
        #expect(facts.notifications[0].environment == .sandbox)
        #expect(facts.notifications[0].instant == Instant(milliseconds: 1_700_000_000_000))
    }

    @Test func aBareCompactJWSIsAV2Notification() throws {
        let payload = #"{"notificationType":"TEST","notificationUUID":"u-2","signedDate":1700000000000}"#
        let facts = try decode(unsignedJWS(payload) + "\n")
        #expect(facts.notifications[0].notificationId == "u-2")
        let quoted = try decode("\"\(unsignedJWS(payload))\"")
        #expect(quoted.notifications[0].notificationType == "TEST")
    }

    // MARK: - Bad input

    @Test func wrongTypesInSignedPartsNameTheField() {
        let transaction = #"{"transactionId":"1","originalTransactionId":"1","productId":"p","purchaseDate":"yesterday"}"#
        let payload =
            #"{"notificationType":"DID_RENEW","notificationUUID":"u","signedDate":1700000000000,"data":{"signedTransactionInfo":"\#(unsignedJWS(transaction))"}}"#
        #expect(
            rejection(#"{"signedPayload":"\#(unsignedJWS(payload))"}"#)
                == #"signedPayload.data.signedTransactionInfo.purchaseDate: expected milliseconds since 1970 (a number), found "yesterday""#
        )
        let renewal = #"{"originalTransactionId":"1","signedDate":1700000000000,"autoRenewStatus":true}"#
        let payload2 =
            #"{"notificationType":"DID_RENEW","notificationUUID":"u","signedDate":1700000000000,"data":{"signedRenewalInfo":"\#(unsignedJWS(renewal))"}}"#
        #expect(
            rejection(#"{"signedPayload":"\#(unsignedJWS(payload2))"}"#)
                == "signedPayload.data.signedRenewalInfo.autoRenewStatus: expected an integer, found true")
        let noUUID = #"{"notificationType":"DID_RENEW","signedDate":1700000000000}"#
        #expect(rejection(#"{"signedPayload":"\#(unsignedJWS(noUUID))"}"#) == "signedPayload: missing notificationUUID")
    }

    @Test func aJWSOfGarbageSegmentsIsRejected() {
        #expect(
            rejection(#"{"signedPayload":"abc.def.ghi"}"#)
                == "signedPayload: the JWS payload is not JSON: invalid JSON at byte 0: expected a value, found 'u'")
        #expect(rejection(#"{"signedPayload":"@@@.###.$$$"}"#) == "signedPayload: the JWS payload is not base64url")
        #expect(rejection(#"{"signedPayload":"only.two"}"#) == "signedPayload: a JWS has 3 segments, found 2")
        #expect(
            rejection("eyJhbGciOiJFUzI1NiJ9.eyJ4IjoxfQ")
                == "a compact JWS must be three base64url segments separated by dots; this one has 2")
        #expect(
            rejection(#"{"signedPayload":"\#(unsignedJWS("[1,2]"))"}"#)
                == "signedPayload: the JWS payload is an array, not a JSON object")
    }

    @Test func aDecodedPayloadNeedsSignaturesOff() {
        let decoded = #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1700000000000}"#
        #expect(
            rejection(decoded, verifier: Base64URLVerifier(verifiesSignatures: true))
                == #"a decoded v2 notification (notificationType without signedPayload) has no signature to verify: import the original {"signedPayload": …} body, or pass --no-verify"#
        )
        #expect(rejection(decoded) == nil)
    }
}
