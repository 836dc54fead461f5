import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

@Suite struct SubscriberReportTests {
    let asOf = day("2025-06-15")

    /// Subscriber C of `fiveSubscribers()`: an upgrade, a billing failure recovered after 5 days.
    @Test func reportJSONFieldByField() throws {
        let analytics = try fiveSubscribers()
        try analytics.database.setFlags(
            OfferFlagWrite(offer: .loyalty, ids: ["C"], operatorName: "ann", note: "thanks"), at: day("2025-06-10"))
        guard case .found(let report) = try analytics.subscriber("C4", asOf: asOf) else {
            Issue.record("C4 (a transactionId) should find subscription C")
            return
        }
        let expected = """
            {"originalTransactionId":"C","environment":"Production","ownership":"purchased","userId":null,"email":null,"appAccountToken":null,"productId":"premium.monthly","state":"standard","autoRenew":true,"autoRenewProductId":null,"inBillingRetry":false,"gracePeriodExpires":null,"expirationReason":null,"priceIncrease":null,"paidPeriods":4,"billingFailures":1,"accessEnd":{"kind":"renewsOn","at":"2025-06-20T00:00:00Z"},"billingRetry":null,"periods":[\
            {"transactionId":"C1","productId":"pro.monthly","start":"2025-02-01T00:00:00Z","end":"2025-02-15T00:00:00Z","offerKind":"standard","class":"activation","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":null,"currency":null,"refundAmount":null,"upgradeCredit":null},\
            {"transactionId":"C2","productId":"premium.monthly","start":"2025-02-15T00:00:00Z","end":"2025-03-15T00:00:00Z","offerKind":"standard","class":"productChange","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":null,"currency":null,"refundAmount":null,"upgradeCredit":null},\
            {"transactionId":"C3","productId":"premium.monthly","start":"2025-03-15T00:00:00Z","end":"2025-04-15T00:00:00Z","offerKind":"standard","class":"renewal","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":null,"currency":null,"refundAmount":null,"upgradeCredit":null},\
            {"transactionId":"C4","productId":"premium.monthly","start":"2025-04-20T00:00:00Z","end":"2025-05-20T00:00:00Z","offerKind":"standard","class":"billingRecovery","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":null,"currency":null,"refundAmount":null,"upgradeCredit":null},\
            {"transactionId":"C5","productId":"premium.monthly","start":"2025-05-20T00:00:00Z","end":"2025-06-20T00:00:00Z","offerKind":"standard","class":"renewal","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":null,"currency":null,"refundAmount":null,"upgradeCredit":null}],"events":[\
            {"at":"2025-02-01T00:00:00Z","type":"activation","productId":"pro.monthly","expirationReason":null},\
            {"at":"2025-02-15T00:00:00Z","type":"productChange","productId":"premium.monthly","expirationReason":null},\
            {"at":"2025-03-15T00:00:00Z","type":"renewal","productId":"premium.monthly","expirationReason":null},\
            {"at":"2025-04-15T00:00:00Z","type":"billingIssue","productId":"premium.monthly","expirationReason":null},\
            {"at":"2025-04-20T00:00:00Z","type":"billingRecovery","productId":"premium.monthly","expirationReason":null},\
            {"at":"2025-05-20T00:00:00Z","type":"renewal","productId":"premium.monthly","expirationReason":null}],"flags":[\
            {"offer":"loyalty","at":"2025-06-10T00:00:00Z","note":"thanks"}],"paid":{},"paidServiceDays":129,"commitment":null,"renewalPrice":null,"renewalCurrency":null,"eligibleWinBackOfferIds":[],"appTransactionId":null,"appTransactionSubscriptions":[]}
            """
        #expect(SubscriberOutput(report).json == expected)
    }

    @Test func insideTheRetryWindowBeforeRecovery() throws {
        guard case .found(let report) = try fiveSubscribers().subscriber("C", asOf: day("2025-04-17")) else {
            Issue.record("C not found")
            return
        }
        #expect(report.state == .billingRetry)
        #expect(report.inBillingRetry)
        #expect(report.paidPeriods == 2)
        #expect(report.expirationReason == nil)
    }

    @Test func lapsedSubscriberHasAReason() throws {
        guard case .found(let report) = try fiveSubscribers().subscriber("A", asOf: asOf) else {
            Issue.record("A not found")
            return
        }
        #expect(report.state == .expired)
        #expect(report.paidPeriods == 3)
        #expect(report.expirationReason == .other)
    }

    @Test func unknownAndAmbiguousIdsAreSaidSo() throws {
        var b = StoreBuilder()
        b.period("X", "X1", "2025-01-01", "2025-02-01")
        b.period("Y", "Y1", "2025-01-01", "2025-02-01")
        b.add(
            DocumentFacts(
                format: .customersCSV,
                customers: [
                    CustomerFact(userId: "u1", originalTransactionId: "X"),
                    CustomerFact(userId: "u1", originalTransactionId: "Y"),
                ]))
        let analytics = try b.build()
        #expect(try analytics.subscriber("nobody") == .notFound("nobody"))
        #expect(try analytics.subscriber("u1") == .ambiguous("u1", ["X", "Y"]))
    }
}
