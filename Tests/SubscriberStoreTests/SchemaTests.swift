import Foundation
import GRDB
import TestSupport
import Testing

@testable import SubscriberStore

/// The migrations are frozen: a new store has exactly the schema written down in
/// `Tests/SubscriberStoreTests/Schema/schema.txt`, and the data migrations fill their tables
/// from the rows already stored as they did when they shipped.
///
/// A new migration changes the schema on purpose: `SCHEMA_RECORD=1 swift test --filter
/// SchemaTests` writes the file again, and the diff shows what the migration did.
@Suite struct SchemaTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Schema/schema.txt")

    /// Every table, index and trigger of `db` with the SQL that creates it, in name order.
    static func schema(_ db: Database) throws -> String {
        try Row.fetchAll(
            db,
            sql: """
                SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name
                """
        ).map { row in
            "-- \(row["type"] as String) \(row["name"] as String) on \(row["tbl_name"] as String)\n\(row["sql"] as String);\n"
        }.joined(separator: "\n")
    }

    /// An in-memory store brought up to migration `before`, holding the rows `sql` inserts, then
    /// brought up to migration `after`.
    static func migrated(upTo before: String, inserting sql: String, thenUpTo after: String) throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue, upTo: before)
        try queue.write { db in try db.execute(sql: sql) }
        try AppDatabase.migrator.migrate(queue, upTo: after)
        return queue
    }

    @Test func aNewStoreHasTheSchemaWrittenDown() throws {
        let store = try AppDatabase(DatabaseQueue())
        let schema = try store.writer.read(Self.schema)
        if ProcessInfo.processInfo.environment["SCHEMA_RECORD"].map({ !$0.isEmpty && $0 != "0" }) ?? false {
            try schema.write(to: Self.golden, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: Self.golden, encoding: .utf8)
        #expect(schema == expected, "the schema of a new store differs from Schema/schema.txt")
    }

    /// Runs and events stored before their per-day counts were kept: the counts are filled by UTC
    /// day, rounded down for instants before 1970, and an event without an expiration reason is
    /// counted under ''.
    @Test func perDayCountsAreFilledFromTheRunsAndEventsAlreadyStored() throws {
        // Ended 2025-02-10 10:00 (day 20129) twice, 1969-12-31 23:59:59.999 (day -1), and one run never paid.
        let queue = try Self.migrated(
            upTo: "v6 segment starts and ends by day",
            inserting: """
                INSERT INTO run (originalTransactionId, runIndex, environment, start, endedAt, expirationReason,
                    firstPaidStart, cohortMonth, firstPaidProductId, paidPeriodCount, lastPaidStart) VALUES
                ('a', 0, 'Production', 1736503200000, 1739181600000, 'voluntary', 1736503200000, 660, 'm', 1, 1736503200000),
                ('b', 0, 'Production', 1736503200000, 1739181600000, 'voluntary', 1736503200000, 660, 'm', 1, 1736503200000),
                ('c', 0, 'Production', -86400000, -1, 'voluntary', -86400000, -1, 'm', 1, -86400000),
                ('d', 0, 'Production', 1736503200000, 1737108000000, 'voluntary', NULL, NULL, NULL, 0, NULL);
                INSERT INTO event (originalTransactionId, environment, at, type, productId, expirationReason) VALUES
                ('a', 'Production', 1739181600000, 'expiration', 'm', 'voluntary'),
                ('b', 'Production', 1739181600000, 'expiration', 'm', 'voluntary'),
                ('a', 'Production', 1736503200000, 'activation', 'm', NULL),
                ('c', 'Production', -86400001, 'activation', 'm', NULL),
                ('c', 'Production', -86400000, 'refund', 'm', NULL);
                """, thenUpTo: "v9 events by day")
        let (runs, events) = try queue.read { db in
            (
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT day || ' ' || firstPaidProductId || ' ' || cohortMonth || ' ' || paidPeriodCount || ' ×' || count
                        FROM runEndDay ORDER BY day
                        """),
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT day || ' ' || type || ' ' || quote(expirationReason) || ' ×' || count FROM eventDay ORDER BY day, type
                        """)
            )
        }
        #expect(runs == ["-1 m -1 1 ×1", "20129 m 660 1 ×2"])
        #expect(
            events == ["-2 activation '' ×1", "-1 refund '' ×1", "20098 activation '' ×1", "20129 expiration 'voluntary' ×2"])
    }

    /// Subscribers stored before search was kept: each one's user id, email and appAccountToken
    /// from the customer row it is shown with (the one with a user id and an email first), its own
    /// appAccountToken before the customer's.
    @Test func searchRowsAreFilledFromTheCustomersAlreadyStored() throws {
        let queue = try Self.migrated(
            upTo: "v10 billing durations",
            inserting: """
                INSERT INTO subscription (originalTransactionId, environment, productId, firstStart, latestStart, periodCount,
                    runCount, billingFailureCount, appAccountToken) VALUES
                ('a', 'Production', 'm', 0, 0, 1, 1, 0, NULL),
                ('b', 'Production', 'm', 0, 0, 1, 1, 0, 'tok-b'),
                ('c', 'Production', 'm', 0, 0, 1, 1, 0, '');
                INSERT INTO customer (userId, email, appAccountToken, originalTransactionId) VALUES
                ('', 'only@example.com', '', 'a'),
                ('u-a', 'a@example.com', 'tok-a', 'a'),
                ('u-b', '', 'tok-b', '');
                """, thenUpTo: "v11 subscriber search")
        let rows = try queue.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT originalTransactionId || ' ' || quote(userId) || ' ' || quote(email) || ' ' || quote(appAccountToken)
                    FROM subscriberSearch ORDER BY 1
                    """)
        }
        #expect(rows == ["a 'u-a' 'a@example.com' 'tok-a'", "b 'u-b' NULL 'tok-b'", "c NULL NULL NULL"])
    }

    /// Money rows stored before MRR was counted by day and month, and offer uses before they kept
    /// their paid periods: the counts are filled by UTC day and month of each charged period's and
    /// each grace period's start and end (an unpriced period under '' and 0, an empty one and a
    /// failure without grace left out), and each converted use gets its run's paid periods from
    /// the conversion on and the last paid start.
    @Test func moneyCountsAndOfferPaidPeriodsAreFilledFromTheRowsAlreadyStored() throws {
        // p1: 2025-01-31 10:00 (day 20119, month 660) to 2025-02-28 10:00 (day 20147, month 661), then
        // grace to 2025-03-14 10:00 (day 20161, month 662); p2 unpriced within 1969-12-31 (day -1).
        // a's paid introductory offer converts at p1: p1 and p1b count, not the offer, the period cut
        // by an upgrade, nor the next run's.
        let queue = try Self.migrated(
            upTo: "v15 cohort steps and subscription starts by day",
            inserting: """
                INSERT INTO periodMoney (transactionId, originalTransactionId, environment, productId, offerKind, start, "end",
                    price, currency, proceedsRate, isPaid, monthlyTwelfths) VALUES
                ('p1', 'a', 'Production', 'm', 'standard', 1738317600000, 1740736800000, 9990, 'USD', 70, 1, 12),
                ('p2', 'b', 'Production', 'm', 'standard', -86400000, -1, NULL, NULL, 70, 1, 12),
                ('p3', 'b', 'Production', 'm', 'standard', 1738317600000, 1738317600000, 9990, 'USD', 70, 1, 12);
                INSERT INTO billingFailure (originalTransactionId, environment, at, transactionId, productId, graceEnd, retryEnd,
                    windowEnd) VALUES
                ('a', 'Production', 1740736800000, 'p1', 'm', 1741946400000, 1745920800000, 1745920800000),
                ('b', 'Production', -1, 'p2', 'm', NULL, 86400000, 86400000);
                INSERT INTO period (transactionId, originalTransactionId, environment, runIndex, productId, start, "end",
                    offerKind, class, isPaid, isRefunded, isCutByUpgrade, countsForRetention) VALUES
                ('i0', 'a', 'Production', 0, 'm', 1735639200000, 1738317600000, 'introductory', 'paid', 1, 0, 0, 1),
                ('p1', 'a', 'Production', 0, 'm', 1738317600000, 1740736800000, 'standard', 'paid', 1, 0, 0, 1),
                ('p1b', 'a', 'Production', 0, 'm', 1740736800000, 1743415200000, 'standard', 'paid', 1, 0, 0, 1),
                ('x', 'a', 'Production', 0, 'm', 1743415200000, 1744000000000, 'standard', 'paid', 1, 0, 1, 0),
                ('r1', 'a', 'Production', 1, 'm', 1750000000000, 1752000000000, 'standard', 'paid', 1, 0, 0, 1);
                INSERT INTO offerUse (originalTransactionId, useIndex, environment, offerKind, offerIdentifier, productId, start,
                    runIndex, nextStart, nextIsStandard, runEndedAt) VALUES
                ('a', 0, 'Production', 'introductory', NULL, 'm', 1735639200000, 0, 1738317600000, 1, 1744000000000),
                ('c', 0, 'Production', 'introductory', NULL, 'm', 1735639200000, 0, NULL, 0, 1738317600000);
                """, thenUpTo: "v16 MRR by day and month, paid periods after an offer")
        let (days, months, uses) = try queue.read { db in
            (
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT day || ' ' || quote(currency) || ' ' || price || ' ' || starts || '/' || ends FROM mrrDay
                        ORDER BY currency, day
                        """),
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT month || ' ' || quote(currency) || ' ' || price || ' ' || starts || '/' || ends FROM mrrMonth
                        ORDER BY currency, month
                        """),
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT originalTransactionId || ' ' || paidFromNext || ' ' || quote(lastPaidStart) FROM offerUse ORDER BY 1
                        """)
            )
        }
        #expect(days == ["-1 '' 0 1/1", "20119 'USD' 9990 1/0", "20147 'USD' 9990 1/1", "20161 'USD' 9990 0/1"])
        #expect(months == ["-1 '' 0 1/1", "660 'USD' 9990 1/0", "661 'USD' 9990 1/1", "662 'USD' 9990 0/1"])
        #expect(uses == ["a 2 1740736800000", "c 0 NULL"])
    }

    /// Billing plans (v22): the MRR counts of the money rows already stored move to plan `upfront`
    /// (what those rows are until derived again), the new fact columns are empty, and every
    /// subscription is derived again.
    @Test func billingPlansKeepTheCountsAndMarkEverySubscription() throws {
        let queue = try Self.migrated(
            upTo: "v21 late refunds",
            inserting: """
                INSERT INTO mrrDay (environment, day, offerKind, productId, currency, price, monthlyTwelfths, starts, ends)
                    VALUES ('Production', 20119, 'standard', 'm', 'USD', 9990, 12, 1, 0);
                INSERT INTO mrrMonth (environment, month, offerKind, productId, currency, price, monthlyTwelfths, starts, ends)
                    VALUES ('Production', 660, 'standard', 'm', 'USD', 9990, 12, 1, 0);
                INSERT INTO subscription (originalTransactionId, environment, productId, firstStart, latestStart, periodCount,
                    runCount, billingFailureCount) VALUES ('a', 'Production', 'm', 0, 0, 1, 1, 0);
                """, thenUpTo: "v22 billing plans and commitments")
        let (days, months, pending) = try queue.read { db in
            (
                try String.fetchAll(db, sql: "SELECT day || ' ' || billingPlan || ' ' || starts FROM mrrDay"),
                try String.fetchAll(db, sql: "SELECT month || ' ' || billingPlan || ' ' || starts FROM mrrMonth"),
                try String.fetchAll(db, sql: "SELECT originalTransactionId FROM pendingSubscription")
            )
        }
        #expect(days == ["20119 upfront 1"] && months == ["660 upfront 1"] && pending == ["a"])
    }

    /// Committed revenue by day and month (v31): the commitments already stored are counted into
    /// and out of what they have left to charge on the day of their start, of each charge and of
    /// their running end; a family-shared one not at all; an unpriced one as currency '' and 0.
    @Test func committedCountsAreFilledFromTheCommitmentsAlreadyStored() throws {
        // a: 360.00 EUR from day 20000 (2024-10-04) noon to day 20090 (2025-01-02) noon, charged
        // 120.00 on days 20000, 20030 and 20060; b: the same, family-shared; c: unpriced, days 20010–20040.
        let noon = 43_200_000
        let queue = try Self.migrated(
            upTo: "v30 compact archive layout",
            inserting: """
                INSERT INTO commitment (originalTransactionId, commitmentIndex, environment, ownership, productId, start,
                    runningEnd, ends, price, currency) VALUES
                ('a', 0, 'Production', 'purchased', 'p', 20000 * 86400000 + \(noon), 20090 * 86400000 + \(noon), NULL, 360000, 'EUR'),
                ('b', 0, 'Production', 'familyShared', 'p', 20000 * 86400000 + \(noon), 20090 * 86400000 + \(noon), NULL, 360000, 'EUR'),
                ('c', 0, 'Production', 'purchased', 'p', 20010 * 86400000, 20040 * 86400000, NULL, NULL, 'EUR');
                INSERT INTO periodMoney (transactionId, originalTransactionId, environment, productId, offerKind, start, "end",
                    price, currency, proceedsRate, isPaid, monthlyTwelfths, billingPlan, commitmentIndex) VALUES
                ('a1', 'a', 'Production', 'p', 'standard', 20000 * 86400000 + \(noon), 20030 * 86400000 + \(noon), 120000, 'EUR', 70, 1, 1, 'monthly', 0),
                ('a2', 'a', 'Production', 'p', 'standard', 20030 * 86400000 + \(noon), 20060 * 86400000 + \(noon), 120000, 'EUR', 70, 1, 1, 'monthly', 0),
                ('a3', 'a', 'Production', 'p', 'standard', 20060 * 86400000 + \(noon), 20090 * 86400000 + \(noon), 120000, 'EUR', 70, 1, 1, 'monthly', 0),
                ('b1', 'b', 'Production', 'p', 'standard', 20000 * 86400000 + \(noon), 20030 * 86400000 + \(noon), 120000, 'EUR', 70, 1, 1, 'monthly', 0);
                """, thenUpTo: "v31 committed revenue by day and month")
        let (days, months) = try queue.read { db in
            (
                try String.fetchAll(
                    db,
                    sql:
                        "SELECT day || ' ' || quote(currency) || ' ' || amount || ' ' || count FROM committedDay ORDER BY day, currency, amount"
                ),
                try String.fetchAll(
                    db,
                    sql:
                        "SELECT month || ' ' || quote(currency) || ' ' || amount || ' ' || count FROM committedMonth ORDER BY month, currency, amount"
                )
            )
        }
        #expect(
            days == [
                "20000 'EUR' 240000 1", "20010 '' 0 1", "20030 'EUR' 120000 1", "20030 'EUR' 240000 -1", "20040 '' 0 -1",
                "20060 'EUR' 0 1", "20060 'EUR' 120000 -1", "20090 'EUR' 0 -1",
            ])
        // Months since January 1970: 657 is October 2024.
        #expect(
            months == [
                "657 '' 0 1", "657 'EUR' 240000 1", "658 '' 0 -1", "658 'EUR' 120000 1", "658 'EUR' 240000 -1",
                "659 'EUR' 0 1", "659 'EUR' 120000 -1", "660 'EUR' 0 -1",
            ])
    }

    /// a and c: 9.99 USD monthly, 2025-01-15 to 02-15 and 02-15 to 03-15. b: 4.99 EUR from
    /// 2024-12-20 to 2025-01-20, then in grace from its billing failure on 01-20 to 02-05.
    static let threeMonthlySubscriptions = """
                INSERT INTO subscription (originalTransactionId, environment, productId, firstStart, latestStart, periodCount,
                    runCount, billingFailureCount) VALUES
                ('a', 'Production', 'pro.monthly', 1736899200000, 1739577600000, 2, 1, 0),
                ('b', 'Production', 'pro.monthly', 1734652800000, 1734652800000, 1, 1, 1),
                ('c', 'Production', 'pro.monthly', 1736899200000, 1739577600000, 2, 1, 0);
                INSERT INTO periodMoney (transactionId, originalTransactionId, environment, productId, offerKind, start, "end",
                    price, currency, proceedsRate, isPaid, monthlyTwelfths) VALUES
                ('a1', 'a', 'Production', 'pro.monthly', 'standard', 1736899200000, 1739577600000, 9990, 'USD', 70, 1, 1),
                ('a2', 'a', 'Production', 'pro.monthly', 'standard', 1739577600000, 1741996800000, 9990, 'USD', 70, 1, 1),
                ('c1', 'c', 'Production', 'pro.monthly', 'standard', 1736899200000, 1739577600000, 9990, 'USD', 70, 1, 1),
                ('c2', 'c', 'Production', 'pro.monthly', 'standard', 1739577600000, 1741996800000, 9990, 'USD', 70, 1, 1),
                ('b1', 'b', 'Production', 'pro.monthly', 'standard', 1734652800000, 1737331200000, 4990, 'EUR', 70, 1, 1);
                INSERT INTO billingFailure (originalTransactionId, environment, at, transactionId, productId, graceEnd,
                    retryEnd, windowEnd) VALUES
                ('b', 'Production', 1737331200000, 'b1', 'pro.monthly', 1738713600000, 1742515200000, 1742515200000);
        """

    /// MRR movement by month (v33): each stored subscription counted into the months whose start
    /// or end one of its MRR intervals (a charged period, a grace period after one) covers, by the
    /// keys covering each end; alike subscriptions summed.
    @Test func movementMonthsAreFilledFromTheMoneyAlreadyStored() throws {
        // a and c (months 660–662): new in January, on in February, gone in March. b in grace to
        // 02-05: its key covers 1 January and 1 February.
        let queue = try Self.migrated(
            upTo: "v31 committed revenue by day and month",
            inserting: Self.threeMonthlySubscriptions, thenUpTo: "v33 MRR movement by month")
        let rows = try queue.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT month || ' ' || quote(startKeys) || ' ' || quote(endKeys) || ' ' || isNew || ' ' || count
                    FROM mrrMovementMonth ORDER BY month, startKeys, endKeys
                    """)
        }
        let (usd, eur) = ("'standard|pro.monthly|USD|9990|1|upfront'", "'standard|pro.monthly|EUR|4990|1|upfront'")
        #expect(
            rows == [
                "659 '' \(eur) 1 1", "660 '' \(usd) 1 2", "660 \(eur) \(eur) 0 1", "661 \(eur) '' 0 1",
                "661 \(usd) \(usd) 0 2", "662 \(usd) '' 0 2",
            ])
    }

    /// MRR changes (v35): each stored subscription's instants where the keys of its MRR intervals
    /// change, with the keys just before and at each; a renewal at the same price, and a grace
    /// period following its charged period with the same key, are no change.
    @Test func mrrChangesAreFilledFromTheMoneyAlreadyStored() throws {
        // a and c change at 01-15 and 03-15; b at 2024-12-20 and 02-05 (its period then its grace,
        // one key throughout).
        let queue = try Self.migrated(
            upTo: "v34 revenue and refunds by day",
            inserting: Self.threeMonthlySubscriptions, thenUpTo: "v35 MRR changes")
        let rows = try queue.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT at || ' ' || originalTransactionId || ' ' || quote(beforeKeys) || ' ' || quote(afterKeys) || ' '
                        || firstCharge || ' ' || count
                    FROM mrrChange ORDER BY at, originalTransactionId
                    """)
        }
        let (usd, eur) = ("'standard|pro.monthly|USD|9990|1|upfront'", "'standard|pro.monthly|EUR|4990|1|upfront'")
        #expect(
            rows == [
                "1734652800000 b '' \(eur) 1734652800000 1", "1736899200000 a '' \(usd) 1736899200000 1",
                "1736899200000 c '' \(usd) 1736899200000 1", "1738713600000 b \(eur) '' 1734652800000 1",
                "1741996800000 a \(usd) '' 1736899200000 1", "1741996800000 c \(usd) '' 1736899200000 1",
            ])
    }

    /// Revenue and refunds by day (v34): the money rows already stored are counted on the UTC day of
    /// each amount's own instant (rounded down before 1970), an absent storefront as 'unknown', an
    /// unpriced amount as currency '' and -1; each charged period on its start's day and its
    /// refund's day, or after every day when not refunded.
    @Test func moneyDayCountsAreFilledFromTheMoneyRowsAlreadyStored() throws {
        // a, b: 9.99 EUR (FRA) on day 20000 at noon and at 13:00, b refunded on day 20010 (4.99,
        // prorated); c: unpriced on day 20001, credited on day 20002 with no amount; d: 1 ms
        // before 1970, 85 %.
        let noon = 43_200_000
        let queue = try Self.migrated(
            upTo: "v31 committed revenue by day and month",
            inserting: """
                INSERT INTO periodMoney (transactionId, originalTransactionId, environment, productId, storefront, offerKind,
                    start, "end", price, currency, proceedsRate, isPaid, refundAt, refundAmount, creditAt, upgradeCredit,
                    monthlyTwelfths, billingPlan) VALUES
                ('a', 'a', 'Production', 'p', 'FRA', 'standard', 20000 * 86400000 + \(noon), 20030 * 86400000, 9990, 'EUR', 70, 1,
                    NULL, NULL, NULL, NULL, 12, 'upfront'),
                ('b', 'b', 'Production', 'p', 'FRA', 'standard', 20000 * 86400000 + \(noon) + 3600000, 20030 * 86400000, 9990,
                    'EUR', 70, 1, 20010 * 86400000, 4990, NULL, NULL, 12, 'upfront'),
                ('c', 'c', 'Sandbox', 'p', NULL, 'standard', 20001 * 86400000, 20030 * 86400000, NULL, NULL, 70, 1,
                    NULL, NULL, 20002 * 86400000 + 5, NULL, 12, 'monthly'),
                ('d', 'd', 'Production', 'q', 'USA', 'standard', -1, 86400000, 990, 'USD', 85, 1, NULL, NULL, NULL, NULL, 12, 'upfront');
                """, thenUpTo: "v34 revenue and refunds by day")
        let (money, months, charges) = try queue.read { db in
            (
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT environment || ' ' || day || ' ' || kind || ' ' || productId || ' ' || billingPlan || ' ' || storefront
                            || ' ' || quote(currency) || ' ' || amount || ' ' || proceedsRate || ' ×' || count
                        FROM moneyDay ORDER BY day, kind
                        """),
                try String.fetchAll(
                    db,
                    sql:
                        "SELECT month || ' ' || kind || ' ' || amount || ' ×' || count FROM moneyMonth ORDER BY month, kind, amount"
                ),
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT environment || ' ' || day || ' ' || refundDay || ' ' || productId || ' ' || billingPlan || ' ×' || count
                        FROM chargeDay ORDER BY day, refundDay
                        """)
            )
        }
        #expect(
            money == [
                "Production -1 charge q upfront USA 'USD' 990 85 ×1",
                "Production 20000 charge p upfront FRA 'EUR' 9990 70 ×2",
                "Sandbox 20001 charge p monthly unknown '' -1 70 ×1",
                "Sandbox 20002 credit p monthly unknown '' -1 70 ×1",
                "Production 20010 refund p upfront FRA 'EUR' 4990 70 ×1",
            ])
        // Months since January 1970: day 20000 (2024-10-04) and 20010 are in October 2024 (657), 20001
        // and 20002 too, day -1 in December 1969 (-1).
        #expect(
            months == [
                "-1 charge 990 ×1", "657 charge -1 ×1", "657 charge 9990 ×2", "657 credit -1 ×1", "657 refund 4990 ×1",
            ])
        #expect(
            charges == [
                "Production -1 9223372036854775807 q upfront ×1",
                "Production 20000 20010 p upfront ×1",
                "Production 20000 9223372036854775807 p upfront ×1",
                "Sandbox 20001 9223372036854775807 p monthly ×1",
            ])
    }

    /// The migration's counts of the money rows are the materialiser's, on SampleData.
    @Test func theMigrationCountsTheMoneyRowsAsTheMaterialiserDoes() throws {
        let database = try SampleDataStore.copy(.sharedSecret)
        let read = { (db: Database) in
            (
                try Row.fetchAll(db, sql: "SELECT * FROM moneyDay").map(\.description).sorted(),
                try Row.fetchAll(db, sql: "SELECT * FROM chargeDay").map(\.description).sorted(),
                try Row.fetchAll(db, sql: "SELECT * FROM moneyMonth").map(\.description).sorted()
            )
        }
        let kept = try database.writer.read(read)
        #expect(kept.0.count > 100 && kept.1.count > 100 && kept.2.count > 10)
        let counted = try database.writer.write { db in
            try Materializer.countStoredMoney(db)
            return try read(db)
        }
        #expect(counted == kept)
    }

    /// Cohorts and realized LTV by billing plan (v28): the counts already stored and the stored runs
    /// move to plan `upfront` (what they are until derived again), and only the subscriptions with a
    /// monthly payment are derived again.
    @Test func cohortPlansKeepTheCountsAndMarkTheMonthlySubscriptions() throws {
        let queue = try Self.migrated(
            upTo: "v27 served offers",
            inserting: """
                INSERT INTO cohortStepDay (environment, day, firstPaidProductId, cohortMonth, step, count)
                    VALUES ('Production', 20119, 'm', 660, 0, 2);
                INSERT INTO cohortStepMonth (environment, month, firstPaidProductId, cohortMonth, step, count)
                    VALUES ('Production', 660, 'm', 660, 0, 2);
                INSERT INTO ltvMemberMonth (environment, month, firstPaidProductId, cohortMonth, currencyGroup, paidPeriods,
                    ended, count) VALUES ('Production', 660, 'm', 660, 'USD', 1, 0, 2);
                INSERT INTO ltvPriceDay (environment, day, firstPaidProductId, cohortMonth, currencyGroup, period, currency,
                    priceMonth, price, count) VALUES ('Production', 20119, 'm', 660, 'USD', 1, 'USD', 660, 9990, 2);
                INSERT INTO run (originalTransactionId, runIndex, environment, start, endedAt, expirationReason, paidPeriodCount)
                    VALUES ('u', 0, 'Production', 0, 1, 'other', 1);
                INSERT INTO "transaction" (transactionId, originalTransactionId, productId, purchaseDate, expiresDate,
                    isUpgraded, environment, signedDate, rank, billingPlanType)
                VALUES ('u1', 'u', 'm', 0, 1, 0, 'Production', 0, 'r', NULL),
                    ('c1', 'c', 'y', 0, 1, 0, 'Production', 0, 'r', 'MONTHLY'),
                    ('c2', 'c', 'y', 1, 2, 0, 'Production', 1, 'r', 'MONTHLY');
                """, thenUpTo: "v28 cohorts and realized LTV by billing plan")
        let rows = try queue.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT 'stepDay ' || billingPlan || ' ' || count FROM cohortStepDay
                    UNION ALL SELECT 'stepMonth ' || billingPlan || ' ' || count FROM cohortStepMonth
                    UNION ALL SELECT 'member ' || billingPlan || ' ' || count FROM ltvMemberMonth
                    UNION ALL SELECT 'price ' || billingPlan || ' ' || price FROM ltvPriceDay
                    UNION ALL SELECT 'run ' || firstPaidBillingPlan FROM run
                    UNION ALL SELECT 'pending ' || originalTransactionId FROM pendingSubscription
                    """)
        }
        #expect(
            rows == [
                "stepDay upfront 2", "stepMonth upfront 2", "member upfront 2", "price upfront 9990", "run upfront",
                "pending c",
            ])
    }

    /// Segments, events and offer uses by billing plan (v29): the rows and per-day counts already stored move
    /// to plan `upfront` (what they are until derived again), and only the subscriptions with a
    /// monthly payment are derived again.
    @Test func segmentAndEventPlansKeepTheCountsAndMarkTheMonthlySubscriptions() throws {
        let queue = try Self.migrated(
            upTo: "v28 cohorts and realized LTV by billing plan",
            inserting: """
                INSERT INTO segmentDay (environment, ownership, day, productId, state, starts, ends)
                    VALUES ('Production', 'purchased', 20119, 'y', 'standard', 2, 1);
                INSERT INTO eventDay (environment, ownership, day, productId, type, expirationReason, count)
                    VALUES ('Production', 'purchased', 20119, 'y', 'renewal', '', 3);
                INSERT INTO segment (originalTransactionId, environment, start, "end", state, productId, autoRenew, runIndex,
                    paidPeriods, ownership) VALUES ('c', 'Production', 0, 1, 'standard', 'y', 1, 0, 1, 'purchased');
                INSERT INTO event (originalTransactionId, environment, at, type, productId, ownership)
                    VALUES ('c', 'Production', 0, 'activation', 'y', 'purchased');
                INSERT INTO offerUse (originalTransactionId, useIndex, environment, offerKind, productId, start, runIndex,
                    nextIsStandard, runEndedAt) VALUES ('c', 0, 'Production', 'freeTrial', 'y', 0, 0, 1, 1);
                INSERT INTO "transaction" (transactionId, originalTransactionId, productId, purchaseDate, expiresDate,
                    isUpgraded, environment, signedDate, rank, billingPlanType)
                VALUES ('u1', 'u', 'm', 0, 1, 0, 'Production', 0, 'r', NULL),
                    ('c1', 'c', 'y', 0, 1, 0, 'Production', 0, 'r', 'MONTHLY');
                """, thenUpTo: "v29 segments and events by billing plan")
        let rows = try queue.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT 'segmentDay ' || billingPlan || ' ' || starts || '/' || ends FROM segmentDay
                    UNION ALL SELECT 'eventDay ' || billingPlan || ' ' || count FROM eventDay
                    UNION ALL SELECT 'segment ' || billingPlan FROM segment
                    UNION ALL SELECT 'event ' || billingPlan FROM event
                    UNION ALL SELECT 'offerUse ' || billingPlan FROM offerUse
                    UNION ALL SELECT 'pending ' || originalTransactionId FROM pendingSubscription
                    """)
        }
        #expect(
            rows == [
                "segmentDay upfront 2/1", "eventDay upfront 3", "segment upfront", "event upfront", "offerUse upfront",
                "pending c",
            ])
    }
}
