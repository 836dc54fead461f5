import AppStorePayloads
import Foundation
import GRDB
import StoreImport
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

@testable import LifecycleSimulator

/// A Consumable inside a Get Transaction History response (docs/metrics.md, "Non-subscription
/// transactions"): the document is archived, the consumable makes no subscription and moves no
/// figure.
///
/// Subscription S buys a monthly product on 2025-01-05 10:00 and renews twice (S1, S2, S3, to
/// 04-05); the same account buys 100 coins (a Consumable, C, its own original transaction) on
/// 02-10 09:00. On 03-15 S is one standard subscriber, with two renewals since January and
/// an MRR of 9.99 USD; one January cohort member.
@Suite struct NonSubscriptionTransactionTests {
    static let product = "com.example.pro.monthly"
    static let subscription = "5000000000000001"
    static let coins = "5000000000000900"
    static let signed = Wire.at("2025-03-10T12:00:00Z")
    static let asOf = Wire.at("2025-03-15T00:00:00Z")

    static var periods: [WireTransaction] {
        let starts = ["2025-01-05", "2025-02-05", "2025-03-05", "2025-04-05"].map { Wire.at($0 + "T10:00:00Z") }
        return (0..<3).map { k in
            var t = WireTransaction(
                transactionId: String(Int64(subscription)! + Int64(10 * k)), originalTransactionId: subscription,
                webOrderLineItemId: String(Int64(subscription)! + 50_000 + Int64(k)), productId: product,
                purchaseDate: starts[k], originalPurchaseDate: starts[0], expiresDate: starts[k + 1], price: 9990)
            t.isRenewal = k > 0
            return t
        }
    }

    static var consumable: WireTransaction {
        let bought = Wire.at("2025-02-10T09:00:00Z")
        var t = WireTransaction(
            transactionId: coins, originalTransactionId: coins, webOrderLineItemId: coins,
            productId: "com.example.coins100", purchaseDate: bought, originalPurchaseDate: bought,
            expiresDate: bought, price: 1990)
        t.isRenewal = false
        t.type = "Consumable"
        return t
    }

    /// Every figure the test compares, at `asOf`.
    struct Figures: Equatable {
        var states: StateCounts
        var events: EventCounts
        var cohorts: CohortGrid
        var mrr: MRRReport
    }

    static func figures(_ analytics: SubscriberAnalytics) throws -> Figures {
        Figures(
            states: try analytics.states(asOf: asOf),
            events: try analytics.events(from: Wire.at("2025-01-01T00:00:00Z"), to: asOf, asOf: asOf),
            cohorts: try analytics.cohorts(asOf: asOf, periods: 3),
            mrr: try analytics.mrr(asOf: asOf))
    }

    @Test func consumableInAHistoryMakesNoSubscription() throws {
        let chain = try Wire.chain()
        let jws = try CompactJWS(chain: chain)
        let without = try Wire.store(
            [Wire.transactionHistory(Self.periods, signedDate: Self.signed, jws: jws)], chain: chain)
        #expect(without.1 == [])

        let db = try AppDatabase.inMemory()
        let history = Wire.transactionHistory(
            [Self.periods[0], Self.consumable] + Self.periods[1...], signedDate: Self.signed, jws: jws)
        #expect(try Wire.importDocuments([history], into: db, chain: chain) == [])
        let with = SubscriberAnalytics(database: db)

        // Hand-computed: one standard subscriber, an activation and two renewals, one January
        // member, 9.99 USD a month; the consumable changes none of it.
        let figures = try Self.figures(with)
        #expect(figures.states.counts == [.standard: 1])
        #expect(figures.events.counts == [.activation: 1, .renewal: 2])
        #expect(figures.mrr.rows.map(\.mrr) == [9990])
        #expect(figures.cohorts.cohorts.map(\.started).reduce(0, +) == 1)
        #expect(figures == (try Self.figures(without.0)))

        guard case .notFound = try with.subscriber(Self.coins, asOf: Self.asOf) else {
            Issue.record("the consumable's id found as a subscription")
            return
        }
        guard case .found(let s) = try with.subscriber(Self.subscription, asOf: Self.asOf) else {
            Issue.record("the subscription not found")
            return
        }
        #expect(s.timeline.periods.count == 3)

        // Archived and applied; no transaction fact of the consumable.
        let stored = try db.writer.read { db in
            (
                outcomes: try String.fetchAll(db, sql: "SELECT outcome FROM document WHERE body IS NOT NULL"),
                transactions: try Int.fetchOne(db, sql: #"SELECT COUNT(*) FROM "transaction""#),
                subscriptions: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM subscription")
            )
        }
        #expect(stored.outcomes == ["applied"] && stored.transactions == 3 && stored.subscriptions == 1)
    }

    /// The import summary says how many it kept aside; importing the same file again (a
    /// duplicate) keeps none aside.
    @Test func importSummarySaysSo() throws {
        let chain = try Wire.chain()
        let history = Wire.transactionHistory(
            Self.periods + [Self.consumable], signedDate: Self.signed, jws: try CompactJWS(chain: chain))
        let dir = try TemporaryDirectory("nonsub")
        defer { dir.remove() }
        try history.write(toFile: dir.path("history.json"), atomically: true, encoding: .utf8)
        let verifier = try AppleJWSVerifier(additionalRootsPEM: [chain.rootPEM()], includeAppleRoot: false)
        let importer = Importer.appStore(database: try AppDatabase.inMemory(), verifier: verifier, report: { _ in })
        let first = try importer.importPaths([dir.path])
        #expect(first.applied == 1 && first.nonSubscriptionTransactions == 1 && first.subscriptionsTouched == 1)
        #expect(
            first.line.contains(
                "; 1 non-subscription transaction (consumables, non-consumables, non-renewing) archived, counted in no figure; "))
        let again = try importer.importPaths([dir.path])
        #expect(again.duplicates == 1 && again.nonSubscriptionTransactions == 0)
        #expect(!again.line.contains("non-subscription"))
    }
}
