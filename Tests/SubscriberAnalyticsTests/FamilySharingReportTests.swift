import AppStorePayloads
import Foundation
import ReportOutputs
import StoreImport
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

/// Family Sharing in the reports (docs/metrics.md "Family Sharing"), on hand-made stores.
@Suite struct FamilySharingReportTests {
    /// One transaction of `original`, family-shared unless `purchased`.
    static func transaction(
        _ original: String, _ id: String, _ start: String, _ end: String, revokedAt: String? = nil,
        shared: Bool = true
    ) -> TransactionFact {
        TransactionFact(
            transactionId: id, originalTransactionId: original, productId: "pro.monthly",
            purchaseDate: day(start), expiresDate: day(end), revocationDate: revokedAt.map(day),
            inAppOwnershipType: shared ? "FAMILY_SHARED" : "PURCHASED")
    }

    /// The purchaser `p` over three months, refunded on 03-10; when `members`, two family members
    /// mirroring the purchaser, both revoked at the refund.
    static func refundedFamily(members: Bool) throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        b.add(
            DocumentFacts(
                format: .v2Notification,
                transactions: [
                    transaction("p", "p1", "2025-01-01", "2025-02-01", shared: false),
                    transaction("p", "p2", "2025-02-01", "2025-03-01", shared: false),
                    transaction("p", "p3", "2025-03-01", "2025-04-01", revokedAt: "2025-03-10", shared: false),
                ]))
        if members {
            for m in ["m", "n"] {
                b.add(
                    DocumentFacts(
                        format: .v2Notification,
                        transactions: [
                            transaction(m, m + "1", "2025-01-01", "2025-02-01"),
                            transaction(m, m + "2", "2025-02-01", "2025-03-01"),
                            transaction(m, m + "3", "2025-03-01", "2025-04-01", revokedAt: "2025-03-10"),
                        ]))
            }
        }
        return try b.build()
    }

    /// A family member over two renewals: an activation, two renewals, never paid; counted in
    /// states and events only with `--ownership familyShared` or `all`.
    @Test func familySharedOverTwoRenewals() throws {
        var b = StoreBuilder()
        b.add(
            DocumentFacts(
                format: .v2Notification,
                transactions: [
                    Self.transaction("f", "f1", "2025-01-01", "2025-02-01"),
                    Self.transaction("f", "f2", "2025-02-01", "2025-03-01"),
                    Self.transaction("f", "f3", "2025-03-01", "2025-04-01"),
                ]))
        let analytics = try b.build()
        let at = day("2025-03-15")
        func scope(_ o: OwnershipFilter) -> ReportScope { ReportScope(ownership: o) }
        #expect(try analytics.states(asOf: at).total == 0)
        #expect(try analytics.states(asOf: at, scope: scope(.familyShared)).counts == [.standard: 1])
        #expect(try analytics.states(asOf: at, scope: scope(.all)).counts == [.standard: 1])
        let range = (day("2025-01-01"), day("2025-05-01"))
        #expect(try analytics.events(from: range.0, to: range.1, asOf: at).counts.isEmpty)
        let shared = try analytics.events(from: range.0, to: range.1, asOf: day("2025-04-15"), scope: scope(.familyShared))
        #expect(shared.counts == [.activation: 1, .renewal: 2, .expiration: 1])
        #expect(shared.expirationReasons == [.other: 1])
        guard case .found(let report) = try analytics.subscriber("f", asOf: at) else {
            Issue.record("not found")
            return
        }
        #expect(report.paidPeriods == 0 && report.timeline.ownership == .familyShared)
        #expect(SubscriberOutput(report).json.contains(#""ownership":"familyShared""#))
        #expect(try analytics.cohorts(asOf: at, periods: 3).cohorts.allSatisfy { $0.started == 0 })
    }

    /// The purchaser's refund, then the members' revocations: one refund event; the members'
    /// runs end `sharingRevoked`.
    @Test func purchasersRefundThenMembersRevocations() throws {
        let analytics = try Self.refundedFamily(members: true)
        let (from, to, asOf) = (day("2025-03-01"), day("2025-04-01"), day("2025-03-31"))
        let purchased = try analytics.events(from: from, to: to, asOf: asOf)
        #expect(purchased[EventType.refund] == 1 && purchased.expirationReasons == [.refund: 1])
        let all = try analytics.events(from: from, to: to, asOf: asOf, scope: ReportScope(ownership: .all))
        #expect(all[EventType.refund] == 1)
        #expect(all[.expiration] == 3)
        #expect(all.expirationReasons == [.refund: 1, .sharingRevoked: 2])
        let members = try analytics.events(from: from, to: to, asOf: asOf, scope: ReportScope(ownership: .familyShared))
        #expect(members[EventType.refund] == 0 && members.expirationReasons == [.sharingRevoked: 2])
        #expect(EventsOutput(members).json.contains(#""refund":0,"sharingRevoked":2,"other":0"#))
    }

    /// Adding the family members changes neither the cohorts nor the eligibility lists, nor any
    /// purchased figure.
    @Test func familyMembersLeaveCohortsAndEligibilityUnchanged() throws {
        let alone = try Self.refundedFamily(members: false)
        let family = try Self.refundedFamily(members: true)
        // 02-15: the members are active with auto-renew on, in their third month; on 05-01 they
        // have ended, which win-back would read were they purchased.
        for at in [day("2025-02-15"), day("2025-05-01")] {
            #expect(try family.cohorts(asOf: at, periods: 3) == alone.cohorts(asOf: at, periods: 3))
            #expect(try family.eligibility(asOf: at) == alone.eligibility(asOf: at))
            #expect(try family.states(asOf: at) == alone.states(asOf: at))
        }
        let grid = try family.cohorts(asOf: day("2025-05-01"), periods: 3)
        #expect(grid.cohorts.map(\.started).reduce(0, +) == 1)
    }

    /// A member with auto-renew off would be a retention suggestion were it purchased.
    @Test func eligibilityCountsPurchasedOnly() throws {
        var b = StoreBuilder()
        b.add(DocumentFacts(format: .v2Notification, transactions: [Self.transaction("f", "f1", "2025-01-01", "2025-02-01")]))
        b.add(
            DocumentFacts(
                format: .v2Notification,
                transactions: [
                    Self.transaction("p", "p1", "2025-01-01", "2025-02-01", shared: false)
                ]))
        b.notification("f", "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: "2025-01-10", autoRenew: false)
        b.notification("p", "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: "2025-01-10", autoRenew: false)
        let analytics = try b.build()
        let eligible = try analytics.eligibility(asOf: day("2025-01-15"), offer: .retention)
        #expect(eligible.map(\.originalTransactionId) == ["p"])
        // The state counts see both when asked.
        #expect(try analytics.states(asOf: day("2025-01-15"), scope: ReportScope(ownership: .all)).counts == [.standard: 2])
    }

    // MARK: - The REVOKE examples

    static let examples = SampleData.examples

    static func imported(_ file: String) throws -> SubscriberAnalytics {
        let db = try AppDatabase.inMemory()
        let summary = try Importer.appStore(database: db, verifier: UnverifiedJWS(), report: { _ in }).importPaths([
            examples + "/" + file
        ])
        #expect(summary.rejected == 0)
        return SubscriberAnalytics(database: db)
    }

    /// v1 `REVOKE` (`in_app_ownership_type` FAMILY_SHARED, `cancellation_date` 2024-03-25 16:20)
    /// and v2 `REVOKE` (`revocationType` FAMILY_REVOKE, revoked 2024-05-27 17:20): the member's
    /// period ends at the revocation, no refund.
    @Test(arguments: [
        ("v1/REVOKE.json", "1000000900000001", "2024-03-25T16:20:00Z"),
        ("v2/REVOKE.json", "2000000900000001", "2024-05-27T17:20:00Z"),
    ])
    func revokeExamplesAreSharingRevocations(file: String, id: String, revoked: String) throws {
        let analytics = try Self.imported(file)
        guard case .found(let report) = try analytics.subscriber(id) else {
            Issue.record("\(id) not found")
            return
        }
        #expect(report.timeline.ownership == .familyShared)
        #expect(report.expirationReason == .sharingRevoked)
        #expect(report.timeline.periods.last?.end == Instant(parsing: revoked))
        #expect(report.timeline.periods.allSatisfy { !$0.isRefunded && !$0.isPaid })
        #expect(!report.events.contains { $0.type == .refund })
        let (from, to) = (day("2024-01-01"), day("2024-07-01"))
        let asOf = try analytics.resolveAsOf(nil)
        let purchased = try analytics.events(from: from, to: to, asOf: asOf)
        #expect(purchased.counts.isEmpty)
        let shared = try analytics.events(from: from, to: to, asOf: asOf, scope: ReportScope(ownership: .familyShared))
        #expect(shared[EventType.refund] == 0 && shared.expirationReasons == [.sharingRevoked: 1])
    }
}
