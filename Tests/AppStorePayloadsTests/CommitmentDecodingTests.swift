import AppStorePayloads
import Foundation
import SubscriptionModel
import TestSupport
import Testing

/// Monthly payments with a 12-month commitment (App Store Server API 1.21): the transaction's
/// `billingPlanType` and `commitmentInfo`, the renewal info's `renewalBillingPlanType` and
/// `commitmentInfo`, as in Apple's WWDC26 sample (10.99 a month, 131.88 for the commitment).
@Suite struct CommitmentDecodingTests {
    static let start = utc(2026, 6, 2)
    static let ends = utc(2027, 3, 2)

    static func document(period: Int = 4, commitment: String? = nil) -> String {
        let info =
            commitment
            ?? #"{"billingPeriodNumber":\#(period),"totalBillingPeriods":12,"commitmentExpiresDate":\#(ends.milliseconds),"commitmentPrice":131880}"#
        let transaction = unsignedJWS(
            #"{"transactionId":"t4","originalTransactionId":"t1","productId":"plus.pro.annual","purchaseDate":\#(start.milliseconds),"expiresDate":\#(utc(2026, 7, 2).milliseconds),"price":10990,"currency":"EUR","type":"Auto-Renewable Subscription","billingPlanType":"MONTHLY","commitmentInfo":\#(info),"bundleId":"com.example.app","signedDate":\#(start.milliseconds)}"#
        )
        let renewal = unsignedJWS(
            #"{"originalTransactionId":"t1","productId":"plus.pro.annual","autoRenewProductId":"plus.pro.annual","autoRenewStatus":1,"renewalBillingPlanType":"MONTHLY","commitmentInfo":{"commitmentAutoRenewStatus":0,"commitmentAutoRenewProductId":"plus.pro.annual","commitmentRenewalBillingPlanType":"BILLED_UPFRONT","commitmentRenewalDate":\#(ends.milliseconds),"commitmentRenewalPrice":10990},"signedDate":\#(start.milliseconds)}"#
        )
        return
            #"{"signedPayload":"\#(unsignedJWS(#"{"notificationType":"DID_RENEW","notificationUUID":"u","signedDate":\#(start.milliseconds),"data":{"bundleId":"com.example.app","signedTransactionInfo":"\#(transaction)","signedRenewalInfo":"\#(renewal)"}}"#))"}"#
    }

    @Test func bothCommitmentObjectsAreRead() throws {
        let facts = try decode(Self.document())
        let t = try #require(facts.transactions.first)
        #expect(t.billingPlanType == "MONTHLY" && t.billingPlan == .monthly && t.productId == "plus.pro.annual")
        #expect(
            t.commitment
                == TransactionCommitment(
                    billingPeriodNumber: 4, totalBillingPeriods: 12, commitmentExpiresDate: Self.ends, commitmentPrice: 131_880))
        let r = try #require(facts.renewals.first)
        #expect(r.autoRenewStatus == true && r.renewalBillingPlanType == "MONTHLY")
        #expect(
            r.commitment
                == RenewalCommitment(
                    commitmentAutoRenewStatus: false, commitmentAutoRenewProductId: "plus.pro.annual",
                    commitmentRenewalBillingPlanType: "BILLED_UPFRONT", commitmentRenewalDate: Self.ends,
                    commitmentRenewalPrice: 10_990))
    }

    @Test func anUpfrontTransactionHasNoCommitment() throws {
        let facts = try decode(
            try String(contentsOf: Examples.directory.appendingPathComponent("v2/DID_RENEW.json"), encoding: .utf8))
        #expect(facts.transactions[0].billingPlan == .upfront && facts.transactions[0].commitment == nil)
        #expect(facts.renewals.allSatisfy { $0.commitment == nil })
    }

    @Test func impossiblePaymentNumbersAreRejectedByName() {
        #expect(
            rejection(Self.document(period: 13))?.hasSuffix(
                "commitmentInfo.billingPeriodNumber: expected a payment number from 1 to totalBillingPeriods, found 13") == true)
        #expect(
            rejection(Self.document(commitment: #"{"billingPeriodNumber":1,"totalBillingPeriods":0}"#))?.hasSuffix(
                "commitmentInfo.totalBillingPeriods: expected a count of at least 1, found 0") == true)
        #expect(
            rejection(Self.document(commitment: #"{"billingPeriodNumber":1,"commitmentPrice":-5}"#))?.hasSuffix(
                "commitmentInfo.commitmentPrice: expected milliunits of at least 0, found -5") == true)
    }
}
