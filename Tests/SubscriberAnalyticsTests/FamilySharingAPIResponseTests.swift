import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriptionModel
import Testing

@testable import LifecycleSimulator

/// Family-shared rows in `/verifyReceipt` responses and App Store Server API responses (Get
/// Transaction History, Get All Subscription Statuses) follow the same rules as in notifications
/// (docs/metrics.md "Family Sharing"): never paid, and a revocation is a sharing revocation.
///
/// The family: purchaser P buys a monthly subscription on 2025-01-05 10:00 and renews twice
/// (P1, P2, P3); P3 is refunded on 03-12 12:00. Member M has the same three periods through
/// Family Sharing (M1, M2, M3), and M3 is revoked at the purchaser's refund.
@Suite struct FamilySharingAPIResponseTests {
    static let product = "com.example.pro.monthly"
    static let purchaser = "4000000000000001"
    static let member = "4000000000000101"
    static let revoked = Wire.at("2025-03-12T12:00:00Z")

    /// The three monthly periods of `original`; the third revoked at `revoked`.
    static func periods(_ original: String, shared: Bool) -> [WireTransaction] {
        let starts = ["2025-01-05", "2025-02-05", "2025-03-05", "2025-04-05"].map { Wire.at($0 + "T10:00:00Z") }
        return (0..<3).map { k in
            var t = WireTransaction(
                transactionId: String(Int64(original)! + Int64(10 * k)), originalTransactionId: original,
                webOrderLineItemId: String(Int64(original)! + 50_000 + Int64(k)), productId: product,
                purchaseDate: starts[k], originalPurchaseDate: starts[0], expiresDate: starts[k + 1],
                price: 9990)
            t.isRenewal = k > 0
            if shared { t.ownership = "FAMILY_SHARED" }
            if k == 2 {
                t.revocationDate = revoked
                // Apple's reason for a refund; a family revocation has none, and v2 says why in
                // `revocationType`.
                if shared { t.revocationType = "FAMILY_REVOKE" } else { t.revocationReason = 0 }
            }
            return t
        }
    }

    static let renewal = WireRenewal(productId: product, autoRenewProductId: product)
    static let range = (from: Wire.at("2025-01-01T00:00:00Z"), to: Wire.at("2025-05-01T00:00:00Z"))
    static let asOf = Wire.at("2025-04-30T00:00:00Z")

    /// What all three full histories give: P has two paid periods and ends `refund` with one
    /// refund event; M has none paid and ends `sharingRevoked` at the same instant, no refund.
    static func expectFamily(_ analytics: SubscriberAnalytics) throws {
        let scope = { (o: OwnershipFilter) in ReportScope(ownership: o) }
        let purchased = try analytics.events(from: range.from, to: range.to, asOf: asOf)
        #expect(purchased.counts == [.activation: 1, .renewal: 2, .refund: 1, .expiration: 1])
        #expect(purchased.expirationReasons == [.refund: 1])
        let shared = try analytics.events(from: range.from, to: range.to, asOf: asOf, scope: scope(.familyShared))
        #expect(shared.counts == [.activation: 1, .renewal: 2, .expiration: 1])
        #expect(shared.expirationReasons == [.sharingRevoked: 1])
        let all = try analytics.events(from: range.from, to: range.to, asOf: asOf, scope: scope(.all))
        #expect(all.counts == [.activation: 2, .renewal: 4, .refund: 1, .expiration: 2])
        #expect(all.expirationReasons == [.refund: 1, .sharingRevoked: 1])

        let february = Wire.at("2025-02-15T00:00:00Z")
        #expect(try analytics.states(asOf: february).counts == [.standard: 1])
        #expect(try analytics.states(asOf: february, scope: scope(.familyShared)).counts == [.standard: 1])
        #expect(try analytics.states(asOf: february, scope: scope(.all)).counts == [.standard: 2])

        guard case .found(let m) = try analytics.subscriber(member, asOf: asOf),
            case .found(let p) = try analytics.subscriber(purchaser, asOf: asOf)
        else {
            Issue.record("not found")
            return
        }
        #expect(m.timeline.ownership == .familyShared && p.timeline.ownership == .purchased)
        #expect(m.paidPeriods == 0 && p.paidPeriods == 2)
        #expect(m.expirationReason == .sharingRevoked && p.expirationReason == .refund)
        #expect(m.timeline.periods.map(\.isRefunded) == [false, false, false])
        #expect(m.timeline.periods.last?.end == revoked)
        #expect(m.events.map(\.type) == [.activation, .renewal, .renewal, .expiration])
        #expect(p.events.map(\.type) == [.activation, .renewal, .renewal, .refund, .expiration])
        let json = SubscriberOutput(m).json
        #expect(json.contains(#""ownership":"familyShared""#) && json.contains(#""expirationReason":"sharingRevoked""#))
        // Cohorts count the purchaser alone: one member in January.
        let grid = try analytics.cohorts(asOf: asOf, periods: 2)
        #expect(grid.cohorts.map(\.started) == [1, 0, 0, 0])
    }

    /// Two `/verifyReceipt` responses, the purchaser's and the member's (`in_app_ownership_type`
    /// FAMILY_SHARED, M3 with a `cancellation_date`).
    @Test func verifyReceipt() throws {
        let documents = [
            Wire.verifyReceipt(
                original: Self.purchaser, rows: Self.periods(Self.purchaser, shared: false), renewal: Self.renewal),
            Wire.verifyReceipt(original: Self.member, rows: Self.periods(Self.member, shared: true), renewal: Self.renewal),
        ]
        let (analytics, rejected) = try Wire.store(documents, chain: try Wire.chain())
        #expect(rejected == [])
        try Self.expectFamily(analytics)
    }

    /// One Get Transaction History response per subscription (M3 `revocationType`
    /// FAMILY_REVOKE, P3 REFUND_FULL), signed on 03-12 12:00.
    @Test func transactionHistory() throws {
        let chain = try Wire.chain()
        let jws = try CompactJWS(chain: chain)
        let documents = [Self.purchaser, Self.member].map { original in
            Wire.transactionHistory(Self.periods(original, shared: original == Self.member), signedDate: Self.revoked, jws: jws)
        }
        let (analytics, rejected) = try Wire.store(documents, chain: chain)
        #expect(rejected == [])
        try Self.expectFamily(analytics)
    }

    /// A Get All Subscription Statuses response (status 5, revoked) holds only the latest
    /// transactions, P3 and M3: each subscription is one period [03-05 10:00, 03-12 12:00). P3 is
    /// a refund; M3, family-shared, a sharing revocation.
    @Test func statuses() throws {
        let chain = try Wire.chain()
        let p3 = Self.periods(Self.purchaser, shared: false)[2]
        let m3 = Self.periods(Self.member, shared: true)[2]
        let response = Wire.statusResponse(
            [(5, p3, Self.renewal), (5, m3, Self.renewal)], signedDate: Self.revoked,
            jws: try CompactJWS(chain: chain))
        let (analytics, rejected) = try Wire.store([response], chain: chain)
        #expect(rejected == [])
        let all = try analytics.events(
            from: Self.range.from, to: Self.range.to, asOf: Self.asOf,
            scope: ReportScope(ownership: .all))
        #expect(all.counts == [.activation: 2, .refund: 1, .expiration: 2])
        #expect(all.expirationReasons == [.refund: 1, .sharingRevoked: 1])
        let shared = try analytics.events(
            from: Self.range.from, to: Self.range.to, asOf: Self.asOf,
            scope: ReportScope(ownership: .familyShared))
        #expect(shared.counts == [.activation: 1, .expiration: 1] && shared.expirationReasons == [.sharingRevoked: 1])
        guard case .found(let m) = try analytics.subscriber(Self.member, asOf: Self.asOf) else {
            Issue.record("not found")
            return
        }
        #expect(m.timeline.ownership == .familyShared && m.expirationReason == .sharingRevoked)
        #expect(m.timeline.periods.map(\.start) == [Wire.at("2025-03-05T10:00:00Z")])
        #expect(m.timeline.periods.map(\.end) == [Self.revoked])
        #expect(m.events.map(\.type) == [.activation, .expiration])
    }
}
