import GRDB
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

/// MRR reads the intervals it counts (charged periods, grace periods after them) from per-month
/// and per-day counts of their starts and ends plus the few that start or end on the instant's own
/// day. Those counts must equal a scan of every period and failure at any instant, and the
/// counts the materialiser keeps must equal the counts rebuilt from the facts, however the rows
/// came and went.
@Suite struct MRRCountsTests {
    @Test func countsEqualAScanAtEveryKindOfInstant() throws {
        let analytics = try SampleDataConsistencyTests.store()
        let database = analytics.database
        let horizon = try #require(try analytics.dataHorizon())
        let (products, edges) = try database.writer.read { db in
            (
                try String.fetchAll(db, sql: "SELECT DISTINCT productId FROM periodMoney ORDER BY 1"),
                try Int64.fetchAll(
                    db,
                    sql: """
                        SELECT start FROM periodMoney UNION SELECT "end" FROM periodMoney
                        UNION SELECT at FROM billingFailure UNION SELECT MIN(windowEnd, graceEnd) FROM billingFailure WHERE graceEnd IS NOT NULL
                        ORDER BY 1 LIMIT 400
                        """)
            )
        }
        #expect(products.count >= 2)
        let graces = try database.writer.read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM billingFailure f JOIN periodMoney m USING (transactionId) WHERE f.graceEnd IS NOT NULL"
            )
        }
        #expect(graces ?? 0 > 0, "the sample data has grace periods after charged ones")
        let day = Instant.millisecondsPerDay
        let first = UTCCalendar.instant(year: 2023, month: 12, day: 30)
        var instants: [Instant] = []
        var t = first
        while t <= horizon.adding(days: 3) {
            instants.append(t)
            t = t.adding(hours: 67)
        }
        for d in stride(from: Int64(0), to: 760, by: 31) {
            for offset: Int64 in [-1, 0, 1, day / 2] { instants.append(first.adding(days: d).adding(milliseconds: offset)) }
        }
        var month = first.month
        while month.start <= horizon {
            for offset: Int64 in [-1, 0, 1] { instants.append(month.start.adding(milliseconds: offset)) }
            month = month.adding(months: 1)
        }
        for e in edges.enumerated() where e.offset % 3 == 0 {
            for offset: Int64 in [-1, 0, 1] { instants.append(Instant(milliseconds: e.element + offset)) }
        }
        instants.append(horizon)
        var nonEmpty = 0
        for environments in [[StoreEnvironment.production], StoreEnvironment.known + [.unknown]] {
            for product in [nil] + products.prefix(2).map(Optional.some) {
                let scope = RowScope(environments: environments, ownerships: Ownership.allCases, productId: product)
                let fast = try database.mrrCounts(at: instants, scope: scope)
                let scan = try Self.byScan(database, at: instants, scope: scope)
                for (i, instant) in instants.enumerated() {
                    #expect(fast[i] == scan[i], "at \(instant.iso8601), product \(product ?? "any")")
                    if !scan[i].isEmpty { nonEmpty += 1 }
                }
            }
        }
        #expect(nonEmpty > instants.count)
    }

    /// The intervals covering each instant read the long way, every charged period and billing
    /// failure against each instant (docs/metrics.md, "MRR").
    static func byScan(_ database: AppDatabase, at instants: [Instant], scope: RowScope) throws -> [[MRRKey: Int]] {
        let environments = "(" + scope.environments.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
        let product = scope.productId == nil ? "" : "AND m.productId = :product"
        return try database.writer.read { db in
            try instants.map { t in
                var counts: [MRRKey: Int] = [:]
                for row in try Row.fetchAll(
                    db,
                    sql: """
                        SELECT m.offerKind, m.productId, m.currency, m.price, m.monthlyTwelfths, m.billingPlan, COUNT(*)
                        FROM periodMoney m
                        WHERE m.environment IN \(environments) AND m.start <= :t AND m."end" > :t \(product)
                        GROUP BY 1, 2, 3, 4, 5, 6
                        UNION ALL
                        SELECT m.offerKind, m.productId, m.currency, m.price, m.monthlyTwelfths, m.billingPlan, COUNT(*)
                        FROM billingFailure f JOIN periodMoney m ON m.transactionId = f.transactionId
                        WHERE f.environment IN \(environments) AND f.at <= :t AND f.windowEnd > :t AND f.graceEnd > :t \(product)
                        GROUP BY 1, 2, 3, 4, 5, 6
                        """, arguments: ["t": t.milliseconds, "product": scope.productId])
                {
                    let key = MRRKey(
                        offerKind: row[0], productId: row[1], currency: row[2], price: row[3], monthlyTwelfths: row[4],
                        billingPlan: row[5])
                    counts[key, default: 0] += row[6] as Int
                }
                return counts
            }
        }
    }

    /// A subscription derived again after more of its history arrives (a renewal, a refund, a
    /// billing failure with grace), and every subscription re-priced by a new price table: the
    /// counts follow, and none is left at zero.
    @Test func keptCountsFollowEveryRebuild() throws {
        let database = try AppDatabase.inMemory()
        func document(_ name: String, _ facts: DocumentFacts) -> IncomingDocument {
            IncomingDocument(
                sha256: String(repeating: "0", count: 64 - name.count) + name, source: name, byteCount: 1, body: nil,
                content: .facts(facts))
        }
        func transaction(
            _ id: String, _ original: String, _ from: String, _ to: String, price: Int64? = 9_990,
            refundedAt: String? = nil
        ) -> DocumentFacts {
            var t = TransactionFact(
                transactionId: id, originalTransactionId: original, productId: "pro.monthly",
                purchaseDate: Instant(parsing: from)!, expiresDate: Instant(parsing: to)!, environment: .production)
            t.price = price
            t.currency = price == nil ? nil : "USD"
            if let refundedAt {
                t.revocationDate = Instant(parsing: refundedAt)!
                t.revocationReason = 0
            }
            return DocumentFacts(format: .v2Notification, transactions: [t])
        }
        func check(_ step: String) throws {
            let counts = try KeptCounts.of(database)
            #expect(counts.differing.isEmpty, "after \(step)")
            for table in ["mrrDay", "mrrMonth"] {
                #expect(counts.kept[table]?.contains { $0.hasSuffix("|0|0") } == false, "\(table) after \(step)")
            }
        }
        try database.apply([
            document("a1", transaction("11", "1", "2025-01-01", "2025-02-01")),
            document("b1", transaction("21", "2", "2025-01-15", "2025-02-15", price: nil)),
        ])
        try check("the first periods")
        try database.apply([
            document("a2", transaction("12", "1", "2025-02-01", "2025-03-01")),
            document("a3", transaction("13", "1", "2025-03-01", "2025-04-01", refundedAt: "2025-03-05")),
        ])
        try check("a renewal and a refund")
        let failure = DocumentFacts(
            format: .v2Notification,
            notifications: [
                NotificationFact(
                    notificationId: "f1", format: .v2Notification, notificationType: "DID_FAIL_TO_RENEW",
                    subtype: "GRACE_PERIOD", instant: Instant(parsing: "2025-02-15")!, originalTransactionId: "2",
                    transactionId: "21", autoRenewStatus: true)
            ])
        try database.apply([document("b2", failure)])
        try check("a billing failure")
        try PriceTableStore.replace(
            in: database,
            with: [
                PriceTableRow(
                    line: 1, productId: "pro.monthly", storefront: "", currency: "USD", price: 8_990,
                    validFrom: Instant(parsing: "2024-01-01")!)
            ])
        try check("a new price table")
        try PriceTableStore.replace(in: database, with: [])
        try check("the price table emptied")
    }
}
