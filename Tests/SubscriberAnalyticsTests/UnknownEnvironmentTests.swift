import AppStorePayloads
import Foundation
import StoreImport
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

@testable import LifecycleSimulator

/// A transaction history from an environment Apple does not document ("Foo"): stored with its raw
/// value, counted only with `--environment all`, and named in the import summary (docs/metrics.md,
/// "Which data, read when").
///
/// The history is NonSubscriptionTransactionTests' three monthly periods: with
/// `--environment all` it gives exactly the figures the same periods give from Production.
@Suite struct UnknownEnvironmentTests {
    static let asOf = NonSubscriptionTransactionTests.asOf

    static func history(environment: String, chain: TestCertificateChain) throws -> String {
        let periods = NonSubscriptionTransactionTests.periods.map { t in
            var t = t
            t.environment = environment
            return t
        }
        return Wire.transactionHistory(
            periods, signedDate: NonSubscriptionTransactionTests.signed, jws: try CompactJWS(chain: chain))
    }

    static func figures(_ analytics: SubscriberAnalytics, _ environment: EnvironmentFilter) throws
        -> NonSubscriptionTransactionTests.Figures
    {
        let scope = ReportScope(environment: environment)
        return NonSubscriptionTransactionTests.Figures(
            states: try analytics.states(asOf: asOf, scope: scope),
            events: try analytics.events(from: Wire.at("2025-01-01T00:00:00Z"), to: asOf, asOf: asOf, scope: scope),
            cohorts: try analytics.cohorts(asOf: asOf, periods: 3, scope: scope),
            mrr: try analytics.mrr(asOf: asOf, scope: scope))
    }

    @Test func keptAndCountedOnlyWithAll() throws {
        let chain = try Wire.chain()
        let dir = try TemporaryDirectory("environment")
        defer { dir.remove() }
        try Self.history(environment: "Foo", chain: chain).write(
            toFile: dir.path("history.json"), atomically: true, encoding: .utf8)
        let verifier = try AppleJWSVerifier(additionalRootsPEM: [chain.rootPEM()], includeAppleRoot: false)
        let db = try AppDatabase.inMemory()
        let importer = Importer.appStore(database: db, verifier: verifier, report: { _ in })
        let summary = try importer.importPaths([dir.path])
        #expect(summary.applied == 1 && summary.rejected == 0 && summary.unknownEnvironments == ["Foo": 1])
        #expect(
            summary.line.contains(
                "; 1 document from an unknown environment 'Foo': counted only with --environment all; "))
        let again = try importer.importPaths([dir.path])
        #expect(again.duplicates == 1 && again.unknownEnvironments == [:] && !again.line.contains("unknown environment"))

        let foo = SubscriberAnalytics(database: db)
        let (production, rejected) = try Wire.store(
            [try Self.history(environment: "Production", chain: chain)], chain: chain)
        #expect(rejected == [])
        // Hand-computed, as from Production: one standard subscriber, 9.99 USD a month.
        let all = try Self.figures(foo, .all)
        #expect(all.states.counts == [.standard: 1] && all.mrr.rows.map(\.mrr) == [9990])
        #expect(all == (try Self.figures(production, .production)))
        // Neither Production (the default) nor Sandbox counts it.
        for environment in [EnvironmentFilter.production, .sandbox] {
            let f = try Self.figures(foo, environment)
            #expect(f.states.counts.values.reduce(0, +) == 0 && f.events.counts.values.reduce(0, +) == 0)
            #expect(f.mrr.rows.isEmpty && f.cohorts.cohorts.map(\.started).reduce(0, +) == 0)
        }

        guard case .found(let s) = try foo.subscriber(NonSubscriptionTransactionTests.subscription, asOf: Self.asOf)
        else {
            Issue.record("not found")
            return
        }
        #expect(s.timeline.environment.rawValue == "Foo" && s.timeline.periods.count == 3)
    }
}
