import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

/// docs/metrics.md "Campaigns", its worked example: four subscriptions of pro.monthly flagged
/// winBack on 1 March 2025 at 09:00, the catalogue mapping winBack to the win-back offer wb50.
@Suite struct CampaignReportTests {
    static func store() throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        for s in ["A", "B", "C", "D"] { b.charge(s, "\(s)0", "2025-01-01", "2025-02-01", 9990, "USD") }
        // A redeems on 3 March and pays full price from 3 April.
        b.charge("A", "A1", "2025-03-03", "2025-04-03", 4990, "USD", offerType: 4, offerIdentifier: "wb50")
        b.charge("A", "A2", "2025-04-03", "2025-05-03", 9990, "USD")
        // B redeems on 3 March at 10:00, after its flag was cleared (within 24 h of the serving).
        b.charge("B", "B1", "2025-03-03T10:00:00Z", "2025-04-03T10:00:00Z", 4990, "USD", offerType: 4, offerIdentifier: "wb50")
        // C redeems a one-week offer on 11 March and lets it lapse.
        b.charge("C", "C1", "2025-03-11", "2025-03-18", 990, "USD", offerType: 4, offerIdentifier: "wb50")
        let analytics = try b.build()
        let db = analytics.database
        let flagged = day("2025-03-01T09:00:00Z")
        try db.setFlags(.init(offer: .winBackOffer, ids: ["A", "B", "C", "D"], operatorName: "ana"), at: flagged)
        for (id, at) in [("A", "2025-03-02T12:00:00Z"), ("B", "2025-03-02T12:00:00Z")] {
            try db.recordServed(
                ServedOffer(
                    originalTransactionId: id, flag: .winBackOffer, flagAt: flagged, offerKind: "winBack",
                    offerIdentifier: "wb50",
                    productId: "pro.monthly", format: "signature", nonce: "nonce-\(id)", client: "127.0.0.1", at: day(at)))
        }
        try db.setFlags(
            .init(offer: .winBackOffer, ids: ["B"], clear: true, operatorName: "ana"), at: day("2025-03-02T18:00:00Z"))
        try db.setFlags(
            .init(offer: .winBackOffer, ids: ["D"], operatorName: "bo", note: "again", replace: true), at: day("2025-03-05"))
        return analytics
    }

    static func catalogue(_ flag: OfferFlagKind, _ product: String, _ group: String?) -> CampaignReport.Offer? {
        flag == .winBackOffer && product == "pro.monthly" ? .init(kind: .winBack, identifier: "wb50") : nil
    }

    @Test func theWorkedExample() throws {
        let r = try Self.store().campaigns(
            from: day("2025-03-01"), to: day("2025-04-01"), asOf: day("2025-04-03T05:00:00Z"), offer: Self.catalogue)
        #expect(r.rows.count == 1)
        let row = try #require(r.rows.first)
        #expect(row.flag == .winBackOffer)
        #expect(row.offer == .init(kind: .winBack, identifier: "wb50"))
        #expect(
            [row.flagged, row.served, row.redeemed, row.converted, row.lapsed, row.pending] == [5, 2, 3, 1, 1, 1])
        #expect(row.servedRate == 0.4)
        #expect(row.redemptionRate == 0.6)
        #expect(row.conversionRate == 0.5)
        #expect(row.daysToRedeem.sorted() == [1, 2, 9])
        #expect(row.timeToRedeemDays == 2)
        #expect(row.members[.flagged]?.sorted() == ["A", "B", "C", "D", "D"])
        #expect(row.members[.served]?.sorted() == ["A", "B"])
        #expect(row.members[.redeemed]?.sorted() == ["A", "B", "C"])
        #expect(row.members[.converted] == ["A"])
        #expect(row.members[.lapsed] == ["C"])
    }

    @Test func aRedemptionAfterTheWindowOrAnotherOfferDoesNotCount() throws {
        // Without the serving, B's redemption falls after its flag was cleared: not counted.
        var b = StoreBuilder()
        b.charge("B", "B0", "2025-01-01", "2025-02-01", 9990, "USD")
        b.charge("B", "B1", "2025-03-03T10:00:00Z", "2025-04-03T10:00:00Z", 4990, "USD", offerType: 4, offerIdentifier: "wb50")
        b.charge("E", "E0", "2025-01-01", "2025-02-01", 9990, "USD")
        b.charge("E", "E1", "2025-03-03", "2025-04-03", 4990, "USD", offerType: 4, offerIdentifier: "other")
        let analytics = try b.build()
        try analytics.database.setFlags(
            .init(offer: .winBackOffer, ids: ["B", "E"], operatorName: "ana"), at: day("2025-03-01T09:00:00Z"))
        try analytics.database.setFlags(
            .init(offer: .winBackOffer, ids: ["B"], clear: true, operatorName: "ana"), at: day("2025-03-02T18:00:00Z"))
        let r = try analytics.campaigns(
            from: day("2025-03-01"), to: day("2025-04-01"), asOf: day("2025-05-01"), offer: Self.catalogue)
        let row = try #require(r.rows.first)
        #expect([row.flagged, row.served, row.redeemed] == [2, 0, 0])
        #expect(row.redemptionRate == 0)
        #expect(row.timeToRedeemDays == nil)
    }
}
