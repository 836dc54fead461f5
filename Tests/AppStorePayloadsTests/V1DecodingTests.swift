import AppStorePayloads
import Foundation
import SubscriptionModel
import TestSupport
import Testing

/// v1 notifications: one test per `notification_type` of SampleData/examples/v1, then the wire quirks.
@Suite struct V1DecodingTests {
    let subscription = "1000000900000001"

    func example(_ type: String) throws -> DocumentFacts {
        let facts = try Examples.decode("v1/\(type).json")
        #expect(facts.format == .v1Notification)
        #expect(facts.notifications.count == 1)
        #expect(facts.notifications.first?.notificationType == type)
        #expect(facts.notifications.first?.format == .v1Notification)
        return facts
    }

    @Test func initialBuyIsAFreeTrialThroughAnOfferCode() throws {
        let facts = try example("INITIAL_BUY")
        let n = try #require(facts.notifications.first)
        #expect(n.instant == utc(2024, 1, 5, 9, 30))
        #expect(n.originalTransactionId == subscription)
        #expect(n.transactionId == "1000000900000001")
        #expect(n.environment == .production)
        #expect(n.bundleId == "com.example.app")
        #expect(n.autoRenewStatus == nil)
        let t = try #require(facts.transactions.first)
        #expect(t.offerType == 3)
        #expect(t.offerDiscountType == "FREE_TRIAL")
        #expect(t.offerIdentifier == "SPRING2024")
        #expect(t.offerKind == .offerCode)
        #expect(t.isFree)
        #expect(t.purchaseDate == utc(2024, 1, 5, 9, 30))
        #expect(t.expiresDate == utc(2024, 1, 12, 9, 30))
        #expect(t.webOrderLineItemId == "3000009900000001")
        #expect(t.subscriptionGroupIdentifier == "20667927")
        #expect(t.inAppOwnershipType == "PURCHASED")
        #expect(t.signedDate == nil)
        let r = try #require(facts.renewals.first)
        #expect(r.instant == utc(2024, 1, 5, 9, 30))
        #expect(r.autoRenewStatus == true)
        #expect(r.isV1)
        #expect(r.transactionId == "1000000900000001")
    }

    @Test func notificationIdIsTheSHA256OfTheBody() throws {
        let body = try Examples.data("v1/INITIAL_BUY.json")
        let facts = try PayloadDecoder(verifier: Base64URLVerifier()).decode(body)
        #expect(facts.notifications.first?.notificationId == "sha256:" + PayloadDecoder.sha256Hex(body))
        #expect(PayloadDecoder.sha256Hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func didRenewTakesTheLatestOfUnsortedRows() throws {
        let facts = try example("DID_RENEW")
        // The file lists JAN, MAR, TRIAL, FEB: the latest row is MAR, not the last one.
        #expect(
            facts.transactions.map(\.transactionId) == [
                "1000000900000101", "1000000900000103", "1000000900000001", "1000000900000102",
            ])
        let n = try #require(facts.notifications.first)
        #expect(n.instant == utc(2024, 3, 12, 9, 28))
        #expect(n.transactionId == "1000000900000103")
        #expect(facts.renewals.first?.transactionId == "1000000900000103")
        #expect(facts.renewals.first?.instant == utc(2024, 3, 12, 9, 28))
        #expect(facts.transactions.first { $0.transactionId == "1000000900000102" }?.offerKind == .standard)
    }

    @Test func interactiveRenewalToAnotherProduct() throws {
        let facts = try example("INTERACTIVE_RENEWAL")
        let n = try #require(facts.notifications.first)
        #expect(n.instant == utc(2024, 5, 20, 18))
        #expect(n.transactionId == "1000000900000201")
        #expect(facts.transactions.first?.productId == "com.example.pro.yearly")
        #expect(facts.renewals.first?.autoRenewProductId == "com.example.pro.yearly")
    }

    @Test func didChangeRenewalPrefNamesTheNextProduct() throws {
        let facts = try example("DID_CHANGE_RENEWAL_PREF")
        #expect(facts.notifications.first?.instant == utc(2024, 3, 12, 9, 28))
        #expect(facts.renewals.first?.autoRenewProductId == "com.example.basic.monthly")
        #expect(facts.renewals.first?.productId == "com.example.pro.monthly")
    }

    @Test func didChangeRenewalStatusIsAToggleAtItsChangeDate() throws {
        let facts = try example("DID_CHANGE_RENEWAL_STATUS")
        let n = try #require(facts.notifications.first)
        #expect(n.instant == utc(2024, 3, 20, 21, 15))
        #expect(n.autoRenewStatus == false)
        #expect(n.isToggle)
        let r = try #require(facts.renewals.first)
        #expect(r.instant == utc(2024, 3, 20, 21, 15))
        #expect(r.autoRenewStatus == false)
    }

    @Test func didFailToRenewEntersBillingRetryWithGrace() throws {
        let facts = try example("DID_FAIL_TO_RENEW")
        let r = try #require(facts.renewals.first)
        #expect(r.isInBillingRetryPeriod == true)
        #expect(r.expirationIntent == 2)
        #expect(r.gracePeriodExpiresDate == utc(2024, 4, 28, 9, 30))
        #expect(r.instant == utc(2024, 3, 12, 9, 28))
        #expect(r.transactionId == "1000000900000103")
    }

    @Test func didRecoverAddsTheRecoveredPeriod() throws {
        let facts = try example("DID_RECOVER")
        #expect(facts.notifications.first?.instant == utc(2024, 4, 15, 7, 2))
        #expect(facts.notifications.first?.transactionId == "1000000900000104")
        #expect(facts.renewals.first?.isInBillingRetryPeriod == false)
        #expect(facts.transactions.count == 5)
    }

    @Test func cancelRevokesThePeriodAtItsCancellationDate() throws {
        let facts = try example("CANCEL")
        let t = try #require(facts.transactions.first { $0.transactionId == "1000000900000103" })
        #expect(t.revocationDate == utc(2024, 3, 18, 12))
        #expect(t.revocationReason == 1)
        #expect(facts.notifications.first?.instant == utc(2024, 3, 18, 12))
        #expect(facts.notifications.first?.autoRenewStatus == nil)
        #expect(facts.renewals.first?.expirationIntent == 1)
        #expect(facts.renewals.first?.autoRenewStatus == false)
    }

    @Test func refundRevokesThePeriod() throws {
        let facts = try example("REFUND")
        let t = try #require(facts.transactions.first { $0.transactionId == "1000000900000103" })
        #expect(t.revocationDate == utc(2024, 3, 19, 8, 45))
        #expect(t.revocationReason == 0)
        #expect(facts.notifications.first?.instant == utc(2024, 3, 19, 8, 45))
    }

    @Test func revokeEndsAFamilySharedPeriod() throws {
        let facts = try example("REVOKE")
        let t = try #require(facts.transactions.first)
        #expect(t.inAppOwnershipType == "FAMILY_SHARED")
        #expect(t.revocationDate == utc(2024, 3, 25, 16, 20))
        #expect(facts.notifications.first?.instant == utc(2024, 3, 25, 16, 20))
    }

    @Test func priceIncreaseConsentIsPending() throws {
        let facts = try example("PRICE_INCREASE_CONSENT")
        #expect(facts.renewals.first?.priceIncreaseStatus == 0)
        #expect(facts.notifications.first?.instant == utc(2024, 3, 12, 9, 28))
    }

    @Test func consumptionRequestKeepsTheConsumableApart() throws {
        let facts = try example("CONSUMPTION_REQUEST")
        let coins = try #require(facts.transactions.first { $0.productId == "com.example.coins.500" })
        #expect(coins.originalTransactionId == "1000000900000301")
        // The notification speaks about the subscription it names, at that subscription's latest row.
        #expect(facts.notifications.first?.originalTransactionId == subscription)
        #expect(facts.notifications.first?.instant == utc(2024, 3, 12, 9, 28))
    }

    @Test func legacyRenewalReadsTopLevelReceiptInfo() throws {
        let facts = try example("RENEWAL")
        #expect(facts.transactions.map(\.transactionId) == ["1000000900000050", "1000000900000049"])
        let n = try #require(facts.notifications.first)
        // `original_transaction_id` is a bare number in this body.
        #expect(n.originalTransactionId == subscription)
        #expect(n.instant == utc(2020, 11, 14, 6))
        #expect(n.transactionId == "1000000900000050")
        #expect(facts.renewals.isEmpty)
    }

    // MARK: - Wire quirks

    static func body(
        type: String = "DID_CHANGE_RENEWAL_STATUS", environment: String = "PROD", autoRenew: String = "false", top: String = "",
        row: String = "", pending: String = #""auto_renew_status":"0""#
    ) -> String {
        """
        {"notification_type":"\(type)","environment":"\(environment)","auto_renew_status":"\(autoRenew)",\(top)
         "unified_receipt":{"status":0,"environment":"Production",
          "latest_receipt_info":[{"transaction_id":"11","original_transaction_id":"10","product_id":"p",
            "purchase_date_ms":"1700000000000","expires_date_ms":"1702592000000"\(row)}],
          "pending_renewal_info":[{"original_transaction_id":"10",\(pending)}]}}
        """
    }

    @Test func stringBooleansDifferBetweenTopLevelAndPendingRenewalInfo() throws {
        let off = try decode(Self.body(top: #""auto_renew_status_change_date_ms":"1700000500000","#))
        #expect(off.notifications[0].autoRenewStatus == false)
        #expect(off.renewals[0].autoRenewStatus == false)
        #expect(off.notifications[0].instant == Instant(milliseconds: 1_700_000_500_000))
        let on = try decode(Self.body(autoRenew: "true", pending: #""auto_renew_status":"1","is_in_billing_retry_period":"0""#))
        #expect(on.notifications[0].autoRenewStatus == true)
        #expect(on.renewals[0].autoRenewStatus == true)
        #expect(on.renewals[0].isInBillingRetryPeriod == false)
    }

    @Test func toggleWithoutChangeDateFallsBackToTheLatestRow() throws {
        let facts = try decode(Self.body())
        #expect(facts.notifications[0].instant == Instant(milliseconds: 1_700_000_000_000))
    }

    /// An environment Apple does not document is kept as it came, not rejected (docs/metrics.md,
    /// "Which data, read when").
    @Test(arguments: [
        ("PROD", StoreEnvironment.production), ("Production", .production), ("Sandbox", .sandbox),
        ("Staging", StoreEnvironment(rawValue: "Staging")),
    ])
    func environments(wire: String, expected: StoreEnvironment) throws {
        let facts = try decode(Self.body(environment: wire))
        #expect(facts.notifications[0].environment == expected)
        #expect(facts.transactions[0].environment == expected)
        #expect(facts.renewals[0].environment == expected)
    }

    @Test func offerFlagsMapToOfferTypes() throws {
        let intro = try decode(Self.body(row: #","is_in_intro_offer_period":"true""#)).transactions[0]
        #expect(intro.offerType == 1 && intro.offerDiscountType == nil && intro.offerKind == .introductory)
        let trial = try decode(Self.body(row: #","is_trial_period":"true""#)).transactions[0]
        #expect(trial.offerType == 1 && trial.offerDiscountType == "FREE_TRIAL" && trial.offerKind == .freeTrial)
        let promo = try decode(Self.body(row: #","promotional_offer_id":"save50""#)).transactions[0]
        #expect(promo.offerType == 2 && promo.offerIdentifier == "save50" && promo.offerKind == .promotional)
        let upgraded = try decode(Self.body(row: #","is_upgraded":"true""#)).transactions[0]
        #expect(upgraded.isUpgraded)
        let priced = try decode(Self.body(row: #","price":"9990","currency":"EUR""#)).transactions[0]
        #expect(priced.price == 9990 && priced.currency == "EUR")
    }

    @Test func emptyStringsReadAsAbsent() throws {
        let facts = try decode(
            Self.body(pending: #""auto_renew_status":"1","expiration_intent":"","grace_period_expires_date_ms":"""#))
        #expect(facts.renewals[0].expirationIntent == nil)
        #expect(facts.renewals[0].gracePeriodExpiresDate == nil)
    }

    @Test func wrongTypesNameTheField() {
        #expect(
            rejection(
                Self.body(row: #","expires_date_ms":true"#).replacingOccurrences(
                    of: #""expires_date_ms":"1702592000000","#, with: ""))
                == "unified_receipt.latest_receipt_info[0].expires_date_ms: expected a millisecond string, found true")
        #expect(
            rejection(Self.body(pending: #""auto_renew_status":"yes""#))
                == #"unified_receipt.pending_renewal_info[0].auto_renew_status: expected "1" or "0", found "yes""#)
        #expect(
            rejection(#"{"notification_type":"DID_RENEW","unified_receipt":{"latest_receipt_info":{"a":1}}}"#)
                == "unified_receipt.latest_receipt_info: expected an array of objects, found an object")
        #expect(
            rejection(
                #"{"notification_type":"DID_RENEW","unified_receipt":{"latest_receipt_info":[{"transaction_id":"1","product_id":"p"}]}}"#
            )
                == "unified_receipt.latest_receipt_info[0]: missing purchase_date_ms")
        #expect(
            rejection(#"{"notification_type":"DID_RENEW"}"#)
                == "DID_RENEW notification has no instant: no auto_renew_status_change_date_ms and no latest_receipt_info row with purchase_date_ms or cancellation_date_ms"
        )
        #expect(rejection(#"{"notification_type":7}"#) == "notification_type: expected a string, found 7")
    }

    @Test func theRowWithTheThirdIndexIsNamedInMessages() {
        let rows = (0..<3).map { i in
            #"{"transaction_id":"\#(i)","original_transaction_id":"1","product_id":"p","purchase_date_ms":"1700000000000","expires_date_ms":\#(i == 2 ? "true" : #""1702592000000""#)}"#
        }.joined(separator: ",")
        #expect(
            rejection(#"{"notification_type":"DID_RENEW","unified_receipt":{"latest_receipt_info":[\#(rows)]}}"#)
                == "unified_receipt.latest_receipt_info[2].expires_date_ms: expected a millisecond string, found true")
    }
}
