import Foundation
import GRDB
import SubscriptionModel
import TestSupport
import Testing

@testable import SubscriberStore

/// Opening a store written by another version of subdash.
@Suite struct StoreVersionTests {
    @Test func aStoreFromAnEarlierVersionIsBroughtUpToDateWhenOpenedForReading() throws {
        let path = try Fixture.temporaryStorePath("version")
        do {
            let pool = try DatabasePool(path: path)
            try AppDatabase.migrator.migrate(pool, upTo: "v3 covering cohort index")
            try pool.close()
        }
        let store = try AppDatabase.open(path: path, readOnly: true)
        let (complete, eventColumns) = try store.writer.read { db in
            (
                try AppDatabase.migrator.hasCompletedMigrations(db),
                try Row.fetchAll(db, sql: "PRAGMA index_info(event_at)").map { $0["name"] as String }
            )
        }
        #expect(complete)
        #expect(eventColumns == ["environment", "ownership", "at", "type", "productId", "expirationReason", "billingPlan"])
    }

    @Test func segmentCountsByDayAreFilledFromTheSegmentsAlreadyStored() throws {
        let path = try Fixture.temporaryStorePath("version")
        do {
            let pool = try DatabasePool(path: path)
            try AppDatabase.migrator.migrate(pool, upTo: "v5 product list")
            // Two subscriptions: a month of standard from 2025-01-10 10:00, then expired for good;
            // the other a trial on 2025-01-10 from 23:00 to 2025-01-17 23:00, then standard, still open.
            try pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO segment (originalTransactionId, environment, start, "end", state, productId, autoRenew,
                            runIndex, paidPeriods) VALUES
                        ('a', 'Production', 1736503200000, 1739181600000, 'standard', 'm', 1, 0, 1),
                        ('a', 'Production', 1739181600000, \(AppDatabase.openEnd), 'expired', 'm', 0, 0, 1),
                        ('b', 'Production', 1736550000000, 1737154800000, 'freeTrial', 'm', 1, 0, 0),
                        ('b', 'Production', 1737154800000, \(AppDatabase.openEnd), 'standard', 'm', 1, 0, 1)
                        """)
            }
            try pool.close()
        }
        let store = try AppDatabase.open(path: path)
        let rows = try store.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT day, state, starts, ends FROM segmentDay ORDER BY day, state")
                .map { "\($0[0] as Int) \($0[1] as String) +\($0[2] as Int) -\($0[3] as Int)" }
        }
        // Day 20098 is 2025-01-10, 20105 2025-01-17, 20129 2025-02-10.
        #expect(
            rows == [
                "20098 freeTrial +1 -0", "20098 standard +1 -0", "20105 freeTrial +0 -1", "20105 standard +1 -0",
                "20129 expired +1 -0", "20129 standard +0 -1",
            ])
    }

    /// Billing durations of a store written before they were kept: each standard period's rounded
    /// length from its transaction, counted per product; later imports keep the counts.
    /// Cohort steps of a store written before they were kept: each member's first paid start, later
    /// paid starts and end, counted on their day and month.
    @Test func cohortStepsAreFilledFromTheRunsAlreadyStored() throws {
        let path = try Fixture.temporaryStorePath("version")
        do {
            let pool = try DatabasePool(path: path)
            try AppDatabase.migrator.migrate(pool, upTo: "v14 unverified documents and the store's app")
            // Run a: paid from 2025-01-10 10:00 (cohort 2025-01, month index 660), renewed
            // 2025-02-10 10:00, ended 2025-03-10 10:00 with two paid periods. Run b: a trial only.
            try pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO run (originalTransactionId, runIndex, environment, start, endedAt, expirationReason,
                            firstPaidStart, cohortMonth, firstPaidProductId, paidPeriodCount, lastPaidStart) VALUES
                        ('a', 0, 'Production', 1736503200000, 1741600800000, 'voluntary', 1736503200000, 660, 'm', 2, 1739181600000),
                        ('b', 0, 'Production', 1736503200000, 1737108000000, 'voluntary', NULL, NULL, NULL, 0, NULL);
                        INSERT INTO period (transactionId, originalTransactionId, environment, runIndex, productId, start, "end",
                            offerKind, class, isPaid, isRefunded, isCutByUpgrade, countsForRetention) VALUES
                        ('a2', 'a', 'Production', 0, 'm', 1739181600000, 1741600800000, 'standard', 'renewal', 1, 0, 0, 1),
                        ('a1', 'a', 'Production', 0, 'm', 1736503200000, 1739181600000, 'standard', 'new', 1, 0, 0, 1),
                        ('b1', 'b', 'Production', 0, 'm', 1736503200000, 1737108000000, 'freeTrial', 'new', 0, 0, 0, 0);
                        """)
            }
            // v15 counts them; a later migration derives every subscription again from its facts,
            // which these hand-made runs do not have, so the counts are read right after v15.
            try AppDatabase.migrator.migrate(pool, upTo: "v15 cohort steps and subscription starts by day")
            try pool.close()
        }
        let (days, months) = try DatabaseQueue(path: path).read { db in
            (
                try Row.fetchAll(db, sql: "SELECT day, cohortMonth, step, count FROM cohortStepDay ORDER BY day")
                    .map { "\($0[0] as Int) \($0[1] as Int) \($0[2] as Int) \($0[3] as Int)" },
                try Row.fetchAll(db, sql: "SELECT month, cohortMonth, step, count FROM cohortStepMonth ORDER BY month")
                    .map { "\($0[0] as Int) \($0[1] as Int) \($0[2] as Int) \($0[3] as Int)" }
            )
        }
        // Day 20098 is 2025-01-10, 20129 2025-02-10, 20157 2025-03-10.
        #expect(days == ["20098 660 0 1", "20129 660 1 1", "20157 660 -2 1"])
        #expect(months == ["660 660 0 1", "661 660 1 1", "662 660 -2 1"])
    }

    @Test func billingDurationsAreFilledFromThePeriodsAlreadyStored() throws {
        let path = try Fixture.temporaryStorePath("version")
        do {
            let pool = try DatabasePool(path: path)
            try AppDatabase.migrator.migrate(pool, upTo: "v9 events by day")
            let day: Int64 = 86_400_000
            let jan10: Int64 = 1_736_467_200_000
            // (transaction, product, offer kind, start, length in days): m is billed by the month
            // (31 and 28 days, and a 7-day trial that does not count), w by the week, y by the year.
            let periods: [(String, String, String, Int64, Int64)] = [
                ("t1", "m", "standard", jan10, 31), ("t2", "m", "standard", jan10 + 31 * day, 28),
                ("t3", "m", "freeTrial", jan10, 7), ("t4", "w", "standard", jan10, 7), ("t5", "y", "standard", jan10, 365),
            ]
            try pool.write { db in
                for (id, product, offer, start, days) in periods {
                    try db.execute(
                        sql: """
                            INSERT INTO "transaction" (transactionId, originalTransactionId, productId, purchaseDate, expiresDate,
                                isUpgraded, environment, rank) VALUES (?, ?, ?, ?, ?, 0, 'Production', '')
                            """, arguments: [id, "o" + id, product, start, start + days * day])
                    try db.execute(
                        sql: """
                            INSERT INTO period (transactionId, originalTransactionId, environment, runIndex, productId, start, "end",
                                offerKind, class, isPaid, isRefunded, isCutByUpgrade, countsForRetention)
                            VALUES (?, ?, 'Production', 0, ?, ?, ?, ?, 'activation', 1, 0, 0, 1)
                            """, arguments: [id, "o" + id, product, start, start + days * day, offer])
                }
            }
            try pool.close()
        }
        let store = try AppDatabase.open(path: path)
        func counts() throws -> [String] {
            try store.writer.read { db in
                try Row.fetchAll(db, sql: "SELECT productId, billingDays, count FROM productDuration ORDER BY 1, 2")
                    .map { "\($0[0] as String) \($0[1] as Int) ×\($0[2] as Int)" }
            }
        }
        #expect(try counts() == ["m 30 ×2", "w 7 ×1", "y 365 ×1"])
        #expect(
            try store.writer.read { try Int.fetchOne($0, sql: "SELECT billingDays FROM period WHERE transactionId = 't3'") }
                == nil)
        // An import adds its standard periods; importing the same facts again rebuilds them without doubling.
        let renewal = Fixture.document(
            "y2",
            DocumentFacts(
                format: .v2Notification,
                transactions: [
                    Fixture.transaction("y1", of: "oy", product: "y", start: "2025-01-01", end: "2026-01-01"),
                    Fixture.transaction("y2", of: "oy", product: "y", start: "2026-01-01", end: "2027-01-01"),
                ]))
        _ = try store.apply([renewal])
        #expect(try counts() == ["m 30 ×2", "w 7 ×1", "y 365 ×3"])
        let again = Fixture.document(
            "y2b",
            DocumentFacts(
                format: .v2Notification,
                transactions: [
                    Fixture.transaction(
                        "y2", of: "oy", product: "y", start: "2026-01-01", end: "2027-01-01", signed: "2026-01-02")
                ]))
        _ = try store.apply([again])
        #expect(try counts() == ["m 30 ×2", "w 7 ×1", "y 365 ×3"])
    }

    /// A store derived before Family Sharing counted a family member's revocation as a refund:
    /// brought up to date, that subscription is derived again, its rows and per-day counts say
    /// `familyShared`, and the refund is gone.
    @Test func familySharedSubscriptionsAreDerivedAgainWhenTheStoreIsBroughtUpToDate() throws {
        let path = try Fixture.temporaryStorePath("version")
        do {
            let pool = try DatabasePool(path: path)
            try AppDatabase.migrator.migrate(pool, upTo: "v9 events by day")
            // 2025-01-01 → 02-01, revoked 01-20; the event and its count as the earlier version stored them.
            try pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO "transaction" (transactionId, originalTransactionId, productId, purchaseDate, expiresDate,
                            revocationDate, isUpgraded, environment, inAppOwnershipType, rank)
                        VALUES ('f1', 'f', 'm', 1735689600000, 1738368000000, 1737331200000, 0, 'Production', 'FAMILY_SHARED', 'r');
                        INSERT INTO subscription (originalTransactionId, environment, productId, firstStart, latestStart, periodCount,
                            runCount, billingFailureCount)
                        VALUES ('f', 'Production', 'm', 1735689600000, 1735689600000, 1, 1, 0);
                        INSERT INTO event (originalTransactionId, environment, at, type, productId) VALUES
                            ('f', 'Production', 1737331200000, 'refund', 'm');
                        INSERT INTO eventDay (environment, day, productId, type, expirationReason, count) VALUES
                            ('Production', 20108, 'm', 'refund', '', 1);
                        """)
            }
            try pool.close()
        }
        let store = try AppDatabase.open(path: path)
        let (events, days, ownership) = try store.writer.read { db in
            (
                try String.fetchAll(db, sql: "SELECT type || ' ' || IFNULL(expirationReason, '-') FROM event ORDER BY at, type"),
                try String.fetchAll(
                    db, sql: "SELECT ownership || ' ' || day || ' ' || type || ' ' || count FROM eventDay ORDER BY 1"),
                try String.fetchOne(db, sql: "SELECT ownership FROM subscription WHERE originalTransactionId = 'f'")
            )
        }
        #expect(ownership == "familyShared")
        #expect(events == ["activation -", "expiration sharingRevoked"])
        // Day 20089 is 2025-01-01, 20108 2025-01-20.
        #expect(days == ["familyShared 20089 activation 1", "familyShared 20108 expiration 1"])
    }

    /// A store from before money (Family Sharing's schema, `revocationType` already kept): brought
    /// up to date, every charged period has its money row, priced from its transaction.
    @Test func moneyIsDerivedForTheSubscriptionsAlreadyStored() throws {
        let path = try Fixture.temporaryStorePath("version")
        do {
            let pool = try DatabasePool(path: path)
            try AppDatabase.migrator.migrate(pool, upTo: "v12 family sharing")
            // 2025-01-01 → 02-01 at 9.99 EUR, refunded on 01-20; then 02-01 → 03-01, unpriced.
            try pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO "transaction" (transactionId, originalTransactionId, productId, purchaseDate, expiresDate,
                            revocationDate, isUpgraded, environment, price, currency, revocationType, rank)
                        VALUES ('p1', 'p', 'm', 1735689600000, 1738368000000, 1737331200000, 0, 'Production', 9990, 'EUR',
                            'REFUND_FULL', 'r'),
                            ('p2', 'p', 'm', 1738368000000, 1740787200000, NULL, 0, 'Production', NULL, NULL, NULL, 'r');
                        INSERT INTO subscription (originalTransactionId, environment, productId, firstStart, latestStart, periodCount,
                            runCount, billingFailureCount)
                        VALUES ('p', 'Production', 'm', 1735689600000, 1738368000000, 2, 1, 0);
                        """)
            }
            try pool.close()
        }
        let store = try AppDatabase.open(path: path)
        let money = try store.writer.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT transactionId || ' ' || IFNULL(price, '-') || ' ' || IFNULL(currency, '-') || ' ' || IFNULL(refundAmount, '-')
                    FROM periodMoney ORDER BY start
                    """)
        }
        #expect(money == ["p1 9990 EUR 9990", "p2 - - -"])
    }

    /// A store from before Apple-reported refunds won over upgrade cuts (v19): the subscriptions
    /// holding a transaction Apple reports as refunded are derived again, so the upgraded period
    /// of Apple's `signedTransactionWithRevocation` (10.99 USD, REFUND_PRORATED 50 %) returns a
    /// refund of 5.495 and no credit.
    @Test func subscriptionsWithReportedRefundsAreDerivedAgain() throws {
        let path = try Fixture.temporaryStorePath("version")
        do {
            let pool = try DatabasePool(path: path)
            try AppDatabase.migrator.migrate(pool, upTo: "v19 no runs counted by end day")
            try pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO "transaction" (transactionId, originalTransactionId, productId, purchaseDate, expiresDate,
                            revocationDate, revocationReason, isUpgraded, environment, price, currency, revocationType,
                            revocationPercentage, signedDate, rank)
                        VALUES ('23456', '12345', 'p', 1698148900000, 1698149000000, 1698148950000, 1, 1, 'Production', 10990,
                            'USD', 'REFUND_PRORATED', 50000, 1698148900000, 'r');
                        INSERT INTO subscription (originalTransactionId, environment, productId, firstStart, latestStart, periodCount,
                            runCount, billingFailureCount)
                        VALUES ('12345', 'Production', 'p', 1698148900000, 1698148900000, 1, 1, 0);
                        """)
            }
            try pool.close()
        }
        let store = try AppDatabase.open(path: path)
        let money = try store.writer.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT transactionId || ' ' || isPaid || ' ' || IFNULL(refundAmount, '-') || ' ' || IFNULL(upgradeCredit, '-')
                    FROM periodMoney
                    """)
        }
        #expect(money == ["23456 0 5495 -"])
    }

    /// A store from before late refunds (v20): January refunded at 02-01 00:00, the instant
    /// February started, read as the end of a run and February as a reactivation. Derived again,
    /// the refund is late (docs/metrics.md, "Late refunds"): February renews, one run, ended `other`.
    @Test func subscriptionsWithARefundFollowedByAPeriodAreDerivedAgain() throws {
        let path = try Fixture.temporaryStorePath("version")
        do {
            let pool = try DatabasePool(path: path)
            try AppDatabase.migrator.migrate(pool, upTo: "v20 refunds of upgraded periods")
            try pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO "transaction" (transactionId, originalTransactionId, productId, purchaseDate, expiresDate,
                            revocationDate, revocationReason, isUpgraded, environment, price, currency, revocationType,
                            signedDate, rank)
                        VALUES ('e1', 'E', 'p', 1735689600000, 1738368000000, 1738368000000, 0, 0, 'Production', 9990, 'USD',
                            'REFUND_FULL', 1738368000000, 'r'),
                            ('e2', 'E', 'p', 1738368000000, 1740787200000, NULL, NULL, 0, 'Production', 9990, 'USD', NULL,
                            1738368000000, 'r');
                        INSERT INTO subscription (originalTransactionId, environment, productId, firstStart, latestStart, periodCount,
                            runCount, billingFailureCount)
                        VALUES ('E', 'Production', 'p', 1735689600000, 1738368000000, 2, 2, 0);
                        """)
            }
            try pool.close()
        }
        let store = try AppDatabase.open(path: path)
        let rows = try store.writer.read { db in
            try String.fetchAll(db, sql: "SELECT transactionId || ' ' || class || ' ' || isPaid FROM period ORDER BY start")
                + String.fetchAll(db, sql: "SELECT runIndex || ' ' || expirationReason FROM run ORDER BY runIndex")
        }
        #expect(rows == ["e1 activation 0", "e2 renewal 1", "0 other"])
    }

    /// A store from before realized LTV's kept sums (v16), holding SampleData: brought up to date,
    /// it is the store a clean import makes, table for table (the runs derived again fill the sums
    /// and the cohort counts, nothing counted twice).
    @Test func realizedLTVSumsAreDerivedForTheSubscriptionsAlreadyStored() throws {
        let path = try Fixture.temporaryStorePath("version")
        do {
            let store = try SampleDataStore.copyFile(to: path)
            try store.writer.writeWithoutTransaction { db in
                try db.execute(
                    sql: """
                        DROP TABLE ltvMemberDay; DROP TABLE ltvMemberMonth; DROP TABLE ltvPriceDay; DROP TABLE ltvPriceMonth;
                        DROP INDEX segment_live; DROP INDEX run_winBack;
                        ALTER TABLE run DROP COLUMN firstPaidBillingPlan;
                        CREATE TABLE runEndDay (environment TEXT, day INTEGER, firstPaidProductId TEXT, cohortMonth INTEGER,
                            paidPeriodCount INTEGER, count INTEGER);
                        DELETE FROM grdb_migrations
                        WHERE identifier IN ('v17 realized LTV by day and month', 'v18 live segments and win-back runs',
                            'v19 no runs counted by end day', 'v28 cohorts and realized LTV by billing plan');
                        PRAGMA user_version = 16;
                        """)
            }
            try store.writer.close()
        }
        let store = try AppDatabase.open(path: path)
        #expect(try store.pendingCount() == 0)
        let counts = try KeptCounts.of(store)
        #expect(counts.kept["ltvMemberDay"]?.isEmpty == false)
        #expect(counts.differing.isEmpty)
        let migrated = try storeDump(store)
        let clean = try SampleDataStore.dump()
        #expect(migrated.keys.sorted() == clean.keys.sorted())
        for (table, rows) in clean where migrated[table] != rows {
            Issue.record("\(table) differs after the migration: \(migrated[table]?.count ?? 0) rows, \(rows.count) expected")
        }
    }

    /// A store from before MRR movement was kept by month (v33), holding SampleData: brought up to
    /// date, its movement months are those a clean import keeps, counted from the money rows
    /// already stored (nothing derived again).
    @Test func movementMonthsAreCountedForTheSubscriptionsAlreadyStored() throws {
        let (clean, migrated) = try Self.tableAfterItsMigrationAgain(
            "mrrMovementMonth", migration: "v33 MRR movement by month",
            rows:
                "SELECT quote(environment) || month || startKeys || endKeys || isNew || ' ' || count FROM mrrMovementMonth ORDER BY 1"
        )
        #expect(clean.count > 100)
        #expect(migrated == clean)
    }

    /// SampleData's store with `table` dropped and `migration` forgotten, opened again: the rows
    /// of `rows` in the clean store and after the migration ran again (nothing derived again).
    static func tableAfterItsMigrationAgain(_ table: String, migration: String, rows sql: String) throws -> (
        clean: [String], migrated: [String]
    ) {
        let path = try Fixture.temporaryStorePath("version")
        let clean: [String]
        do {
            let store = try SampleDataStore.copyFile(to: path)
            clean = try store.writer.read { db in try String.fetchAll(db, sql: sql) }
            try store.writer.writeWithoutTransaction { db in
                try db.execute(
                    sql: """
                        DROP TABLE \(table);
                        DELETE FROM grdb_migrations WHERE identifier = '\(migration)';
                        PRAGMA user_version = 0;
                        """)
            }
            try store.writer.close()
        }
        let store = try AppDatabase.open(path: path)
        #expect(try store.pendingCount() == 0)
        return (clean, try store.writer.read { db in try String.fetchAll(db, sql: sql) })
    }

    /// A store from before MRR changes were kept (v35), holding SampleData: brought up to date, its
    /// changes are those a clean import keeps, counted from the money rows already stored (nothing
    /// derived again).
    @Test func mrrChangesAreCountedForTheSubscriptionsAlreadyStored() throws {
        let (clean, migrated) = try Self.tableAfterItsMigrationAgain(
            "mrrChange", migration: "v35 MRR changes",
            rows:
                "SELECT quote(environment) || at || originalTransactionId || beforeKeys || '>' || afterKeys || ' ' || firstCharge || ' ' || count FROM mrrChange ORDER BY 1"
        )
        #expect(clean.count > 1000)
        #expect(migrated == clean)
    }

    /// A store from before segments and events had their billing plan (v28), holding SampleData
    /// (116 commitments paid monthly): brought up to date, it is the store a clean import makes,
    /// table for table, and its kept counts equal their rebuild from the facts.
    @Test func segmentAndEventPlansAreDerivedForTheMonthlySubscriptionsAlreadyStored() throws {
        let path = try Fixture.temporaryStorePath("version")
        do {
            let store = try SampleDataStore.copyFile(to: path)
            try store.writer.writeWithoutTransaction { db in
                try db.execute(
                    sql: """
                        DROP INDEX segment_end; DROP INDEX segment_start; DROP INDEX event_at; DROP INDEX offerUse_start;
                        ALTER TABLE segment DROP COLUMN billingPlan;
                        ALTER TABLE event DROP COLUMN billingPlan;
                        ALTER TABLE offerUse DROP COLUMN billingPlan;
                        CREATE INDEX offerUse_start ON offerUse(environment, start, offerKind, offerIdentifier, productId,
                            nextStart, nextIsStandard, runEndedAt, paidFromNext, lastPaidStart, runIndex, originalTransactionId);
                        CREATE INDEX segment_end ON segment(environment, ownership, "end", start, state, productId, autoRenew,
                            paidPeriods, periodDays);
                        CREATE INDEX segment_start ON segment(environment, ownership, start, state, productId);
                        CREATE INDEX event_at ON event(environment, ownership, at, type, productId, expirationReason);
                        CREATE TABLE segmentDayBefore (environment TEXT NOT NULL, ownership TEXT NOT NULL, day INTEGER NOT NULL,
                            productId TEXT NOT NULL, state TEXT NOT NULL, starts INTEGER NOT NULL, ends INTEGER NOT NULL,
                            PRIMARY KEY (environment, ownership, day, productId, state)) WITHOUT ROWID;
                        INSERT INTO segmentDayBefore SELECT environment, ownership, day, productId, state, SUM(starts), SUM(ends)
                            FROM segmentDay GROUP BY 1, 2, 3, 4, 5;
                        DROP TABLE segmentDay; ALTER TABLE segmentDayBefore RENAME TO segmentDay;
                        CREATE TABLE eventDayBefore (environment TEXT NOT NULL, ownership TEXT NOT NULL, day INTEGER NOT NULL,
                            productId TEXT NOT NULL, type TEXT NOT NULL, expirationReason TEXT NOT NULL, count INTEGER NOT NULL,
                            PRIMARY KEY (environment, ownership, day, productId, type, expirationReason)) WITHOUT ROWID;
                        INSERT INTO eventDayBefore SELECT environment, ownership, day, productId, type, expirationReason, SUM(count)
                            FROM eventDay GROUP BY 1, 2, 3, 4, 5, 6;
                        DROP TABLE eventDay; ALTER TABLE eventDayBefore RENAME TO eventDay;
                        DELETE FROM grdb_migrations WHERE identifier = 'v29 segments and events by billing plan';
                        PRAGMA user_version = 0;
                        """)
                #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"transaction\" WHERE billingPlanType = 'MONTHLY'")! > 0)
            }
            try store.writer.close()
        }
        let store = try AppDatabase.open(path: path)
        #expect(try store.pendingCount() == 0)
        let counts = try KeptCounts.of(store)
        #expect(counts.kept["segmentDay"]?.contains { $0.contains("monthly") } == true)
        #expect(counts.differing.isEmpty)
        let migrated = try storeDump(store)
        let clean = try SampleDataStore.dump()
        #expect(migrated.keys.sorted() == clean.keys.sorted())
        for (table, rows) in clean where migrated[table] != rows {
            Issue.record("\(table) differs after the migration: \(migrated[table]?.count ?? 0) rows, \(rows.count) expected")
        }
    }

    @Test func aStoreFromALaterVersionIsRefusedWithAMessage() throws {
        let path = try Fixture.temporaryStorePath("version")
        do {
            let store = try AppDatabase.open(path: path)
            try store.writer.write { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99 from the future')")
            }
        }
        #expect(throws: StoreError.self) { try AppDatabase.open(path: path, readOnly: true) }
        do {
            _ = try AppDatabase.open(path: path, readOnly: true)
        } catch let error as StoreError {
            #expect(error.message.hasPrefix("\(path) was written by a newer version of subdash (store schema version"))
        }
    }
}
