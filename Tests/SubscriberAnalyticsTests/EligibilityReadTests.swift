import GRDB
import GRDBSQLite
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import Synchronization
import TestSupport
import Testing

/// SQLite's virtual-machine steps of the statements `body` runs on an in-memory store's one
/// connection: what a read costs, whatever the machine's load.
func virtualMachineSteps(_ analytics: SubscriberAnalytics, _ body: () throws -> Void) throws -> Int64 {
    final class Count: Sendable { let steps = Mutex<Int64>(0) }
    let count = Count()
    let context = Unmanaged.passUnretained(count).toOpaque()
    let installed = analytics.database.writer.writeWithoutTransaction { db in
        sqlite3_trace_v2(
            db.sqliteConnection, UInt32(SQLITE_TRACE_PROFILE),
            { _, context, statement, _ in
                guard let context, let statement else { return 0 }
                let count = Unmanaged<Count>.fromOpaque(context).takeUnretainedValue()
                let steps = Int64(sqlite3_stmt_status(OpaquePointer(statement), SQLITE_STMTSTATUS_VM_STEP, 1))
                count.steps.withLock { $0 += steps }
                return 0
            }, context)
    }
    #expect(installed == SQLITE_OK)
    defer { _ = analytics.database.writer.writeWithoutTransaction { db in sqlite3_trace_v2(db.sqliteConnection, 0, nil, nil) } }
    try body()
    return withExtendedLifetime(count) { count.steps.withLock { $0 } }
}

/// Eligibility reads the live segments and the runs ended for the reasons win-back wants, not
/// the subscriptions that left: its cost does not grow with the subscribers who ever left.
@Suite struct EligibilityReadCostTests {
    /// EligibilityTests' subscribers, plus `left` who ended voluntarily two years before as-of and
    /// `refunded` whose run ended by a refund inside the win-back window.
    static func store(left: Int, refunded: Int) throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        b.period("W1", "W1-0", "2025-03-01", "2025-04-01")
        b.notification("W1", "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: "2025-03-10", autoRenew: false)
        b.period("R1", "R1-0", "2025-06-15", "2025-07-15")
        b.notification("R1", "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: "2025-06-20", autoRenew: false)
        for k in 0..<7 {
            let month = Month(year: 2024, month: 12).adding(months: k)
            b.period("U1", "U1-\(k)", month.start.isoDate, month.next.start.isoDate)
        }
        b.period("S1", "S1-0", "2025-05-20", "2025-06-20")
        b.notification("S1", "DID_FAIL_TO_RENEW", at: "2025-06-20", transaction: "S1-0")
        for i in 0..<left {
            b.period("X\(i)", "X\(i)-0", "2023-05-01", "2023-06-01")
            b.notification(
                "X\(i)", "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", at: "2023-05-10", autoRenew: false)
        }
        for i in 0..<refunded {
            b.period("F\(i)", "F\(i)-0", "2025-04-01", "2025-05-01", revokedAt: "2025-04-03")
        }
        return try b.build()
    }

    @Test func subscribersWhoLeftCostNothing() throws {
        let asOf = day("2025-06-30")
        let few = try Self.store(left: 0, refunded: 0)
        let many = try Self.store(left: 300, refunded: 60)
        var lists: [[String]] = []
        var steps: [Int64] = []
        for analytics in [few, many] {
            var list: [String] = []
            steps.append(
                try virtualMachineSteps(analytics) {
                    list = try analytics.eligibility(asOf: asOf).map { "\($0.offer.rawValue) \($0.originalTransactionId)" }
                })
            lists.append(list)
        }
        #expect(lists[0] == ["winBack W1", "retention R1", "upgrade U1", "service S1"])
        #expect(lists[1] == lists[0])
        #expect(steps[0] > 0)
        // A step or two of B-tree bookkeeping at most; reading each of them would cost hundreds.
        #expect(steps[1] - steps[0] < 10, "360 more subscriptions that left cost \(steps[1] - steps[0]) more steps")
    }
}

/// Eligibility read through the indexes of live segments and win-back runs equals the rules
/// applied to every row of the tables (no index), at any instant, after an import and after some
/// subscriptions' rows are replaced by a rebuild.
@Suite struct EligibilityAtAnyInstantTests {
    /// "offer id product" for every suggestion at `t`, from full scans of the tables.
    static func byDefinition(_ db: Database, at t: Int64, scope: ReportScope) throws -> [String] {
        var filter = " AND ownership = 'purchased'"
        switch scope.environment {
        case .production: filter += " AND environment = 'Production'"
        case .sandbox: filter += " AND environment = 'Sandbox'"
        case .all: break
        }
        let day = Instant.millisecondsPerDay
        func latestProduct(_ id: String) throws -> String {
            try String.fetchOne(
                db,
                sql:
                    "SELECT productId FROM segment NOT INDEXED WHERE originalTransactionId = ? AND start <= ? ORDER BY start DESC",
                arguments: [id, t]) ?? ""
        }
        var found: [String] = []
        var inService: Set<String> = []
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT originalTransactionId, productId, state, autoRenew, paidPeriods, periodDays FROM segment NOT INDEXED
                WHERE start <= ?1 AND "end" > ?1 AND state <> 'expired'\(filter)
                """, arguments: [t])
        {
            let id: String = row[0]
            let state = try #require(SubscriptionState(rawValue: row[2]))
            let autoRenew: Bool = row[3]
            let paid: Int = row[4]
            let days: Double? = row[5]
            var offers: [OfferFlagKind] = []
            if state.isActive, !autoRenew { offers.append(.retention) }
            if state.isActive, let days, days < OfferEligibility.upgradeMaximumPeriodDays,
                paid >= OfferEligibility.upgradeMinimumPaidPeriods
            {
                offers.append(.upgrade)
            }
            if state.isActive, autoRenew, paid >= OfferEligibility.loyaltyMinimumPaidPeriods { offers.append(.loyalty) }
            if state == .gracePeriod || state == .billingRetry {
                offers.append(.service)
                inService.insert(id)
            }
            found += offers.map { "\($0.rawValue) \(id) \(row[1] as String)" }
        }
        // Win-back: the latest run started by t ended voluntarily or over a price increase within 180 days.
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT originalTransactionId, endedAt, expirationReason FROM run r NOT INDEXED
                WHERE start <= ?1 AND runIndex = (SELECT MAX(runIndex) FROM run n NOT INDEXED
                    WHERE n.originalTransactionId = r.originalTransactionId AND n.start <= ?1)\(filter)
                """, arguments: [t])
        {
            let endedAt: Int64 = row[1]
            let reason: String = row[2]
            guard endedAt <= t, endedAt > t - OfferEligibility.winBackWindowDays * day,
                reason == "voluntary" || reason == "priceIncrease"
            else { continue }
            let id: String = row[0]
            found.append("winBack \(id) \(try latestProduct(id))")
        }
        // Service: two billing failures or more within 365 days, unless in by state.
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT originalTransactionId, COUNT(*) FROM billingFailure NOT INDEXED
                WHERE at <= ?1 AND at > ?2\(filter) GROUP BY originalTransactionId
                """, arguments: [t, t - OfferEligibility.serviceFailureWindowDays * day])
        {
            let id: String = row[0]
            guard (row[1] as Int) >= OfferEligibility.serviceMinimumBillingFailures, !inService.contains(id) else { continue }
            found.append("service \(id) \(try latestProduct(id))")
        }
        if let product = scope.productId { found = found.filter { $0.hasSuffix(" \(product)") } }
        return found.sorted()
    }

    static func check(_ analytics: SubscriberAnalytics, at instants: [Instant], scopes: [ReportScope]) throws -> Int {
        var suggestions = 0
        for scope in scopes {
            for t in instants {
                let expected = try analytics.database.writer.read { try Self.byDefinition($0, at: t.milliseconds, scope: scope) }
                let read = try analytics.eligibility(asOf: t, scope: scope)
                    .map { "\($0.offer.rawValue) \($0.originalTransactionId) \($0.productId)" }.sorted()
                #expect(read == expected, "\(t) \(scope)")
                suggestions += read.count
            }
        }
        return suggestions
    }

    @Test func eligibilityEqualsTheRulesOverEveryRowAfterImportAndRebuild() throws {
        // This test writes: a copy of the shared store of its own.
        let database = try SampleDataStore.copy(.sharedSecret)
        let analytics = SubscriberAnalytics(database: database)
        let horizon = try #require(try analytics.dataHorizon())
        let products = try database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT productId FROM segment ORDER BY 1")
        }
        var instants: [Instant] = [horizon]
        var t = UTCCalendar.instant(year: 2024, month: 1, day: 1)
        while t < horizon {
            instants.append(t)
            t = t.adding(hours: 241)
        }
        let scopes = [ReportScope(), ReportScope(environment: .all)] + products.prefix(2).map { ReportScope(productId: $0) }
        #expect(try Self.check(analytics, at: instants, scopes: scopes) > 1000)

        // Take the latest transaction away from 80 subscriptions and rebuild them: their segments
        // and runs are replaced, and what the indexes hold follows.
        let before = try analytics.eligibility(asOf: horizon)
        try database.takeLatestTransactionAway(fromSubscriptions: 80)
        #expect(try database.rebuildPending() == 80)
        #expect(try analytics.eligibility(asOf: horizon) != before)
        #expect(try Self.check(analytics, at: instants, scopes: scopes) > 1000)
    }
}
