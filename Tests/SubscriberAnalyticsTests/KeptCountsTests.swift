import GRDB
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

/// The materialiser keeps the tables of counts incrementally: each subscription derived again
/// takes its stored rows' counts away and adds its new timeline's. Every such table must equal the
/// same table rebuilt from the facts alone, table by table, on SampleData (the simulator's
/// lifecycles: trials, offers, renewals, upgrades, billing failures with and without grace,
/// refunds late and not, family sharing, v1 and v2, commitments paid monthly), after the import, after subscriptions
/// are derived again with a shorter history, and after a price table prices their v1 periods.
@Suite struct KeptCountsTests {
    static let keptTables = [
        "chargeDay", "cohortStepDay", "cohortStepMonth", "committedDay", "committedMonth", "eventDay", "ltvMemberDay",
        "ltvMemberMonth", "ltvPriceDay", "ltvPriceMonth", "moneyDay", "moneyMonth", "mrrChange", "mrrDay", "mrrMonth",
        "mrrMovementMonth", "productDuration", "segmentDay", "subscriptionStartDay",
    ]

    static func check(_ database: AppDatabase, after step: String) throws {
        let counts = try KeptCounts.of(database)
        #expect(counts.kept.keys.sorted() == keptTables, "after \(step)")
        for table in counts.differing {
            let kept = Set(counts.kept[table] ?? [])
            let rebuilt = Set(counts.rebuilt[table] ?? [])
            Issue.record(
                """
                \(table) after \(step): \(kept.subtracting(rebuilt).count) rows kept only, \
                \(rebuilt.subtracting(kept).count) rebuilt only, e.g. \
                \(kept.subtracting(rebuilt).sorted().prefix(2)) / \(rebuilt.subtracting(kept).sorted().prefix(2))
                """)
        }
        for (table, rows) in counts.kept where rows.isEmpty { Issue.record("\(table) is empty after \(step)") }
    }

    @Test func everyKeptTableEqualsItsRebuildFromTheFacts() throws {
        // This test writes: a copy of the shared store of its own.
        let database = try SampleDataStore.copy(.sharedSecret)
        try Self.check(database, after: "the import")

        let before = try KeptCounts.kept(database)
        try database.takeLatestTransactionAway(fromSubscriptions: 120)
        #expect(try database.rebuildPending() == 120)
        let after = try KeptCounts.kept(database)
        #expect(after != before, "a shorter history changes the counts")
        #expect(after["committedDay"] != before["committedDay"], "a shorter history changes committed revenue")
        try Self.check(database, after: "subscriptions derived again")

        let products = try database.writer.read { db in
            try String.fetchAll(
                db, sql: "SELECT DISTINCT productId FROM periodMoney WHERE offerKind = 'standard' AND price IS NULL ORDER BY 1")
        }
        #expect(!products.isEmpty, "SampleData has unpriced standard periods (v1)")
        _ = try PriceTableStore.replace(
            in: database,
            with: products.enumerated().map { i, product in
                PriceTableRow(
                    line: i + 1, productId: product, storefront: "", currency: "EUR", price: 4_990,
                    validFrom: Instant(parsing: "2020-01-01")!)
            })
        _ = try database.rebuildPending()
        try Self.check(database, after: "a price table")
    }
}
