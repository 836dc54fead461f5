import GRDB
import SubscriptionModel
import SubscriptionTimeline

extension AppDatabase {
    /// Migrations are named by string and never edited once landed; add new ones at the end.
    /// Each one holds all the SQL it runs and calls no code of the app (a helper, the
    /// materialiser): a later change there must not change what an old migration did. One that
    /// needs subscriptions derived again marks them in `pendingSubscription`; `AppDatabase.init`
    /// rebuilds them once the schema is complete.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 facts, archive, customers, flags") { db in
            // Every imported document, once per sha256 of its bytes.
            try db.execute(
                sql: """
                    -- A rowid table: bodies are large, and appending them in arrival order keeps the b-tree
                    -- compact (a WITHOUT ROWID table keyed by a random hash would scatter them).
                    CREATE TABLE document (
                        id INTEGER PRIMARY KEY,
                        sha256 TEXT NOT NULL UNIQUE,
                        source TEXT NOT NULL,
                        format TEXT,
                        outcome TEXT NOT NULL CHECK (outcome IN ('applied', 'duplicate', 'rejected')),
                        reason TEXT,
                        byteCount INTEGER NOT NULL,
                        body BLOB
                    );

                    CREATE TABLE notification (
                        notificationId TEXT PRIMARY KEY NOT NULL,
                        format TEXT NOT NULL,
                        notificationType TEXT NOT NULL,
                        subtype TEXT,
                        instant INTEGER NOT NULL,
                        originalTransactionId TEXT,
                        transactionId TEXT,
                        environment TEXT NOT NULL,
                        status INTEGER,
                        autoRenewStatus INTEGER,
                        bundleId TEXT,
                        documentSha256 TEXT NOT NULL
                    );
                    CREATE INDEX notification_subscription ON notification(originalTransactionId, instant);
                    CREATE INDEX notification_instant ON notification(instant);

                    CREATE TABLE "transaction" (
                        transactionId TEXT PRIMARY KEY NOT NULL,
                        originalTransactionId TEXT NOT NULL,
                        webOrderLineItemId TEXT,
                        productId TEXT NOT NULL,
                        subscriptionGroupIdentifier TEXT,
                        purchaseDate INTEGER NOT NULL,
                        originalPurchaseDate INTEGER,
                        expiresDate INTEGER,
                        revocationDate INTEGER,
                        revocationReason INTEGER,
                        isUpgraded INTEGER NOT NULL,
                        offerType INTEGER,
                        offerDiscountType TEXT,
                        offerIdentifier TEXT,
                        appAccountToken TEXT,
                        environment TEXT NOT NULL,
                        price INTEGER,
                        currency TEXT,
                        inAppOwnershipType TEXT,
                        signedDate INTEGER,
                        -- Which version of a transaction wins, independent of arrival order (FactRank).
                        rank TEXT NOT NULL
                    );
                    CREATE INDEX transaction_subscription ON "transaction"(originalTransactionId);
                    CREATE INDEX transaction_webOrderLineItem ON "transaction"(webOrderLineItemId) WHERE webOrderLineItemId IS NOT NULL;
                    CREATE INDEX transaction_appAccountToken ON "transaction"(appAccountToken) WHERE appAccountToken IS NOT NULL;
                    CREATE INDEX transaction_purchaseDate ON "transaction"(purchaseDate);
                    CREATE INDEX transaction_revocationDate ON "transaction"(revocationDate) WHERE revocationDate IS NOT NULL;

                    CREATE TABLE renewalFact (
                        originalTransactionId TEXT NOT NULL,
                        instant INTEGER NOT NULL,
                        contentHash TEXT NOT NULL,
                        productId TEXT,
                        autoRenewProductId TEXT,
                        autoRenewStatus INTEGER,
                        isInBillingRetryPeriod INTEGER,
                        gracePeriodExpiresDate INTEGER,
                        expirationIntent INTEGER,
                        priceIncreaseStatus INTEGER,
                        transactionId TEXT,
                        environment TEXT NOT NULL,
                        isV1 INTEGER NOT NULL,
                        PRIMARY KEY (originalTransactionId, instant, contentHash)
                    ) WITHOUT ROWID;
                    CREATE INDEX renewalFact_instant ON renewalFact(instant);

                    -- Customers from CSV: each row links any of its ids to the others.
                    CREATE TABLE customer (
                        userId TEXT NOT NULL DEFAULT '',
                        email TEXT NOT NULL DEFAULT '',
                        appAccountToken TEXT NOT NULL DEFAULT '',
                        originalTransactionId TEXT NOT NULL DEFAULT '',
                        PRIMARY KEY (userId, email, appAccountToken, originalTransactionId)
                    ) WITHOUT ROWID;
                    CREATE INDEX customer_email ON customer(email COLLATE NOCASE) WHERE email <> '';
                    CREATE INDEX customer_appAccountToken ON customer(appAccountToken) WHERE appAccountToken <> '';
                    CREATE INDEX customer_originalTransactionId ON customer(originalTransactionId) WHERE originalTransactionId <> '';

                    -- Offer flags operators set: the current ones, and an append-only log of every change.
                    CREATE TABLE offerFlag (
                        originalTransactionId TEXT NOT NULL,
                        offer TEXT NOT NULL CHECK (offer IN ('winBack', 'retention', 'upgrade', 'loyalty', 'service')),
                        note TEXT,
                        operator TEXT NOT NULL,
                        at INTEGER NOT NULL,
                        PRIMARY KEY (originalTransactionId, offer)
                    ) WITHOUT ROWID;
                    CREATE INDEX offerFlag_offer ON offerFlag(offer, at);
                    CREATE TABLE offerFlagLog (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        originalTransactionId TEXT NOT NULL,
                        offer TEXT NOT NULL,
                        action TEXT NOT NULL CHECK (action IN ('set', 'clear')),
                        note TEXT,
                        operator TEXT NOT NULL,
                        at INTEGER NOT NULL
                    );
                    CREATE INDEX offerFlagLog_subscription ON offerFlagLog(originalTransactionId, id);
                    CREATE TRIGGER offerFlagLog_noUpdate BEFORE UPDATE ON offerFlagLog
                        BEGIN SELECT RAISE(ABORT, 'the offer flag log is append-only'); END;
                    CREATE TRIGGER offerFlagLog_noDelete BEFORE DELETE ON offerFlagLog
                        BEGIN SELECT RAISE(ABORT, 'the offer flag log is append-only'); END;
                    """)
        }
        migrator.registerMigration("v1 derived rows") { db in
            // Rows derived from each subscription's facts (docs/metrics.md), rebuilt for every
            // subscription an import touches (`rebuildPending`). `end` of an open-ended row is `openEnd`.
            try db.execute(
                sql: """
                    CREATE TABLE subscription (
                        originalTransactionId TEXT PRIMARY KEY NOT NULL,
                        environment TEXT NOT NULL,
                        productId TEXT NOT NULL,
                        firstStart INTEGER NOT NULL,
                        latestStart INTEGER NOT NULL,
                        periodCount INTEGER NOT NULL,
                        runCount INTEGER NOT NULL,
                        billingFailureCount INTEGER NOT NULL,
                        autoRenewProductId TEXT,
                        priceIncreaseStatus INTEGER,
                        appAccountToken TEXT,
                        lastEventAt INTEGER,
                        lastEventType TEXT,
                        dataHorizon INTEGER
                    ) WITHOUT ROWID;
                    CREATE INDEX subscription_product ON subscription(productId);

                    CREATE TABLE period (
                        transactionId TEXT PRIMARY KEY NOT NULL,
                        originalTransactionId TEXT NOT NULL,
                        environment TEXT NOT NULL,
                        runIndex INTEGER NOT NULL,
                        productId TEXT NOT NULL,
                        start INTEGER NOT NULL,
                        "end" INTEGER NOT NULL,
                        offerKind TEXT NOT NULL,
                        class TEXT NOT NULL,
                        isPaid INTEGER NOT NULL,
                        isRefunded INTEGER NOT NULL,
                        isCutByUpgrade INTEGER NOT NULL,
                        -- paid and not cut by an upgrade: what retention counts.
                        countsForRetention INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX period_subscription ON period(originalTransactionId, runIndex, start);

                    CREATE TABLE run (
                        originalTransactionId TEXT NOT NULL,
                        runIndex INTEGER NOT NULL,
                        environment TEXT NOT NULL,
                        start INTEGER NOT NULL,
                        endedAt INTEGER NOT NULL,
                        expirationReason TEXT NOT NULL,
                        firstPaidStart INTEGER,
                        cohortMonth INTEGER,
                        firstPaidProductId TEXT,
                        paidPeriodCount INTEGER NOT NULL,
                        lastPaidStart INTEGER,
                        PRIMARY KEY (originalTransactionId, runIndex)
                    ) WITHOUT ROWID;
                    CREATE INDEX run_cohort ON run(environment, firstPaidStart) WHERE firstPaidStart IS NOT NULL;
                    CREATE INDEX run_ended ON run(environment, endedAt);

                    -- The subscription's life cut at every change of state, product, auto-renew status and at
                    -- every period start: "what is true at t" is one row with start <= t < end.
                    CREATE TABLE segment (
                        originalTransactionId TEXT NOT NULL,
                        environment TEXT NOT NULL,
                        start INTEGER NOT NULL,
                        "end" INTEGER NOT NULL,
                        state TEXT NOT NULL,
                        productId TEXT NOT NULL,
                        autoRenew INTEGER NOT NULL,
                        runIndex INTEGER NOT NULL,
                        -- paid periods of the run started at or before `start`
                        paidPeriods INTEGER NOT NULL,
                        -- length in days of the period covering the segment, null outside periods
                        periodDays REAL,
                        graceEnd INTEGER,
                        PRIMARY KEY (originalTransactionId, start)
                    ) WITHOUT ROWID;
                    CREATE INDEX segment_end ON segment(environment, "end", start, state, productId);

                    CREATE TABLE event (
                        originalTransactionId TEXT NOT NULL,
                        environment TEXT NOT NULL,
                        at INTEGER NOT NULL,
                        type TEXT NOT NULL,
                        productId TEXT NOT NULL,
                        expirationReason TEXT,
                        transactionId TEXT
                    );
                    CREATE INDEX event_at ON event(environment, at, type, productId);
                    CREATE INDEX event_subscription ON event(originalTransactionId, at);

                    CREATE TABLE billingFailure (
                        originalTransactionId TEXT NOT NULL,
                        environment TEXT NOT NULL,
                        at INTEGER NOT NULL,
                        transactionId TEXT NOT NULL,
                        productId TEXT NOT NULL,
                        graceEnd INTEGER,
                        retryEnd INTEGER NOT NULL,
                        windowEnd INTEGER NOT NULL,
                        recoveryStart INTEGER,
                        PRIMARY KEY (originalTransactionId, transactionId)
                    ) WITHOUT ROWID;
                    CREATE INDEX billingFailure_at ON billingFailure(environment, at);

                    -- Subscriptions whose facts changed and whose derived rows are not rebuilt yet. Written in
                    -- the same transaction as the facts, so a crash between the two never loses a rebuild.
                    CREATE TABLE pendingSubscription (originalTransactionId TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v2 compressed archive") { db in
            // NULL: the body is stored as it arrived; 'zstd' or 'zlib': compressed (ArchiveCodec). Either way the
            // original bytes come back exactly (`archivedBody(sha256:)`).
            try db.execute(sql: "ALTER TABLE document ADD COLUMN bodyEncoding TEXT")
        }
        migrator.registerMigration("v3 covering cohort index") { db in
            // The cohort grid reads every run with a paid start: with the columns it needs in the
            // index, it never visits the table (100,000 subscribers: 0.40 → 0.11 s for the query).
            try db.execute(
                sql: """
                    DROP INDEX run_cohort;
                    CREATE INDEX run_cohort ON run(environment, firstPaidStart, cohortMonth, lastPaidStart, paidPeriodCount,
                        endedAt, firstPaidProductId, runIndex, originalTransactionId) WHERE firstPaidStart IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v4 covering event and segment indexes") { db in
            // One month of events and the live segments behind eligibility read only these indexes
            // (1,000,000 subscribers: `report events` for a month looked up 170,000 table rows for
            // their expiration reason; eligibility looked up every segment covering as-of).
            try db.execute(
                sql: """
                    DROP INDEX event_at;
                    CREATE INDEX event_at ON event(environment, at, type, productId, expirationReason);
                    DROP INDEX segment_end;
                    CREATE INDEX segment_end ON segment(environment, "end", start, state, productId, autoRenew, paidPeriods,
                        periodDays);
                    """)
        }
        migrator.registerMigration("v5 product list") { db in
            // The products periods have had, per environment, kept by the materialiser: the
            // dashboard's `:product` completion read them with a scan of every period (2.7 s at
            // 1,000,000 subscribers, at every start).
            try db.execute(
                sql: """
                    CREATE TABLE product (
                        environment TEXT NOT NULL,
                        productId TEXT NOT NULL,
                        PRIMARY KEY (environment, productId)
                    ) WITHOUT ROWID;
                    INSERT OR IGNORE INTO product SELECT DISTINCT environment, productId FROM period;
                    """)
        }
        migrator.registerMigration("v6 segment starts and ends by day") { db in
            // States at an instant counted every segment ending after it: at 1,000,000 subscribers,
            // 1,000,000 open-ended last segments plus every later one (3.5 million for an as-of in
            // mid-history, 1.1 s). These counts of segments started and ended per UTC day give the
            // segments covering any day boundary by a sum; the index by start and `segment_end`
            // give the few that start or end between that boundary and the instant asked. The
            // materialiser keeps them, summed per batch (triggers cost 30 µs a segment, a tenth
            // of an import); a row whose counts fall to zero is removed, so the table depends only
            // on the segments, not on the order of imports. Segments are never updated in place.
            try db.execute(
                sql: """
                    CREATE TABLE segmentDay (
                        environment TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        productId TEXT NOT NULL,
                        state TEXT NOT NULL,
                        starts INTEGER NOT NULL,
                        ends INTEGER NOT NULL,
                        PRIMARY KEY (environment, day, productId, state)
                    ) WITHOUT ROWID;
                    CREATE INDEX segment_start ON segment(environment, start, state, productId);
                    CREATE TRIGGER segment_noUpdate BEFORE UPDATE ON segment
                    BEGIN SELECT RAISE(ABORT, 'segments are replaced, never updated (segmentDay counts them)'); END;
                    INSERT INTO segmentDay (environment, day, productId, state, starts, ends)
                        SELECT environment, day, productId, state, SUM(starts), SUM(ends) FROM (
                            SELECT environment, ((start - ((start % 86400000) + 86400000) % 86400000) / 86400000) AS day, productId, state, 1 AS starts, 0 AS ends FROM segment
                            UNION ALL
                            SELECT environment, (("end" - (("end" % 86400000) + 86400000) % 86400000) / 86400000), productId, state, 0, 1 FROM segment
                            WHERE "end" <> 253402300800000)
                        GROUP BY 1, 2, 3, 4;
                    """)
        }
        migrator.registerMigration("v7 settled runs by day") { db in
            // The cohort grid read every run with a paid period (1,050,000 at 1,000,000 subscribers,
            // 1.5 to 2.3 s). A run that has ended adds the same to the grid at every later as-of: its
            // cohort month, all its paid periods (the last started before it ended), ended. These
            // counts of such runs per day of their end, kept by the materialiser, stand for all runs
            // ended before as-of's day; only the runs ending from that day on (the live ones) are
            // read one by one, from an index by end that holds what the grid needs.
            try db.execute(
                sql: """
                    CREATE TABLE runEndDay (
                        environment TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        firstPaidProductId TEXT NOT NULL,
                        cohortMonth INTEGER NOT NULL,
                        paidPeriodCount INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, day, firstPaidProductId, cohortMonth, paidPeriodCount)
                    ) WITHOUT ROWID;
                    CREATE INDEX run_cohortEnd ON run(environment, endedAt, firstPaidStart, cohortMonth, lastPaidStart,
                        paidPeriodCount, firstPaidProductId) WHERE firstPaidStart IS NOT NULL;
                    CREATE TRIGGER run_noUpdate BEFORE UPDATE ON run
                    BEGIN SELECT RAISE(ABORT, 'runs are replaced, never updated (runEndDay counts them)'); END;
                    INSERT INTO runEndDay (environment, day, firstPaidProductId, cohortMonth, paidPeriodCount, count)
                        SELECT environment, ((endedAt - ((endedAt % 86400000) + 86400000) % 86400000) / 86400000), firstPaidProductId, cohortMonth, paidPeriodCount, COUNT(*)
                        FROM run WHERE firstPaidStart IS NOT NULL GROUP BY 1, 2, 3, 4, 5;
                    """)
        }
        migrator.registerMigration("v8 covering period index") { db in
            // A cohort grid as of a day in mid-history counts, for each run alive then, its paid
            // periods started by that day: with `countsForRetention` in the index, no period row
            // is read (1,000,000 subscribers, as of 2025-01-01: 142,000 runs).
            try db.execute(
                sql: """
                    DROP INDEX period_subscription;
                    CREATE INDEX period_subscription ON period(originalTransactionId, runIndex, start, countsForRetention);
                    """)
        }
        migrator.registerMigration("v9 events by day") { db in
            // A month of events read every event of the month from `event_at` (1,000,000
            // subscribers: 0.37 s; two months for the States & Events pane). Counted per UTC day,
            // kept by the materialiser, whole days are a sum; only a range's partial first and last
            // days are read from the index. No expiration reason is stored as ''.
            try db.execute(
                sql: """
                    CREATE TABLE eventDay (
                        environment TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        productId TEXT NOT NULL,
                        type TEXT NOT NULL,
                        expirationReason TEXT NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, day, productId, type, expirationReason)
                    ) WITHOUT ROWID;
                    CREATE TRIGGER event_noUpdate BEFORE UPDATE ON event
                    BEGIN SELECT RAISE(ABORT, 'events are replaced, never updated (eventDay counts them)'); END;
                    INSERT INTO eventDay (environment, day, productId, type, expirationReason, count)
                        SELECT environment, ((at - ((at % 86400000) + 86400000) % 86400000) / 86400000), productId, type, COALESCE(expirationReason, ''), COUNT(*)
                        FROM event GROUP BY 1, 2, 3, 4, 5;
                    """)
        }
        migrator.registerMigration("v10 billing durations") { db in
            // A cohort grid for one billing duration (weekly, monthly, yearly mixed in one row make
            // P2 mean three things) keeps the runs whose first paid product bills for it. A product's
            // duration is the most frequent rounded length (expiresDate − start) of its standard
            // periods: `billingDays` per period, and these counts per product kept by the
            // materialiser, so the choice costs a read of a few rows. Lengths round to the nearest of
            // 7, 30.4375, 60.875, 91.3125, 182.625 and 365.25 days (halfway: the shorter), kept as
            // 7, 30, 61, 91, 183, 365.
            try db.execute(
                sql: """
                    ALTER TABLE period ADD COLUMN billingDays INTEGER;
                    UPDATE period SET billingDays = CASE
                            WHEN t.expiresDate - period.start <= 1617300000 THEN 7
                            WHEN t.expiresDate - period.start <= 3944700000 THEN 30
                            WHEN t.expiresDate - period.start <= 6574500000 THEN 61
                            WHEN t.expiresDate - period.start <= 11834100000 THEN 91
                            WHEN t.expiresDate - period.start <= 23668200000 THEN 183
                            ELSE 365 END
                        FROM "transaction" t
                        WHERE t.transactionId = period.transactionId AND period.offerKind = 'standard'
                          AND t.expiresDate IS NOT NULL;
                    CREATE TABLE productDuration (
                        productId TEXT NOT NULL,
                        billingDays INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (productId, billingDays)
                    ) WITHOUT ROWID;
                    INSERT INTO productDuration (productId, billingDays, count)
                        SELECT productId, billingDays, COUNT(*) FROM period WHERE billingDays IS NOT NULL GROUP BY 1, 2;
                    """)
        }
        migrator.registerMigration("v11 subscriber search") { db in
            // What pane 1 shows and searches besides the ids: each subscription's user id, email and
            // appAccountToken (the customer `customerSQL` picks), kept by the materialiser. Declared
            // NOCASE so a prefix is an index range whatever case it was typed in (an appAccountToken
            // pasted upper-case, as `UUID().uuidString` prints it, matches the stored lower-case one).
            try db.execute(
                sql: """
                    CREATE TABLE subscriberSearch (
                        originalTransactionId TEXT PRIMARY KEY NOT NULL,
                        userId TEXT COLLATE NOCASE,
                        email TEXT COLLATE NOCASE,
                        appAccountToken TEXT COLLATE NOCASE
                    ) WITHOUT ROWID;
                    INSERT INTO subscriberSearch (originalTransactionId, userId, email, appAccountToken)
                        SELECT s.originalTransactionId,
                            (SELECT NULLIF(c.userId, '') FROM customer c
                             WHERE c.originalTransactionId = s.originalTransactionId
                                OR (c.appAccountToken <> '' AND c.appAccountToken = s.appAccountToken)
                             ORDER BY c.userId = '', c.email = '', c.userId, c.email LIMIT 1),
                            (SELECT NULLIF(c.email, '') FROM customer c
                             WHERE c.originalTransactionId = s.originalTransactionId
                                OR (c.appAccountToken <> '' AND c.appAccountToken = s.appAccountToken)
                             ORDER BY c.userId = '', c.email = '', c.userId, c.email LIMIT 1),
                            COALESCE(NULLIF(s.appAccountToken, ''),
                            (SELECT NULLIF(c.appAccountToken, '') FROM customer c
                             WHERE c.originalTransactionId = s.originalTransactionId
                                OR (c.appAccountToken <> '' AND c.appAccountToken = s.appAccountToken)
                             ORDER BY c.userId = '', c.email = '', c.userId, c.email LIMIT 1))
                        FROM subscription s;
                    CREATE INDEX subscriberSearch_userId ON subscriberSearch(userId) WHERE userId IS NOT NULL;
                    CREATE INDEX subscriberSearch_email ON subscriberSearch(email) WHERE email IS NOT NULL;
                    CREATE INDEX subscriberSearch_appAccountToken ON subscriberSearch(appAccountToken)
                        WHERE appAccountToken IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v12 family sharing") { db in
            // Family Sharing (docs/metrics.md "Family Sharing"): every derived row says whose
            // purchase its subscription is, and the indexes and per-day counts that reports read
            // lead with it after the environment, so `--ownership` stays an index range. Rows
            // stored before are purchased; the subscriptions with a family-shared transaction
            // are marked for a rebuild, which `AppDatabase` runs once every migration is done
            // (the materialiser writes the latest schema's tables, not this one's). `revocationType`
            // is kept from now on (v2 facts stored before have none until imported again).
            if try !db.columns(in: "transaction").contains(where: { $0.name == "revocationType" }) {
                try db.execute(sql: #"ALTER TABLE "transaction" ADD COLUMN revocationType TEXT"#)
            }
            try db.execute(
                sql: """
                    ALTER TABLE subscription ADD COLUMN ownership TEXT NOT NULL DEFAULT 'purchased';
                    ALTER TABLE segment ADD COLUMN ownership TEXT NOT NULL DEFAULT 'purchased';
                    ALTER TABLE event ADD COLUMN ownership TEXT NOT NULL DEFAULT 'purchased';
                    ALTER TABLE billingFailure ADD COLUMN ownership TEXT NOT NULL DEFAULT 'purchased';
                    ALTER TABLE run ADD COLUMN ownership TEXT NOT NULL DEFAULT 'purchased';
                    CREATE INDEX subscription_ownership ON subscription(ownership, originalTransactionId);

                    DROP INDEX segment_end;
                    CREATE INDEX segment_end ON segment(environment, ownership, "end", start, state, productId, autoRenew,
                        paidPeriods, periodDays);
                    DROP INDEX segment_start;
                    CREATE INDEX segment_start ON segment(environment, ownership, start, state, productId);
                    DROP INDEX event_at;
                    CREATE INDEX event_at ON event(environment, ownership, at, type, productId, expirationReason);
                    DROP INDEX billingFailure_at;
                    CREATE INDEX billingFailure_at ON billingFailure(environment, ownership, at);
                    DROP INDEX run_ended;
                    CREATE INDEX run_ended ON run(environment, ownership, endedAt);

                    CREATE TABLE segmentDayByOwnership (
                        environment TEXT NOT NULL,
                        ownership TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        productId TEXT NOT NULL,
                        state TEXT NOT NULL,
                        starts INTEGER NOT NULL,
                        ends INTEGER NOT NULL,
                        PRIMARY KEY (environment, ownership, day, productId, state)
                    ) WITHOUT ROWID;
                    INSERT INTO segmentDayByOwnership SELECT environment, 'purchased', day, productId, state, starts, ends
                        FROM segmentDay;
                    DROP TABLE segmentDay;
                    ALTER TABLE segmentDayByOwnership RENAME TO segmentDay;

                    CREATE TABLE eventDayByOwnership (
                        environment TEXT NOT NULL,
                        ownership TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        productId TEXT NOT NULL,
                        type TEXT NOT NULL,
                        expirationReason TEXT NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, ownership, day, productId, type, expirationReason)
                    ) WITHOUT ROWID;
                    INSERT INTO eventDayByOwnership SELECT environment, 'purchased', day, productId, type, expirationReason, count
                        FROM eventDay;
                    DROP TABLE eventDay;
                    ALTER TABLE eventDayByOwnership RENAME TO eventDay;
                    """)
            // `runEndDay` counts cohort members only: runs with a paid period, which a
            // family-shared subscription never has, so it needs no ownership.
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO pendingSubscription (originalTransactionId)
                        SELECT DISTINCT originalTransactionId FROM "transaction" WHERE inAppOwnershipType = 'FAMILY_SHARED'
                    """)
        }
        migrator.registerMigration("v13 money") { db in
            // Money (docs/metrics.md "Money"): the transaction fields a price and a refund need, the
            // price table, and per-period amounts kept by the materialiser so that revenue, refunds
            // and MRR are sums over indexes by the instant each amount counts at.
            // Family Sharing (v12) keeps revocationType already.
            if try !db.columns(in: "transaction").contains(where: { $0.name == "revocationType" }) {
                try db.execute(sql: #"ALTER TABLE "transaction" ADD COLUMN revocationType TEXT"#)
            }
            try db.execute(
                sql: """
                    ALTER TABLE "transaction" ADD COLUMN storefront TEXT;
                    ALTER TABLE "transaction" ADD COLUMN revocationPercentage INTEGER;

                    -- `subdash prices import`: rows in file order (`line`), price in milliunits.
                    CREATE TABLE priceTableRow (
                        line INTEGER PRIMARY KEY NOT NULL,
                        productId TEXT NOT NULL,
                        storefront TEXT NOT NULL,
                        currency TEXT NOT NULL,
                        price INTEGER NOT NULL CHECK (price >= 0),
                        validFrom INTEGER NOT NULL
                    );

                    -- One row per charged period (free and family-shared periods are never charged).
                    -- price and currency are null when the period is unpriced; refundAt / creditAt are
                    -- the instants its refund and upgrade credit count at.
                    CREATE TABLE periodMoney (
                        transactionId TEXT PRIMARY KEY NOT NULL,
                        originalTransactionId TEXT NOT NULL,
                        environment TEXT NOT NULL,
                        productId TEXT NOT NULL,
                        storefront TEXT,
                        offerKind TEXT NOT NULL,
                        start INTEGER NOT NULL,
                        "end" INTEGER NOT NULL,
                        price INTEGER,
                        currency TEXT,
                        -- 'transaction', 'table' or null (unpriced)
                        priceSource TEXT,
                        -- proceeds rate in percent: 70, or 85 after a year of paid service
                        proceedsRate INTEGER NOT NULL,
                        isPaid INTEGER NOT NULL,
                        refundAt INTEGER,
                        refundAmount INTEGER,
                        creditAt INTEGER,
                        upgradeCredit INTEGER,
                        -- the MRR multiplier as a fraction of 12 months: 52 (weekly, ×52/12), 12, 6, 4, 2, 1
                        monthlyTwelfths INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX periodMoney_start ON periodMoney(environment, start, currency, productId, price,
                        proceedsRate, storefront, isPaid, refundAt);
                    CREATE INDEX periodMoney_refund ON periodMoney(environment, refundAt, currency, productId, refundAmount,
                        proceedsRate, storefront) WHERE refundAt IS NOT NULL;
                    CREATE INDEX periodMoney_credit ON periodMoney(environment, creditAt, currency, productId, upgradeCredit,
                        proceedsRate, storefront) WHERE creditAt IS NOT NULL;
                    CREATE INDEX periodMoney_end ON periodMoney(environment, "end", start, offerKind, productId, currency,
                        price, monthlyTwelfths);
                    CREATE INDEX periodMoney_subscription ON periodMoney(originalTransactionId);

                    -- Offer uses (docs/metrics.md "Offer conversion"): the next period of the run (its start,
                    -- whether standard), and when the run ends; the outcome at any as-of follows from them.
                    CREATE TABLE offerUse (
                        originalTransactionId TEXT NOT NULL,
                        useIndex INTEGER NOT NULL,
                        environment TEXT NOT NULL,
                        offerKind TEXT NOT NULL,
                        offerIdentifier TEXT,
                        productId TEXT NOT NULL,
                        start INTEGER NOT NULL,
                        runIndex INTEGER NOT NULL,
                        nextStart INTEGER,
                        nextIsStandard INTEGER NOT NULL,
                        runEndedAt INTEGER NOT NULL,
                        PRIMARY KEY (originalTransactionId, useIndex)
                    ) WITHOUT ROWID;
                    CREATE INDEX offerUse_start ON offerUse(environment, start, offerKind, offerIdentifier, productId, nextStart,
                        nextIsStandard, runEndedAt, runIndex, originalTransactionId);
                    -- MRR in grace: the failures whose retry window is still open at as-of.
                    CREATE INDEX billingFailure_window ON billingFailure(environment, windowEnd, at, graceEnd, transactionId);
                    """)
            // Stores from before: every subscription is marked for a rebuild, which derives its
            // money rows from its facts once every migration is done (as v12 does).
            try db.execute(
                sql:
                    "INSERT OR IGNORE INTO pendingSubscription (originalTransactionId) SELECT originalTransactionId FROM subscription"
            )
        }
        migrator.registerMigration("v14 unverified documents and the store's app") { db in
            // Unsigned v1 data never changes a subscription that has signed data: its facts are
            // marked `unverified` and left out of the derivation of a subscription that has
            // signed facts, whatever the order they arrive in; its documents are listed against
            // the subscription for `report subscriber`. The store holds one app, recorded from
            // its first signed document (or `--bundle-id` / `--app-apple-id`).
            // (A store that ran v13 before it stopped deriving money in the migration has them.)
            for table in ["transaction", "renewalFact", "notification"]
            where try !db.columns(in: table).contains(where: { $0.name == "unverified" }) {
                try db.execute(sql: "ALTER TABLE \"\(table)\" ADD COLUMN unverified INTEGER NOT NULL DEFAULT 0")
            }
            try db.execute(
                sql: """
                    CREATE TABLE unverifiedDocument (
                        originalTransactionId TEXT NOT NULL,
                        documentSha256 TEXT NOT NULL REFERENCES document(sha256) ON DELETE CASCADE,
                        PRIMARY KEY (originalTransactionId, documentSha256)
                    ) WITHOUT ROWID;
                    CREATE TABLE storeApp (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        bundleId TEXT NOT NULL,
                        appAppleId INTEGER
                    );
                    """)
        }
        migrator.registerMigration("v15 cohort steps and subscription starts by day") { db in
            // The cohort grid read every run alive at as-of one by one (at the horizon, every live
            // run: 0.56 s at 1,000,000 subscribers, more in mid-history). A member's place in the
            // grid at as-of is a count of instants passed: its first paid start (started, step 0),
            // the start of its paid period k+1 (retained[k], step k), its end (ended with n paid
            // periods, step −n). These counts per day and per month of the instant, kept by the
            // materialiser, give the grid as whole months plus the days of as-of's month; only
            // what happens on as-of's own day up to as-of is read from the indexes. Rows whose
            // count falls to zero are removed, so the tables depend only on the runs and periods.
            try db.execute(
                sql: """
                    CREATE TABLE cohortStepDay (
                        environment TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        firstPaidProductId TEXT NOT NULL,
                        cohortMonth INTEGER NOT NULL,
                        step INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, day, firstPaidProductId, cohortMonth, step)
                    ) WITHOUT ROWID;
                    CREATE TABLE cohortStepMonth (
                        environment TEXT NOT NULL,
                        month INTEGER NOT NULL,
                        firstPaidProductId TEXT NOT NULL,
                        cohortMonth INTEGER NOT NULL,
                        step INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, month, firstPaidProductId, cohortMonth, step)
                    ) WITHOUT ROWID;
                    INSERT INTO cohortStepDay (environment, day, firstPaidProductId, cohortMonth, step, count)
                        SELECT environment, ((at - ((at % 86400000) + 86400000) % 86400000) / 86400000), firstPaidProductId, cohortMonth, step, COUNT(*) FROM (
                            SELECT environment, firstPaidStart AS at, firstPaidProductId, cohortMonth, 0 AS step
                            FROM run WHERE firstPaidStart IS NOT NULL
                            UNION ALL
                            SELECT environment, endedAt, firstPaidProductId, cohortMonth, -paidPeriodCount
                            FROM run WHERE firstPaidStart IS NOT NULL AND paidPeriodCount > 0
                            UNION ALL
                            SELECT environment, start, firstPaidProductId, cohortMonth, step FROM (
                                SELECT r.environment, p.start, r.firstPaidProductId, r.cohortMonth,
                                       ROW_NUMBER() OVER (PARTITION BY p.originalTransactionId, p.runIndex ORDER BY p.start) - 1 AS step
                                FROM period p JOIN run r ON r.originalTransactionId = p.originalTransactionId
                                    AND r.runIndex = p.runIndex
                                WHERE p.countsForRetention AND r.firstPaidStart IS NOT NULL)
                            WHERE step > 0)
                        GROUP BY 1, 2, 3, 4, 5;
                    INSERT INTO cohortStepMonth (environment, month, firstPaidProductId, cohortMonth, step, count)
                        SELECT environment, ((CAST(strftime('%Y', day * 86400, 'unixepoch') AS INTEGER) - 1970) * 12
                            + CAST(strftime('%m', day * 86400, 'unixepoch') AS INTEGER) - 1), firstPaidProductId, cohortMonth, step, SUM(count)
                        FROM cohortStepDay GROUP BY 1, 2, 3, 4, 5;
                    CREATE TRIGGER period_noUpdate BEFORE UPDATE OF originalTransactionId, runIndex, start, countsForRetention
                        ON period
                    BEGIN SELECT RAISE(ABORT, 'periods are replaced, never updated (cohortStepDay counts them)'); END;
                    """)
            // Pane 1's title counts the subscriptions begun by as-of: every subscription's row was
            // read for it (the dashboard's first frame waited 376 ms at 100,000 subscribers). The
            // same count per day of the first start, kept by the materialiser, is a sum of a few
            // thousand rows; the subscriptions begun on as-of's day are read from the segments
            // starting that day (a subscription's first segment starts with it).
            try db.execute(
                sql: """
                    CREATE TABLE subscriptionStartDay (
                        environment TEXT NOT NULL,
                        ownership TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        productId TEXT NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, ownership, day, productId)
                    ) WITHOUT ROWID;
                    INSERT INTO subscriptionStartDay (environment, ownership, day, productId, count)
                        SELECT environment, ownership, ((firstStart - ((firstStart % 86400000) + 86400000) % 86400000) / 86400000), productId, COUNT(*) FROM subscription
                        GROUP BY 1, 2, 3, 4;
                    CREATE TRIGGER subscription_noUpdate BEFORE UPDATE OF environment, ownership, firstStart, productId
                        ON subscription
                    BEGIN SELECT RAISE(ABORT, 'subscriptions are replaced, never updated (subscriptionStartDay counts them)'); END;
                    """)
        }
        migrator.registerMigration("v16 MRR by day and month, paid periods after an offer") { db in
            // MRR at an instant read every period ending after it (at 100,000 subscribers, a year of
            // periods for the oldest instant of pane 6's sparkline). The intervals MRR counts —
            // charged periods and the grace periods after them — are counted here by the UTC day
            // and month of their start and end and by what MRR groups them by, kept by the
            // materialiser like `segmentDay`: MRR at t is a sum over the months and days before t's
            // day plus the few intervals starting or ending on that day (`mrrCounts`). Money rows
            // are replaced, never updated.
            try db.execute(
                sql: """
                    CREATE TABLE mrrDay (
                        environment TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        offerKind TEXT NOT NULL,
                        productId TEXT NOT NULL,
                        -- '' and 0 when unpriced
                        currency TEXT NOT NULL,
                        price INTEGER NOT NULL,
                        monthlyTwelfths INTEGER NOT NULL,
                        starts INTEGER NOT NULL,
                        ends INTEGER NOT NULL,
                        PRIMARY KEY (environment, day, offerKind, productId, currency, price, monthlyTwelfths)
                    ) WITHOUT ROWID;
                    CREATE TABLE mrrMonth (
                        environment TEXT NOT NULL,
                        month INTEGER NOT NULL,
                        offerKind TEXT NOT NULL,
                        productId TEXT NOT NULL,
                        currency TEXT NOT NULL,
                        price INTEGER NOT NULL,
                        monthlyTwelfths INTEGER NOT NULL,
                        starts INTEGER NOT NULL,
                        ends INTEGER NOT NULL,
                        PRIMARY KEY (environment, month, offerKind, productId, currency, price, monthlyTwelfths)
                    ) WITHOUT ROWID;
                    -- Grace periods ending on an instant's day: by the end MRR gives them.
                    CREATE INDEX billingFailure_graceClosed ON billingFailure(environment, MIN(windowEnd, graceEnd))
                        WHERE graceEnd IS NOT NULL;
                    CREATE TRIGGER periodMoney_noUpdate BEFORE UPDATE ON periodMoney
                    BEGIN SELECT RAISE(ABORT, 'money rows are replaced, never updated (mrrDay counts them)'); END;
                    -- The money rows already stored, counted: each interval's start and end by UTC day
                    -- (rounded down), an unpriced period as currency '' and price 0.
                    INSERT INTO mrrDay (environment, day, offerKind, productId, currency, price, monthlyTwelfths, starts, ends)
                        SELECT environment, (t - ((t % 86400000) + 86400000) % 86400000) / 86400000, offerKind, productId,
                            CASE WHEN price IS NULL OR currency IS NULL THEN '' ELSE currency END,
                            CASE WHEN price IS NULL OR currency IS NULL THEN 0 ELSE price END,
                            monthlyTwelfths, SUM(starts), SUM(ends)
                        FROM (
                            SELECT environment, start AS t, offerKind, productId, currency, price, monthlyTwelfths,
                                1 AS starts, 0 AS ends
                            FROM periodMoney WHERE start < "end"
                            UNION ALL
                            SELECT environment, "end", offerKind, productId, currency, price, monthlyTwelfths, 0, 1
                            FROM periodMoney WHERE start < "end"
                            UNION ALL
                            SELECT f.environment, f.at, m.offerKind, m.productId, m.currency, m.price, m.monthlyTwelfths, 1, 0
                            FROM billingFailure f JOIN periodMoney m ON m.transactionId = f.transactionId
                            WHERE f.graceEnd IS NOT NULL AND f.at < MIN(f.windowEnd, f.graceEnd)
                            UNION ALL
                            SELECT f.environment, MIN(f.windowEnd, f.graceEnd), m.offerKind, m.productId, m.currency, m.price,
                                m.monthlyTwelfths, 0, 1
                            FROM billingFailure f JOIN periodMoney m ON m.transactionId = f.transactionId
                            WHERE f.graceEnd IS NOT NULL AND f.at < MIN(f.windowEnd, f.graceEnd))
                        GROUP BY 1, 2, 3, 4, 5, 6, 7;
                    -- The same by month (months since January 1970).
                    INSERT INTO mrrMonth (environment, month, offerKind, productId, currency, price, monthlyTwelfths, starts, ends)
                        SELECT environment,
                            (CAST(strftime('%Y', day * 86400, 'unixepoch') AS INTEGER) - 1970) * 12
                                + CAST(strftime('%m', day * 86400, 'unixepoch') AS INTEGER) - 1,
                            offerKind, productId, currency, price, monthlyTwelfths, SUM(starts), SUM(ends)
                        FROM mrrDay GROUP BY 1, 2, 3, 4, 5, 6, 7;
                    """)
            // The retention of converted offer uses counted each one's paid periods from the
            // conversion with a subquery per use. Each use now keeps that count and its run's last
            // paid start in the index by start, so at any as-of on or after that start (at the data
            // horizon: every use) the count is read there; only an as-of in mid-run counts periods.
            try db.execute(
                sql: """
                    ALTER TABLE offerUse ADD COLUMN paidFromNext INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE offerUse ADD COLUMN lastPaidStart INTEGER;
                    UPDATE offerUse SET
                        paidFromNext = (SELECT COUNT(*) FROM period p
                                        WHERE p.originalTransactionId = offerUse.originalTransactionId
                                          AND p.runIndex = offerUse.runIndex AND p.countsForRetention
                                          AND p.start >= offerUse.nextStart),
                        lastPaidStart = (SELECT MAX(p.start) FROM period p
                                         WHERE p.originalTransactionId = offerUse.originalTransactionId
                                           AND p.runIndex = offerUse.runIndex AND p.countsForRetention)
                        WHERE nextStart IS NOT NULL;
                    DROP INDEX offerUse_start;
                    CREATE INDEX offerUse_start ON offerUse(environment, start, offerKind, offerIdentifier, productId, nextStart,
                        nextIsStandard, runEndedAt, paidFromNext, lastPaidStart, runIndex, originalTransactionId);
                    """)
        }
        migrator.registerMigration("v17 realized LTV by day and month") { db in
            // `report ltv` read every cohort member's paid periods with their prices (0.98 s at
            // 100,000 subscribers). A member's contribution at as-of — its currency group, its
            // number of counted paid periods, whether it ended, the price of each — changes only at
            // its first paid start, its later counted paid starts and its end; these changes,
            // counted by UTC day and month and kept by the materialiser (`LTVSums`), give the
            // figures as whole months plus the days of as-of's month plus the members changing on
            // as-of's day. Rows whose count falls to zero are removed.
            try db.execute(
                sql: """
                    CREATE TABLE ltvMemberDay (
                        environment TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        firstPaidProductId TEXT NOT NULL,
                        cohortMonth INTEGER NOT NULL,
                        -- the currency of the member's priced periods; '' none priced, '*' two or more
                        currencyGroup TEXT NOT NULL,
                        paidPeriods INTEGER NOT NULL,
                        ended INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, day, firstPaidProductId, cohortMonth, currencyGroup, paidPeriods, ended)
                    ) WITHOUT ROWID;
                    CREATE TABLE ltvMemberMonth (
                        environment TEXT NOT NULL,
                        month INTEGER NOT NULL,
                        firstPaidProductId TEXT NOT NULL,
                        cohortMonth INTEGER NOT NULL,
                        currencyGroup TEXT NOT NULL,
                        paidPeriods INTEGER NOT NULL,
                        ended INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, month, firstPaidProductId, cohortMonth, currencyGroup, paidPeriods, ended)
                    ) WITHOUT ROWID;
                    CREATE TABLE ltvPriceDay (
                        environment TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        firstPaidProductId TEXT NOT NULL,
                        cohortMonth INTEGER NOT NULL,
                        currencyGroup TEXT NOT NULL,
                        -- the paid period's place in the run, from 1
                        period INTEGER NOT NULL,
                        currency TEXT NOT NULL,
                        -- the month of the period's start, for --rates
                        priceMonth INTEGER NOT NULL,
                        price INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, day, firstPaidProductId, cohortMonth, currencyGroup, period, currency,
                            priceMonth, price)
                    ) WITHOUT ROWID;
                    CREATE TABLE ltvPriceMonth (
                        environment TEXT NOT NULL,
                        month INTEGER NOT NULL,
                        firstPaidProductId TEXT NOT NULL,
                        cohortMonth INTEGER NOT NULL,
                        currencyGroup TEXT NOT NULL,
                        period INTEGER NOT NULL,
                        currency TEXT NOT NULL,
                        priceMonth INTEGER NOT NULL,
                        price INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, month, firstPaidProductId, cohortMonth, currencyGroup, period, currency,
                            priceMonth, price)
                    ) WITHOUT ROWID;
                    -- The stored runs have no rows in these tables yet. Their derivation is Swift
                    -- code (a member's currency group changes over time), so they are derived again
                    -- rather than counted here: the runs and the tables of counts made from them
                    -- alone go, and every subscription is marked pending. The rebuild once every
                    -- migration is done then writes the runs and all their counts afresh (the other
                    -- derived rows are replaced as usual, their counts taken away and added back).
                    DELETE FROM run;
                    DELETE FROM runEndDay;
                    DELETE FROM cohortStepDay;
                    DELETE FROM cohortStepMonth;
                    INSERT OR IGNORE INTO pendingSubscription (originalTransactionId) SELECT originalTransactionId FROM subscription;
                    """)
        }
        migrator.registerMigration("v18 live segments and win-back runs") { db in
            // Offer eligibility read the segments ending after as-of by `segment_end`, which also
            // holds every subscription's last, expired segment (open-ended): at 100,000 subscribers
            // 100,000 entries skipped to find the 33,000 live ones, growing with every subscriber
            // who ever left. Without the expired segments the read visits only the live ones, about
            // the rows eligibility decides on. Likewise win-back read every run ended in its window
            // and looked each up for its reason; this index holds only the reasons it wants.
            // SQLite keeps both as the rows are written (import and rebuild), nothing else to maintain.
            try db.execute(
                sql: """
                    CREATE INDEX segment_live ON segment(environment, ownership, "end", start, state, productId, autoRenew,
                        paidPeriods, periodDays) WHERE state <> 'expired';
                    CREATE INDEX run_winBack ON run(environment, ownership, endedAt, expirationReason)
                        WHERE expirationReason IN ('voluntary', 'priceIncrease');
                    """)
        }
        migrator.registerMigration("v19 no runs counted by end day") { db in
            // `runEndDay` counted cohort members by the day their run ended, for the cohort grid;
            // since v15 the grid reads `cohortStepDay`/`cohortStepMonth`, and nothing read it: the
            // materialiser no longer keeps it.
            try db.execute(
                sql: """
                    DROP TABLE runEndDay;
                    DROP TRIGGER run_noUpdate;
                    CREATE TRIGGER run_noUpdate BEFORE UPDATE ON run
                    BEGIN SELECT RAISE(ABORT, 'runs are replaced, never updated (cohortStepDay and ltvMemberDay count them)'); END;
                    """)
        }
        migrator.registerMigration("v20 refunds of upgraded periods") { db in
            // A period Apple reports as refunded (a revocation reason, or revocationType
            // REFUND_FULL/REFUND_PRORATED) is a refund even when an upgrade cut it: its
            // subscriptions are derived again once the schema is complete.
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO pendingSubscription (originalTransactionId)
                        SELECT DISTINCT originalTransactionId FROM "transaction"
                        WHERE revocationDate IS NOT NULL
                            AND (revocationReason IS NOT NULL OR revocationType IN ('REFUND_FULL', 'REFUND_PRORATED'))
                    """)
        }
        migrator.registerMigration("v21 late refunds") { db in
            // A refund ends its run only when the next period had not started by its date; else it
            // is a late refund and the run goes on (docs/metrics.md, "Late refunds"). Only a
            // revoked transaction with another one starting at or after it can read differently:
            // those subscriptions are derived again once the schema is complete.
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO pendingSubscription (originalTransactionId)
                        SELECT DISTINCT r.originalTransactionId FROM "transaction" r
                        WHERE r.revocationDate IS NOT NULL
                            AND EXISTS (
                                SELECT 1 FROM "transaction" n
                                WHERE n.originalTransactionId = r.originalTransactionId
                                    AND n.transactionId <> r.transactionId AND n.purchaseDate >= r.purchaseDate)
                    """)
        }
        migrator.registerMigration("v22 billing plans and commitments") { db in
            // Monthly payments with a 12-month commitment (docs/metrics.md, "Billing plans and
            // commitments"): the transaction's billing plan and commitment, the renewal info's
            // next plan and the commitment's renewal; money rows and MRR counts by billing plan
            // (a monthly payment is one month's MRR, whatever its annual product bills); the
            // commitments themselves, for committed revenue. Every subscription is derived again
            // once the schema is complete (as v17 does); the MRR counts of the stored money rows
            // move to plan `upfront`, which is what those rows are until derived again.
            try db.execute(
                sql: """
                    ALTER TABLE "transaction" ADD COLUMN billingPlanType TEXT;
                    ALTER TABLE "transaction" ADD COLUMN commitmentPeriod INTEGER;
                    ALTER TABLE "transaction" ADD COLUMN commitmentPeriods INTEGER;
                    ALTER TABLE "transaction" ADD COLUMN commitmentExpiresDate INTEGER;
                    ALTER TABLE "transaction" ADD COLUMN commitmentPrice INTEGER;

                    ALTER TABLE renewalFact ADD COLUMN renewalBillingPlanType TEXT;
                    -- 1 when the renewal info carried commitmentInfo (its autoRenewStatus then does not count)
                    ALTER TABLE renewalFact ADD COLUMN commitmentInfo INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE renewalFact ADD COLUMN commitmentAutoRenewStatus INTEGER;
                    ALTER TABLE renewalFact ADD COLUMN commitmentAutoRenewProductId TEXT;
                    ALTER TABLE renewalFact ADD COLUMN commitmentRenewalBillingPlanType TEXT;
                    ALTER TABLE renewalFact ADD COLUMN commitmentRenewalDate INTEGER;
                    ALTER TABLE renewalFact ADD COLUMN commitmentRenewalPrice INTEGER;

                    ALTER TABLE periodMoney ADD COLUMN billingPlan TEXT NOT NULL DEFAULT 'upfront';
                    -- the period's commitment (index into the subscription's commitments), null when upfront
                    ALTER TABLE periodMoney ADD COLUMN commitmentIndex INTEGER;
                    DROP INDEX periodMoney_end;
                    CREATE INDEX periodMoney_end ON periodMoney(environment, "end", start, offerKind, productId, currency,
                        price, monthlyTwelfths, billingPlan);

                    CREATE TABLE mrrDayByPlan (
                        environment TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        offerKind TEXT NOT NULL,
                        productId TEXT NOT NULL,
                        currency TEXT NOT NULL,
                        price INTEGER NOT NULL,
                        monthlyTwelfths INTEGER NOT NULL,
                        billingPlan TEXT NOT NULL,
                        starts INTEGER NOT NULL,
                        ends INTEGER NOT NULL,
                        PRIMARY KEY (environment, day, offerKind, productId, currency, price, monthlyTwelfths, billingPlan)
                    ) WITHOUT ROWID;
                    INSERT INTO mrrDayByPlan
                        SELECT environment, day, offerKind, productId, currency, price, monthlyTwelfths, 'upfront', starts, ends
                        FROM mrrDay;
                    DROP TABLE mrrDay;
                    ALTER TABLE mrrDayByPlan RENAME TO mrrDay;
                    CREATE TABLE mrrMonthByPlan (
                        environment TEXT NOT NULL,
                        month INTEGER NOT NULL,
                        offerKind TEXT NOT NULL,
                        productId TEXT NOT NULL,
                        currency TEXT NOT NULL,
                        price INTEGER NOT NULL,
                        monthlyTwelfths INTEGER NOT NULL,
                        billingPlan TEXT NOT NULL,
                        starts INTEGER NOT NULL,
                        ends INTEGER NOT NULL,
                        PRIMARY KEY (environment, month, offerKind, productId, currency, price, monthlyTwelfths, billingPlan)
                    ) WITHOUT ROWID;
                    INSERT INTO mrrMonthByPlan
                        SELECT environment, month, offerKind, productId, currency, price, monthlyTwelfths, 'upfront', starts, ends
                        FROM mrrMonth;
                    DROP TABLE mrrMonth;
                    ALTER TABLE mrrMonthByPlan RENAME TO mrrMonth;

                    -- One row per commitment: it runs on [start, runningEnd); price and currency null when
                    -- unknown. Its charges are its periodMoney rows (commitmentIndex).
                    CREATE TABLE commitment (
                        originalTransactionId TEXT NOT NULL,
                        commitmentIndex INTEGER NOT NULL,
                        environment TEXT NOT NULL,
                        ownership TEXT NOT NULL,
                        productId TEXT NOT NULL,
                        start INTEGER NOT NULL,
                        runningEnd INTEGER NOT NULL,
                        ends INTEGER,
                        price INTEGER,
                        currency TEXT,
                        PRIMARY KEY (originalTransactionId, commitmentIndex)
                    ) WITHOUT ROWID;
                    CREATE INDEX commitment_running ON commitment(environment, runningEnd, start, ownership, productId);
                    CREATE INDEX periodMoney_commitment ON periodMoney(originalTransactionId, commitmentIndex, start)
                        WHERE commitmentIndex IS NOT NULL;

                    INSERT OR IGNORE INTO pendingSubscription (originalTransactionId) SELECT originalTransactionId FROM subscription;
                    """)
        }
        migrator.registerMigration("v23 renewal details") { db in
            // What Apple tells about the next renewal and the purchase (docs/metrics.md, "Renewal
            // details from Apple"), kept with their facts; the app download id is looked up by
            // search, so both tables index it. Facts stored before have none: every applied signed
            // document is queued to be read again from the archive (`rereadArchive`, which fills
            // them in and marks the subscriptions it changed pending).
            try db.execute(
                sql: """
                    ALTER TABLE "transaction" ADD COLUMN appTransactionId TEXT;
                    ALTER TABLE "transaction" ADD COLUMN offerPeriod TEXT;
                    ALTER TABLE "transaction" ADD COLUMN transactionReason TEXT;
                    CREATE INDEX transaction_appTransactionId ON "transaction"(appTransactionId)
                        WHERE appTransactionId IS NOT NULL;
                    ALTER TABLE renewalFact ADD COLUMN renewalPrice INTEGER;
                    ALTER TABLE renewalFact ADD COLUMN renewalCurrency TEXT;
                    -- the ids one per line (an id holds no control character); '' an empty list
                    ALTER TABLE renewalFact ADD COLUMN eligibleWinBackOfferIds TEXT;
                    ALTER TABLE renewalFact ADD COLUMN appTransactionId TEXT;
                    ALTER TABLE renewalFact ADD COLUMN offerPeriod TEXT;
                    CREATE INDEX renewalFact_appTransactionId ON renewalFact(appTransactionId)
                        WHERE appTransactionId IS NOT NULL;
                    CREATE TABLE pendingArchiveDocument (sha256 TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID;
                    INSERT OR IGNORE INTO pendingArchiveDocument (sha256)
                        SELECT sha256 FROM document
                        WHERE outcome = 'applied' AND body IS NOT NULL
                            AND format IN ('v2', 'statusResponse', 'transactionHistory', 'notificationHistory',
                                           'transactionInfo', 'renewalInfo');
                    """)
        }
        migrator.registerMigration("v24 no subscriptions from other product types") { db in
            // A transaction whose `type` is not an auto-renewable subscription's makes no
            // subscription (docs/metrics.md, "Non-subscription transactions"); stores made before
            // may hold such transactions as facts, each a phantom "not started" subscription. The
            // archive says which (`type` was not kept): every applied signed document is read
            // again (`rereadArchive`), and the transactions it names as another type move here,
            // out of the facts subscriptions are derived from, their subscriptions derived again.
            try db.execute(
                sql: """
                    CREATE TABLE nonSubscriptionTransaction (
                        transactionId TEXT PRIMARY KEY NOT NULL,
                        originalTransactionId TEXT NOT NULL,
                        productId TEXT NOT NULL,
                        purchaseDate INTEGER NOT NULL,
                        environment TEXT NOT NULL,
                        price INTEGER,
                        currency TEXT
                    ) WITHOUT ROWID;
                    INSERT OR IGNORE INTO pendingArchiveDocument (sha256)
                        SELECT sha256 FROM document
                        WHERE outcome = 'applied' AND body IS NOT NULL
                            AND format IN ('v2', 'statusResponse', 'transactionHistory', 'notificationHistory',
                                           'transactionInfo', 'renewalInfo');
                    """)
        }
        migrator.registerMigration("v25 support actions and audit log") { db in
            // What operators asked Apple to do or tell (README, "Support actions"), written before
            // the request is sent (an extension's requestIdentifier is sent again unchanged after a
            // timeout), and each answer Apple gave or the failure, appended. Both append-only: with
            // offerFlagLog they are the audit log `subdash log` prints.
            try db.execute(
                sql: """
                    CREATE TABLE supportAction (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL,
                        target TEXT NOT NULL,
                        environment TEXT NOT NULL,
                        summary TEXT NOT NULL,
                        request TEXT,
                        requestIdentifier TEXT,
                        operator TEXT NOT NULL,
                        at INTEGER NOT NULL
                    );
                    CREATE INDEX supportAction_target ON supportAction(target, kind, id);
                    CREATE TABLE supportAnswer (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        actionId INTEGER NOT NULL REFERENCES supportAction(id),
                        outcome TEXT NOT NULL CHECK (outcome IN ('done', 'refused', 'failed')),
                        answer TEXT NOT NULL,
                        errorCode INTEGER,
                        effectiveDate INTEGER,
                        at INTEGER NOT NULL
                    );
                    CREATE INDEX supportAnswer_action ON supportAnswer(actionId, id);
                    CREATE TRIGGER supportAction_noUpdate BEFORE UPDATE ON supportAction
                        BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
                    CREATE TRIGGER supportAction_noDelete BEFORE DELETE ON supportAction
                        BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
                    CREATE TRIGGER supportAnswer_noUpdate BEFORE UPDATE ON supportAnswer
                        BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
                    CREATE TRIGGER supportAnswer_noDelete BEFORE DELETE ON supportAnswer
                        BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
                    """)
        }
        migrator.registerMigration("v27 served offers") { db in
            // Every signed offer handed out (`subdash offer sign`, `GET /offers/…`): who asked,
            // which offer, when, for which flag (docs/metrics.md, "Campaigns"). A nonce is never
            // used twice; the log is append-only like the flag log.
            try db.execute(
                sql: """
                    CREATE TABLE servedOffer (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        originalTransactionId TEXT NOT NULL,
                        flag TEXT,
                        flagAt INTEGER,
                        offerKind TEXT NOT NULL,
                        offerIdentifier TEXT NOT NULL,
                        productId TEXT NOT NULL,
                        format TEXT NOT NULL,
                        nonce TEXT NOT NULL UNIQUE,
                        client TEXT NOT NULL,
                        at INTEGER NOT NULL
                    );
                    CREATE INDEX servedOffer_subscription ON servedOffer(originalTransactionId, at);
                    CREATE TRIGGER servedOffer_noUpdate BEFORE UPDATE ON servedOffer
                        BEGIN SELECT RAISE(ABORT, 'the served offer log is append-only'); END;
                    CREATE TRIGGER servedOffer_noDelete BEFORE DELETE ON servedOffer
                        BEGIN SELECT RAISE(ABORT, 'the served offer log is append-only'); END;
                    """)
        }
        migrator.registerMigration("v28 cohorts and realized LTV by billing plan") { db in
            // `--plan` on cohorts and ltv (docs/metrics.md, "Billing plans and commitments"): a
            // cohort member counts under the billing plan of its run's first paid period, kept on
            // the run and in the key of its cohort steps and realized-LTV rows. Every count stored
            // so far moves to plan `upfront`, as does every stored run, which is what they are until
            // derived again; only subscriptions with a monthly payment can read differently, and
            // those are derived again once the schema is complete.
            var sql = """
                ALTER TABLE run ADD COLUMN firstPaidBillingPlan TEXT NOT NULL DEFAULT 'upfront';

                """
            let tables: [(stem: String, key: [String])] = [
                ("cohortStep", ["firstPaidProductId TEXT", "cohortMonth INTEGER", "step INTEGER"]),
                (
                    "ltvMember",
                    [
                        "firstPaidProductId TEXT", "cohortMonth INTEGER", "currencyGroup TEXT", "paidPeriods INTEGER",
                        "ended INTEGER",
                    ]
                ),
                (
                    "ltvPrice",
                    [
                        "firstPaidProductId TEXT", "cohortMonth INTEGER", "currencyGroup TEXT", "period INTEGER",
                        "currency TEXT", "priceMonth INTEGER", "price INTEGER",
                    ]
                ),
            ]
            for (stem, key) in tables {
                for time in ["day", "month"] {
                    let table = stem + time.prefix(1).uppercased() + time.dropFirst()
                    let keyNames = key.map { String($0.split(separator: " ")[0]) }
                    let columns = ["environment", time] + keyNames
                    sql += """
                        CREATE TABLE \(table)ByPlan (
                            environment TEXT NOT NULL,
                            \(time) INTEGER NOT NULL,
                            \(key.map { "\($0) NOT NULL," }.joined(separator: "\n    "))
                            billingPlan TEXT NOT NULL,
                            count INTEGER NOT NULL,
                            PRIMARY KEY (\((columns + ["billingPlan"]).joined(separator: ", ")))
                        ) WITHOUT ROWID;
                        INSERT INTO \(table)ByPlan (\((columns + ["billingPlan", "count"]).joined(separator: ", ")))
                            SELECT \(columns.joined(separator: ", ")), 'upfront', count FROM \(table);
                        DROP TABLE \(table);
                        ALTER TABLE \(table)ByPlan RENAME TO \(table);

                        """
                }
            }
            sql += """
                INSERT OR IGNORE INTO pendingSubscription (originalTransactionId)
                    SELECT DISTINCT originalTransactionId FROM "transaction" WHERE billingPlanType = 'MONTHLY';
                """
            try db.execute(sql: sql)
        }
        migrator.registerMigration("v29 segments and events by billing plan") { db in
            // `--plan` on states and events (docs/metrics.md, "Billing plans and commitments"): a
            // segment counts under the billing plan of the period its state is about, an event under
            // that of the period it belongs to (as each counts under that period's product), kept
            // on the rows, in the key of their per-day counts and in the indexes the as-of reads and
            // drill-downs select by. Every row and count stored so far is plan `upfront`, which is
            // what they are until derived again; only subscriptions with a monthly payment can read
            // differently, and those are derived again once the schema is complete. Offer uses
            // (`report offers --plan`) likewise gain the billing plan of their first period.
            try db.execute(
                sql: """
                    ALTER TABLE segment ADD COLUMN billingPlan TEXT NOT NULL DEFAULT 'upfront';
                    ALTER TABLE event ADD COLUMN billingPlan TEXT NOT NULL DEFAULT 'upfront';
                    ALTER TABLE offerUse ADD COLUMN billingPlan TEXT NOT NULL DEFAULT 'upfront';

                    DROP INDEX IF EXISTS segment_end;
                    CREATE INDEX segment_end ON segment(environment, ownership, "end", start, state, productId, autoRenew,
                        paidPeriods, periodDays, billingPlan);
                    DROP INDEX IF EXISTS segment_start;
                    CREATE INDEX segment_start ON segment(environment, ownership, start, state, productId, billingPlan);
                    DROP INDEX IF EXISTS event_at;
                    CREATE INDEX event_at ON event(environment, ownership, at, type, productId, expirationReason,
                        billingPlan);
                    DROP INDEX IF EXISTS offerUse_start;
                    CREATE INDEX offerUse_start ON offerUse(environment, start, offerKind, offerIdentifier, productId, nextStart,
                        nextIsStandard, runEndedAt, paidFromNext, lastPaidStart, runIndex, originalTransactionId, billingPlan);

                    CREATE TABLE segmentDayByPlan (
                        environment TEXT NOT NULL,
                        ownership TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        productId TEXT NOT NULL,
                        state TEXT NOT NULL,
                        billingPlan TEXT NOT NULL,
                        starts INTEGER NOT NULL,
                        ends INTEGER NOT NULL,
                        PRIMARY KEY (environment, ownership, day, productId, state, billingPlan)
                    ) WITHOUT ROWID;
                    INSERT INTO segmentDayByPlan
                        SELECT environment, ownership, day, productId, state, 'upfront', starts, ends FROM segmentDay;
                    DROP TABLE segmentDay;
                    ALTER TABLE segmentDayByPlan RENAME TO segmentDay;

                    CREATE TABLE eventDayByPlan (
                        environment TEXT NOT NULL,
                        ownership TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        productId TEXT NOT NULL,
                        type TEXT NOT NULL,
                        expirationReason TEXT NOT NULL,
                        billingPlan TEXT NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, ownership, day, productId, type, expirationReason, billingPlan)
                    ) WITHOUT ROWID;
                    INSERT INTO eventDayByPlan
                        SELECT environment, ownership, day, productId, type, expirationReason, 'upfront', count FROM eventDay;
                    DROP TABLE eventDay;
                    ALTER TABLE eventDayByPlan RENAME TO eventDay;

                    INSERT OR IGNORE INTO pendingSubscription (originalTransactionId)
                        SELECT DISTINCT originalTransactionId FROM "transaction" WHERE billingPlanType = 'MONTHLY';
                    """)
        }
        migrator.registerMigration("v32 team log position") { db in
            // A view of a team log (`subdash sync`, docs/team.md): which log, and the last of its
            // sequence numbers applied here, written in the transaction that applies the entries.
            try db.execute(
                sql: """
                    CREATE TABLE teamLogPosition (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        logId TEXT NOT NULL,
                        lastSequence INTEGER NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v30 compact archive layout") { db in
            // The archive's compact layout (docs/architecture.md, "The archive's layout"): each
            // distinct certificate chain once, keyed by its sha256; a document refers to its chains
            // by id (`bodyChains`, space-separated, in the order its layout uses them) when
            // `bodyLayout` is 'jws'. Documents already stored are converted after the migrations, in
            // batches each committed with `archiveRepack.doneThroughId` (`AppDatabase.repackArchive`).
            try db.execute(
                sql: """
                    CREATE TABLE archiveChain (
                        id INTEGER PRIMARY KEY,
                        sha256 BLOB NOT NULL UNIQUE,
                        chain BLOB NOT NULL
                    );
                    ALTER TABLE document ADD COLUMN bodyLayout TEXT;
                    ALTER TABLE document ADD COLUMN bodyChains TEXT;
                    CREATE TABLE archiveRepack (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        doneThroughId INTEGER NOT NULL,
                        lastId INTEGER NOT NULL
                    );
                    INSERT INTO archiveRepack (id, doneThroughId, lastId)
                        SELECT 1, 0, MAX(id) FROM document WHERE body IS NOT NULL HAVING MAX(id) IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v31 committed revenue by day and month") { db in
            // Committed revenue at an instant read every running commitment with every charge so
            // far (86,610 rows at 100,000 subscribers with 20 % commitments, docs/performance.md
            // "Commitments against none"). What a commitment has left to charge changes only at its
            // start, its charges and its running end (``KeptCommitment``): these changes, counted by
            // UTC day and month and by product, currency and amount left, kept by the materialiser,
            // make it a sum over months and days plus the commitments changing on as-of's day
            // (`committedCounts`). Amounts stay per commitment so that `--rates` converts each as
            // before. The stored commitments are counted here by the same rule.
            try db.execute(
                sql: """
                    CREATE TABLE committedDay (
                        environment TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        productId TEXT NOT NULL,
                        -- '' and 0 when unpriced
                        currency TEXT NOT NULL,
                        amount INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, day, productId, currency, amount)
                    ) WITHOUT ROWID;
                    CREATE TABLE committedMonth (
                        environment TEXT NOT NULL,
                        month INTEGER NOT NULL,
                        productId TEXT NOT NULL,
                        currency TEXT NOT NULL,
                        amount INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, month, productId, currency, amount)
                    ) WITHOUT ROWID;
                    -- Commitments starting on an instant's day.
                    CREATE INDEX commitment_start ON commitment(environment, start);
                    """)
            try Materializer.countStoredCommitments(db)
        }
        migrator.registerMigration("v33 MRR movement by month") { db in
            // `report movement` and pane 6's movement bars read every MRR interval of every
            // subscription in range (5.2 s for twelve months at 100,000 subscribers,
            // docs/performance.md "MRR movement kept by month"). A complete month's movement
            // depends on each subscription only through the keys of its intervals covering the
            // month's start and end and whether it was charged before the start
            // (``MovementMonths``): these, counted per month, environment and pair of signatures,
            // kept by the materialiser, make each complete month a sum over a few rows. The stored
            // subscriptions are counted here by the same rule.
            try db.execute(
                sql: """
                    CREATE TABLE mrrMovementMonth (
                        environment TEXT NOT NULL,
                        month INTEGER NOT NULL,
                        -- MRRKey.signature: the keys covering the month's start, then its end ('' none)
                        startKeys TEXT NOT NULL,
                        endKeys TEXT NOT NULL,
                        -- 1: no charged period started before the month
                        isNew INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, month, startKeys, endKeys, isNew)
                    ) WITHOUT ROWID;
                    """)
            try Materializer.countStoredMovement(db)
        }
        migrator.registerMigration("v34 revenue and refunds by day") { db in
            // `report revenue` and `report refunds` grouped every money row in range: 7.3 s for twelve
            // months at a million subscribers (docs/performance.md "Revenue and refunds from per-day
            // sums"). Kept by the materialiser (``MoneyAmount``): each charge, refund and upgrade
            // credit counted on its own instant's UTC day and month under the key revenue groups by,
            // and each charged period on its start's day and its refund's day, so whole months and
            // days are sums of few rows and "refunded by as-of" a range over the second day; only the
            // partial days at the ends and as-of's are read from `periodMoney`. The stored money rows
            // are counted here by the same rule (in SQL, checked against it by `SchemaTests`).
            try db.execute(
                sql: """
                    CREATE TABLE moneyDay (
                        environment TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        -- 'charge' (at the period's start), 'refund' or 'credit' (an upgrade's, at theirs)
                        kind TEXT NOT NULL,
                        productId TEXT NOT NULL,
                        billingPlan TEXT NOT NULL,
                        -- 'unknown' when absent
                        storefront TEXT NOT NULL,
                        -- '' when absent
                        currency TEXT NOT NULL,
                        -- the price, refund or credit; -1 when absent (unpriced)
                        amount INTEGER NOT NULL,
                        proceedsRate INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, day, kind, productId, billingPlan, storefront, currency, amount, proceedsRate)
                    ) WITHOUT ROWID;
                    -- moneyDay by UTC month (Month.index): twelve whole months are twelve days' rows
                    CREATE TABLE moneyMonth (
                        environment TEXT NOT NULL,
                        month INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        productId TEXT NOT NULL,
                        billingPlan TEXT NOT NULL,
                        storefront TEXT NOT NULL,
                        currency TEXT NOT NULL,
                        amount INTEGER NOT NULL,
                        proceedsRate INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, month, kind, productId, billingPlan, storefront, currency, amount, proceedsRate)
                    ) WITHOUT ROWID;
                    CREATE TABLE chargeDay (
                        environment TEXT NOT NULL,
                        -- the period's start
                        day INTEGER NOT NULL,
                        -- its refund's day, \(CountDelta.noRefundDay) when not refunded
                        refundDay INTEGER NOT NULL,
                        productId TEXT NOT NULL,
                        billingPlan TEXT NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, day, refundDay, productId, billingPlan)
                    ) WITHOUT ROWID;
                    """)
            try Materializer.countStoredMoney(db)
        }
        migrator.registerMigration("v35 MRR changes") { db in
            // A bucket of MRR movement other than a complete month (the month as-of falls in, weeks,
            // days) read every interval covering its ends: December 2025 alone, cut by as-of, took
            // 7.4 s of a debug build at 100,000 subscribers, and every `report movement` to today
            // and pane 6's fill have such a month (docs/performance.md "MRR movement of a bucket
            // from its changes"). Kept by the materialiser (``MRRChanges``): each
            // instant a subscription's MRR keys change, with the keys just before and at it and its
            // first charge, so a bucket reads MRR at its start and the few changes inside it. The stored subscriptions
            // are counted here by the same rule.
            try db.execute(
                sql: """
                    CREATE TABLE mrrChange (
                        environment TEXT NOT NULL,
                        -- the instant of the change (milliseconds)
                        at INTEGER NOT NULL,
                        originalTransactionId TEXT NOT NULL,
                        -- MRRKey.signature: the keys covering the instant just before, then at it ('' none)
                        beforeKeys TEXT NOT NULL,
                        afterKeys TEXT NOT NULL,
                        -- the start of the subscription's first charged period: new or reactivation
                        firstCharge INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (environment, at, originalTransactionId, beforeKeys, afterKeys, firstCharge)
                    ) WITHOUT ROWID;
                    """)
            try Materializer.countStoredChanges(db)
        }
        migrator.registerMigration("v36 archive dictionaries") { db in
            // A trained zstd dictionary per kind of archive body (``ArchiveDictionaries``), never
            // changed nor deleted; a body compressed with one names it (`bodyDictionary`). Until a
            // kind has one, `archiveUntrained` counts its bodies stored without (the store holds
            // that many; trained at 1,000). The
            // documents already stored are trained on and converted after the migrations, in the
            // batches of v30's conversion (`AppDatabase.repackArchive`), queued here again.
            try db.execute(
                sql: """
                    CREATE TABLE archiveDictionary (
                        id INTEGER PRIMARY KEY,
                        kind TEXT NOT NULL UNIQUE,
                        dictionary BLOB NOT NULL
                    );
                    CREATE TABLE archiveUntrained (
                        kind TEXT PRIMARY KEY NOT NULL,
                        bodies INTEGER NOT NULL
                    );
                    ALTER TABLE document ADD COLUMN bodyDictionary INTEGER;
                    INSERT INTO archiveRepack (id, doneThroughId, lastId)
                        SELECT 1, 0, MAX(id) FROM document WHERE body IS NOT NULL HAVING MAX(id) IS NOT NULL
                    ON CONFLICT (id) DO UPDATE SET doneThroughId = 0, lastId = excluded.lastId;
                    """)
        }
        return migrator
    }

    /// The UTC day number of `instant` as `segmentDay` counts it (rounded down).
    public static func day(of instant: Instant) -> Int64 { CountDelta.day(of: instant) }

    /// The `end` stored for rows that never end.
    public static let openEnd: Int64 = 253_402_300_800_000  // 10000-01-01
}
