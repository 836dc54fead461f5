import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriptionModel
import TestSupport
import Testing

@testable import LifecycleSimulator

/// Apple's own test transaction `signedTransactionWithRevocation` (app-store-server-library's
/// test resources): `isUpgraded` and a revocation at once, with `revocationReason` 1 and
/// `revocationType` `REFUND_PRORATED` at `revocationPercentage` 50000. Apple says it refunded half
/// of 10.99 USD, so it reads as a prorated refund of 5.495 USD and no upgrade credit
/// (docs/metrics.md "Refunds and upgrade credits"), whatever the upgrade did to the period.
@Suite struct AppleRefundFixtureTests {
    /// The fixture's fields as Apple's file has them, but for `environment` (LocalTesting there,
    /// which only `--no-verify` imports) and `bundleId`: the store's.
    static let transaction = """
        {"originalTransactionId":"12345","transactionId":"23456","webOrderLineItemId":"34343",\
        "bundleId":"\(Wire.bundleId)","productId":"com.example.product","subscriptionGroupIdentifier":"55555",\
        "purchaseDate":1698148900000,"originalPurchaseDate":1698148800000,"expiresDate":1698149000000,"quantity":1,\
        "type":"Auto-Renewable Subscription","appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138",\
        "inAppOwnershipType":"PURCHASED","signedDate":1698148900000,"revocationReason":1,"revocationDate":1698148950000,\
        "isUpgraded":true,"offerType":1,"offerIdentifier":"abc.123","environment":"Production","storefront":"USA",\
        "storefrontId":"143441","transactionReason":"PURCHASE","price":10990,"currency":"USD",\
        "offerDiscountType":"PAY_AS_YOU_GO","appTransactionId":"71134","offerPeriod":"P1Y",\
        "revocationType":"REFUND_PRORATED","revocationPercentage":50000}
        """

    /// Signed by a test chain valid in 2023, when the fixture is dated.
    static let chain = Result {
        try TestCertificateChain(
            seed: 2023, validFrom: UTCCalendar.instant(year: 2020, month: 1, day: 1),
            validUntil: UTCCalendar.instant(year: 2040, month: 1, day: 1))
    }

    /// A REFUND notification carrying the fixture, signed at its revocation.
    static func refundNotification(_ jws: CompactJWS) -> String {
        func signed(_ json: String) -> String { String(decoding: jws.sign(Array(json.utf8)), as: UTF8.self) }
        let data = Wire.object([
            ("appAppleId", .int(1_234_567_890)), ("bundleId", .string(Wire.bundleId)), ("environment", .string("Production")),
            ("signedTransactionInfo", .string(signed(transaction))),
        ])
        let payload = Wire.object([
            ("notificationType", .string("REFUND")), ("notificationUUID", .string("fixture-refund")),
            ("data", .raw(data)), ("version", .string("2.0")), ("signedDate", .int(1_698_148_950_000)),
        ])
        return Wire.object([("signedPayload", .string(signed(payload)))])
    }

    @Test func itIsAProratedRefundOfHalfThePriceAndNoUpgradeCredit() throws {
        let chain = try Self.chain.get()
        let (analytics, rejections) = try Wire.store([Self.refundNotification(try CompactJWS(chain: chain))], chain: chain)
        #expect(rejections == [])
        let asOf = Instant(milliseconds: 1_698_149_000_000)
        let r = try report(analytics, "12345", asOf: asOf.iso8601)
        #expect(r.timeline.periods.map(\.isRefunded) == [true])
        #expect(r.money[0].refundAmount == 5_495)
        #expect(r.money[0].upgradeCredit == nil)
        #expect(r.paid == ["USD": 5_495])
        #expect(r.expirationReason == .refund)
        let json = SubscriberOutput(r).json
        #expect(json.contains(#""refunded":true"#))
        #expect(json.contains(#""price":10.99,"currency":"USD","refundAmount":5.495,"upgradeCredit":null"#))

        let (from, to) = (day("2023-10-01"), day("2023-11-01"))
        let refunds = try analytics.refundRate(from: from, to: to, asOf: asOf)
        #expect(refunds.rows.map { "\($0.key) \($0.charged) \($0.refunded)" } == ["2023-10 1 1"])
        let revenue = try analytics.revenue(from: from, to: to, asOf: asOf)
        #expect(
            revenue.rows.map {
                "\($0.currency) gross \($0.gross) refunds \($0.refunds) credits \($0.upgradeCredits) net \($0.net)"
            }
                == ["USD gross 10990 refunds 5495 credits 0 net 5495"])
        let events = try analytics.events(from: from, to: to, asOf: asOf)
        #expect(events.counts[.refund] == 1)
        #expect(events.expirationReasons[.refund] == 1)
    }
}
