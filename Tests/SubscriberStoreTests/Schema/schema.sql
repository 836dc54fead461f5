-- index billingFailure_at on billingFailure
CREATE INDEX billingFailure_at ON billingFailure(environment, ownership, at);

-- index billingFailure_window on billingFailure
CREATE INDEX billingFailure_window ON billingFailure(environment, windowEnd, at, graceEnd, transactionId);

-- index customer_appAccountToken on customer
CREATE INDEX customer_appAccountToken ON customer(appAccountToken) WHERE appAccountToken <> '';

-- index customer_email on customer
CREATE INDEX customer_email ON customer(email COLLATE NOCASE) WHERE email <> '';

-- index customer_originalTransactionId on customer
CREATE INDEX customer_originalTransactionId ON customer(originalTransactionId) WHERE originalTransactionId <> '';

-- index event_at on event
CREATE INDEX event_at ON event(environment, ownership, at, type, productId, expirationReason);

-- index event_subscription on event
CREATE INDEX event_subscription ON event(originalTransactionId, at);

-- index notification_instant on notification
CREATE INDEX notification_instant ON notification(instant);

-- index notification_subscription on notification
CREATE INDEX notification_subscription ON notification(originalTransactionId, instant);

-- index offerFlagLog_subscription on offerFlagLog
CREATE INDEX offerFlagLog_subscription ON offerFlagLog(originalTransactionId, id);

-- index offerFlag_offer on offerFlag
CREATE INDEX offerFlag_offer ON offerFlag(offer, at);

-- index offerUse_start on offerUse
CREATE INDEX offerUse_start ON offerUse(environment, start, offerKind, offerIdentifier, productId, nextStart,
    nextIsStandard, runEndedAt, runIndex, originalTransactionId);

-- index periodMoney_credit on periodMoney
CREATE INDEX periodMoney_credit ON periodMoney(environment, creditAt, currency, productId, upgradeCredit,
    proceedsRate, storefront) WHERE creditAt IS NOT NULL;

-- index periodMoney_end on periodMoney
CREATE INDEX periodMoney_end ON periodMoney(environment, "end", start, offerKind, productId, currency,
    price, monthlyTwelfths);

-- index periodMoney_refund on periodMoney
CREATE INDEX periodMoney_refund ON periodMoney(environment, refundAt, currency, productId, refundAmount,
    proceedsRate, storefront) WHERE refundAt IS NOT NULL;

-- index periodMoney_start on periodMoney
CREATE INDEX periodMoney_start ON periodMoney(environment, start, currency, productId, price,
    proceedsRate, storefront, isPaid, refundAt);

-- index periodMoney_subscription on periodMoney
CREATE INDEX periodMoney_subscription ON periodMoney(originalTransactionId);

-- index period_subscription on period
CREATE INDEX period_subscription ON period(originalTransactionId, runIndex, start, countsForRetention);

-- index renewalFact_instant on renewalFact
CREATE INDEX renewalFact_instant ON renewalFact(instant);

-- index run_cohort on run
CREATE INDEX run_cohort ON run(environment, firstPaidStart, cohortMonth, lastPaidStart, paidPeriodCount,
    endedAt, firstPaidProductId, runIndex, originalTransactionId) WHERE firstPaidStart IS NOT NULL;

-- index run_cohortEnd on run
CREATE INDEX run_cohortEnd ON run(environment, endedAt, firstPaidStart, cohortMonth, lastPaidStart,
    paidPeriodCount, firstPaidProductId) WHERE firstPaidStart IS NOT NULL;

-- index run_ended on run
CREATE INDEX run_ended ON run(environment, ownership, endedAt);

-- index segment_end on segment
CREATE INDEX segment_end ON segment(environment, ownership, "end", start, state, productId, autoRenew,
    paidPeriods, periodDays);

-- index segment_start on segment
CREATE INDEX segment_start ON segment(environment, ownership, start, state, productId);

-- index subscriberSearch_appAccountToken on subscriberSearch
CREATE INDEX subscriberSearch_appAccountToken ON subscriberSearch(appAccountToken)
    WHERE appAccountToken IS NOT NULL;

-- index subscriberSearch_email on subscriberSearch
CREATE INDEX subscriberSearch_email ON subscriberSearch(email) WHERE email IS NOT NULL;

-- index subscriberSearch_userId on subscriberSearch
CREATE INDEX subscriberSearch_userId ON subscriberSearch(userId) WHERE userId IS NOT NULL;

-- index subscription_ownership on subscription
CREATE INDEX subscription_ownership ON subscription(ownership, originalTransactionId);

-- index subscription_product on subscription
CREATE INDEX subscription_product ON subscription(productId);

-- index transaction_appAccountToken on transaction
CREATE INDEX transaction_appAccountToken ON "transaction"(appAccountToken) WHERE appAccountToken IS NOT NULL;

-- index transaction_purchaseDate on transaction
CREATE INDEX transaction_purchaseDate ON "transaction"(purchaseDate);

-- index transaction_revocationDate on transaction
CREATE INDEX transaction_revocationDate ON "transaction"(revocationDate) WHERE revocationDate IS NOT NULL;

-- index transaction_subscription on transaction
CREATE INDEX transaction_subscription ON "transaction"(originalTransactionId);

-- index transaction_webOrderLineItem on transaction
CREATE INDEX transaction_webOrderLineItem ON "transaction"(webOrderLineItemId) WHERE webOrderLineItemId IS NOT NULL;

-- table billingFailure on billingFailure
CREATE TABLE billingFailure (
    originalTransactionId TEXT NOT NULL,
    environment TEXT NOT NULL,
    at INTEGER NOT NULL,
    transactionId TEXT NOT NULL,
    productId TEXT NOT NULL,
    graceEnd INTEGER,
    retryEnd INTEGER NOT NULL,
    windowEnd INTEGER NOT NULL,
    recoveryStart INTEGER, ownership TEXT NOT NULL DEFAULT 'purchased',
    PRIMARY KEY (originalTransactionId, transactionId)
) WITHOUT ROWID;

-- table customer on customer
CREATE TABLE customer (
    userId TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    appAccountToken TEXT NOT NULL DEFAULT '',
    originalTransactionId TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (userId, email, appAccountToken, originalTransactionId)
) WITHOUT ROWID;

-- table document on document
CREATE TABLE document (
    id INTEGER PRIMARY KEY,
    sha256 TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL,
    format TEXT,
    outcome TEXT NOT NULL CHECK (outcome IN ('applied', 'duplicate', 'rejected')),
    reason TEXT,
    byteCount INTEGER NOT NULL,
    body BLOB
, bodyEncoding TEXT);

-- table event on event
CREATE TABLE event (
    originalTransactionId TEXT NOT NULL,
    environment TEXT NOT NULL,
    at INTEGER NOT NULL,
    type TEXT NOT NULL,
    productId TEXT NOT NULL,
    expirationReason TEXT,
    transactionId TEXT
, ownership TEXT NOT NULL DEFAULT 'purchased');

-- table eventDay on eventDay
CREATE TABLE "eventDay" (
    environment TEXT NOT NULL,
    ownership TEXT NOT NULL,
    day INTEGER NOT NULL,
    productId TEXT NOT NULL,
    type TEXT NOT NULL,
    expirationReason TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (environment, ownership, day, productId, type, expirationReason)
) WITHOUT ROWID;

-- table grdb_migrations on grdb_migrations
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);

-- table notification on notification
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
, unverified INTEGER NOT NULL DEFAULT 0);

-- table offerFlag on offerFlag
CREATE TABLE offerFlag (
    originalTransactionId TEXT NOT NULL,
    offer TEXT NOT NULL CHECK (offer IN ('winBack', 'retention', 'upgrade', 'loyalty', 'service')),
    note TEXT,
    operator TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (originalTransactionId, offer)
) WITHOUT ROWID;

-- table offerFlagLog on offerFlagLog
CREATE TABLE offerFlagLog (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    originalTransactionId TEXT NOT NULL,
    offer TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('set', 'clear')),
    note TEXT,
    operator TEXT NOT NULL,
    at INTEGER NOT NULL
);

-- table offerUse on offerUse
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

-- table pendingSubscription on pendingSubscription
CREATE TABLE pendingSubscription (originalTransactionId TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID;

-- table period on period
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
, billingDays INTEGER) WITHOUT ROWID;

-- table periodMoney on periodMoney
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

-- table priceTableRow on priceTableRow
CREATE TABLE priceTableRow (
    line INTEGER PRIMARY KEY NOT NULL,
    productId TEXT NOT NULL,
    storefront TEXT NOT NULL,
    currency TEXT NOT NULL,
    price INTEGER NOT NULL CHECK (price >= 0),
    validFrom INTEGER NOT NULL
);

-- table product on product
CREATE TABLE product (
    environment TEXT NOT NULL,
    productId TEXT NOT NULL,
    PRIMARY KEY (environment, productId)
) WITHOUT ROWID;

-- table productDuration on productDuration
CREATE TABLE productDuration (
    productId TEXT NOT NULL,
    billingDays INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (productId, billingDays)
) WITHOUT ROWID;

-- table renewalFact on renewalFact
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
    isV1 INTEGER NOT NULL, unverified INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (originalTransactionId, instant, contentHash)
) WITHOUT ROWID;

-- table run on run
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
    lastPaidStart INTEGER, ownership TEXT NOT NULL DEFAULT 'purchased',
    PRIMARY KEY (originalTransactionId, runIndex)
) WITHOUT ROWID;

-- table runEndDay on runEndDay
CREATE TABLE runEndDay (
    environment TEXT NOT NULL,
    day INTEGER NOT NULL,
    firstPaidProductId TEXT NOT NULL,
    cohortMonth INTEGER NOT NULL,
    paidPeriodCount INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (environment, day, firstPaidProductId, cohortMonth, paidPeriodCount)
) WITHOUT ROWID;

-- table segment on segment
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
    graceEnd INTEGER, ownership TEXT NOT NULL DEFAULT 'purchased',
    PRIMARY KEY (originalTransactionId, start)
) WITHOUT ROWID;

-- table segmentDay on segmentDay
CREATE TABLE "segmentDay" (
    environment TEXT NOT NULL,
    ownership TEXT NOT NULL,
    day INTEGER NOT NULL,
    productId TEXT NOT NULL,
    state TEXT NOT NULL,
    starts INTEGER NOT NULL,
    ends INTEGER NOT NULL,
    PRIMARY KEY (environment, ownership, day, productId, state)
) WITHOUT ROWID;

-- table sqlite_sequence on sqlite_sequence
CREATE TABLE sqlite_sequence(name,seq);

-- table storeApp on storeApp
CREATE TABLE storeApp (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    bundleId TEXT NOT NULL,
    appAppleId INTEGER
);

-- table subscriberSearch on subscriberSearch
CREATE TABLE subscriberSearch (
    originalTransactionId TEXT PRIMARY KEY NOT NULL,
    userId TEXT COLLATE NOCASE,
    email TEXT COLLATE NOCASE,
    appAccountToken TEXT COLLATE NOCASE
) WITHOUT ROWID;

-- table subscription on subscription
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
, ownership TEXT NOT NULL DEFAULT 'purchased') WITHOUT ROWID;

-- table transaction on transaction
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
, revocationType TEXT, storefront TEXT, revocationPercentage INTEGER, unverified INTEGER NOT NULL DEFAULT 0);

-- table unverifiedDocument on unverifiedDocument
CREATE TABLE unverifiedDocument (
    originalTransactionId TEXT NOT NULL,
    documentSha256 TEXT NOT NULL REFERENCES document(sha256) ON DELETE CASCADE,
    PRIMARY KEY (originalTransactionId, documentSha256)
) WITHOUT ROWID;

-- trigger event_noUpdate on event
CREATE TRIGGER event_noUpdate BEFORE UPDATE ON event
BEGIN SELECT RAISE(ABORT, 'events are replaced, never updated (eventDay counts them)'); END;

-- trigger offerFlagLog_noDelete on offerFlagLog
CREATE TRIGGER offerFlagLog_noDelete BEFORE DELETE ON offerFlagLog
    BEGIN SELECT RAISE(ABORT, 'the offer flag log is append-only'); END;

-- trigger offerFlagLog_noUpdate on offerFlagLog
CREATE TRIGGER offerFlagLog_noUpdate BEFORE UPDATE ON offerFlagLog
    BEGIN SELECT RAISE(ABORT, 'the offer flag log is append-only'); END;

-- trigger run_noUpdate on run
CREATE TRIGGER run_noUpdate BEFORE UPDATE ON run
BEGIN SELECT RAISE(ABORT, 'runs are replaced, never updated (runEndDay counts them)'); END;

-- trigger segment_noUpdate on segment
CREATE TRIGGER segment_noUpdate BEFORE UPDATE ON segment
BEGIN SELECT RAISE(ABORT, 'segments are replaced, never updated (segmentDay counts them)'); END;
