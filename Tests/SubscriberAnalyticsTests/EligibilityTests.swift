import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

/// Offer eligibility (docs/metrics.md) on hand-made subscriptions, as of 2025-06-30 (what pane 5
/// lists).
@Suite struct EligibilityTests {
    static let asOf = day("2025-06-30")

    /// `count` consecutive monthly periods of `original` from the first of `first`.
    static func monthly(_ b: inout StoreBuilder, _ original: String, from first: Month, count: Int) {
        for k in 0..<count {
            let month = first.adding(months: k)
            b.period(original, "\(original)-\(k)", month.start.isoDate, month.next.start.isoDate)
        }
    }

    static func store() throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        // Win-back: ended voluntarily (auto-renew turned off) on 2025-04-01, within 180 days.
        b.period("W1", "W1-0", "2025-03-01", "2025-04-01")
        b.notification("W1", "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: "2025-03-10", autoRenew: false)
        // Not: ended voluntarily, but more than 180 days ago.
        b.period("W2", "W2-0", "2024-09-01", "2024-10-01")
        b.notification("W2", "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: "2024-09-10", autoRenew: false)
        // Not: ended by a refund.
        b.period("W3", "W3-0", "2025-04-01", "2025-05-01", revokedAt: "2025-04-03")
        // Not: ended voluntarily, then came back and is open now.
        b.period("W4", "W4-0", "2025-02-01", "2025-03-01")
        b.notification("W4", "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: "2025-02-10", autoRenew: false)
        b.period("W4", "W4-1", "2025-06-10", "2025-07-10")
        // Retention: active with auto-renew off.
        b.period("R1", "R1-0", "2025-06-15", "2025-07-15")
        b.notification("R1", "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: "2025-06-20", autoRenew: false)
        // Upgrade: active on a monthly period with 7 paid periods.
        monthly(&b, "U1", from: Month(year: 2024, month: 12), count: 7)
        // Not upgrade: 5 paid periods only.
        monthly(&b, "U2", from: Month(year: 2025, month: 2), count: 5)
        // Loyalty (and upgrade): 13 paid monthly periods, auto-renew on.
        monthly(&b, "L1", from: Month(year: 2024, month: 6), count: 13)
        // Service: in billing retry now (the period that failed ended on 2025-06-20).
        b.period("S1", "S1-0", "2025-05-20", "2025-06-20")
        b.notification("S1", "DID_FAIL_TO_RENEW", at: "2025-06-20", transaction: "S1-0")
        // Nothing: a plain active subscriber.
        b.period("N1", "N1-0", "2025-06-05", "2025-07-05")
        // L1's customer, from a customers CSV.
        b.add(
            DocumentFacts(
                format: .customersCSV,
                customers: [CustomerFact(userId: "user-l1", email: "loyal.one@example.com", originalTransactionId: "L1")]))
        return try b.build()
    }

    @Test func eachOfferListsWhoTheRulesSay() throws {
        let analytics = try Self.store()
        let found = try analytics.eligibility(asOf: Self.asOf)
        #expect(
            found.map { "\($0.offer.rawValue) \($0.originalTransactionId)" } == [
                "winBack W1",
                "retention R1",
                "upgrade L1", "upgrade U1",
                "loyalty L1",
                "service S1",
            ])
        let reasons = Dictionary(found.map { ("\($0.offer.rawValue) \($0.originalTransactionId)", $0.detail) }) { a, _ in a }
        #expect(reasons["winBack W1"] == "ended voluntary 2025-04-01")
        #expect(reasons["retention R1"] == "auto-renew off, standard")
        #expect(reasons["upgrade U1"] == "7 paid periods of 30 days")
        #expect(reasons["loyalty L1"] == "13 paid periods, auto-renew on")
        #expect(reasons["service S1"] == "in billingRetry")
    }

    /// Asked for, each row carries its customer's email (read for the rows returned, after the
    /// limit); not asked for (`report eligibility`), none does.
    @Test func emailsComeWhenAskedFor() throws {
        let analytics = try Self.store()
        let withEmails = try analytics.eligibility(asOf: Self.asOf, emails: true)
        #expect(
            withEmails.filter { $0.email != nil }.map { "\($0.offer.rawValue) \($0.email ?? "")" } == [
                "upgrade loyal.one@example.com", "loyalty loyal.one@example.com",
            ])
        #expect(try analytics.eligibility(asOf: Self.asOf).allSatisfy { $0.email == nil })
        #expect(
            try analytics.eligibility(asOf: Self.asOf, offer: .upgrade, limit: 1, emails: true).map(\.email) == [
                "loyal.one@example.com"
            ])
        #expect(try analytics.emails(of: ["L1", "U1", "L1"]) == ["L1": "loyal.one@example.com"])
    }

    @Test func oneOfferAndAProduct() throws {
        let analytics = try Self.store()
        #expect(try analytics.eligibility(asOf: Self.asOf, offer: .upgrade).map(\.originalTransactionId) == ["L1", "U1"])
        #expect(try analytics.eligibility(asOf: Self.asOf, scope: ReportScope(productId: "pro.yearly")).isEmpty)
        // A day before W1's run ends it is still open: no win-back yet, but auto-renew is off; W4 had
        // not come back then.
        let before = try analytics.eligibility(asOf: day("2025-03-31"))
        #expect(before.filter { $0.offer == .winBackOffer }.map(\.originalTransactionId) == ["W4"])
        #expect(before.contains { $0.offer == .retention && $0.originalTransactionId == "W1" })
    }
}
