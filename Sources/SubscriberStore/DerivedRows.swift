import GRDB

/// A table of rows derived per subscription (`period`, `segment`, …), and the statements a
/// derivation writes it with.
struct DerivedTable: Sendable {
    let name: String
    /// Every column, in the order a row's values are bound.
    let columns: [String]
    /// The primary key: what `deleteIfDifferentSQL` finds the stored row by (empty: `event`,
    /// whose rows are compared whole).
    let primaryKey: [String]
    /// Rows of one derivation may repeat a key, and the first one stands (`billingFailure`:
    /// the first failure of each transaction).
    var firstRowWins = false

    /// A plain insert: for a subscription with nothing stored.
    var insertSQL: String {
        """
        INSERT INTO \(name) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))\
        \(firstRowWins ? " ON CONFLICT DO NOTHING" : "")
        """
    }

    /// Removes the stored row of the same primary key as the row bound (in `columns` order) when
    /// some value differs: a row stored with the same values costs a lookup, and no page of the
    /// table or of its indexes is written. (Derived rows are replaced, never updated in place:
    /// triggers forbid it, since the tables of counts follow the rows written and removed.)
    var deleteIfDifferentSQL: String {
        let position = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, $0 + 1) })
        let others = columns.filter { !primaryKey.contains($0) }
        return """
            DELETE FROM \(name) WHERE \(primaryKey.map { "\($0) = ?\(position[$0]!)" }.joined(separator: " AND "))
                AND NOT (\(others.map { "\($0) IS ?\(position[$0]!)" }.joined(separator: " AND ")))
            """
    }

    /// The primary key's columns other than `originalTransactionId`: what tells one of a
    /// subscription's rows from another (empty: one row per subscription).
    var key: [String] { primaryKey.filter { $0 != "originalTransactionId" } }

    /// Removes one of a subscription's rows by its key.
    var deleteSQL: String {
        "DELETE FROM \(name) WHERE \((["originalTransactionId"] + key).map { "\($0) = ?" }.joined(separator: " AND "))"
    }

    static let subscription = DerivedTable(
        name: "subscription",
        columns: [
            "originalTransactionId", "environment", "productId", "firstStart", "latestStart", "periodCount", "runCount",
            "billingFailureCount", "autoRenewProductId", "priceIncreaseStatus", "appAccountToken", "lastEventAt",
            "lastEventType", "dataHorizon", "ownership",
        ],
        primaryKey: ["originalTransactionId"])
    static let period = DerivedTable(
        name: "period",
        columns: [
            "transactionId", "originalTransactionId", "environment", "runIndex", "productId", "start", "\"end\"", "offerKind",
            "class", "isPaid", "isRefunded", "isCutByUpgrade", "countsForRetention", "billingDays",
        ],
        primaryKey: ["transactionId"])
    static let run = DerivedTable(
        name: "run",
        columns: [
            "originalTransactionId", "runIndex", "environment", "start", "endedAt", "expirationReason", "firstPaidStart",
            "cohortMonth", "firstPaidProductId", "paidPeriodCount", "lastPaidStart", "ownership", "firstPaidBillingPlan",
        ],
        primaryKey: ["originalTransactionId", "runIndex"])
    static let segment = DerivedTable(
        name: "segment",
        columns: [
            "originalTransactionId", "environment", "start", "\"end\"", "state", "productId", "autoRenew", "runIndex",
            "paidPeriods", "periodDays", "graceEnd", "ownership", "billingPlan",
        ],
        primaryKey: ["originalTransactionId", "start"])
    static let billingFailure = DerivedTable(
        name: "billingFailure",
        columns: [
            "originalTransactionId", "environment", "at", "transactionId", "productId", "graceEnd", "retryEnd", "windowEnd",
            "recoveryStart", "ownership",
        ],
        primaryKey: ["originalTransactionId", "transactionId"], firstRowWins: true)
    static let periodMoney = DerivedTable(
        name: "periodMoney",
        columns: [
            "transactionId", "originalTransactionId", "environment", "productId", "storefront", "offerKind", "start", "\"end\"",
            "price", "currency", "priceSource", "proceedsRate", "isPaid", "refundAt", "refundAmount", "creditAt",
            "upgradeCredit", "monthlyTwelfths", "billingPlan", "commitmentIndex",
        ],
        primaryKey: ["transactionId"])
    static let commitment = DerivedTable(
        name: "commitment",
        columns: [
            "originalTransactionId", "commitmentIndex", "environment", "ownership", "productId", "start", "runningEnd", "ends",
            "price", "currency",
        ],
        primaryKey: ["originalTransactionId", "commitmentIndex"])
    static let offerUse = DerivedTable(
        name: "offerUse",
        columns: [
            "originalTransactionId", "useIndex", "environment", "offerKind", "offerIdentifier", "productId", "start",
            "runIndex", "nextStart", "nextIsStandard", "runEndedAt", "paidFromNext", "lastPaidStart", "billingPlan",
        ],
        primaryKey: ["originalTransactionId", "useIndex"])
    /// The ids pane 1 shows and searches, selected from `subscription` and the customer table.
    /// Its rows are written by `DerivedRows.writeSearch`.
    static let subscriberSearch = DerivedTable(
        name: "subscriberSearch", columns: ["originalTransactionId", "userId", "email", "appAccountToken"],
        primaryKey: ["originalTransactionId"])

    /// No key: a subscription's events are compared whole (`DerivedRows.writeEvent`).
    static let event = DerivedTable(
        name: "event",
        columns: [
            "originalTransactionId", "environment", "at", "type", "productId", "expirationReason", "transactionId", "ownership",
            "billingPlan",
        ],
        primaryKey: [])

    /// The tables `DerivedRows` tracks by key.
    static let keyed: [DerivedTable] = [
        subscription, period, run, segment, billingFailure, periodMoney, offerUse, subscriberSearch, commitment,
    ]
}

/// Writes the derived rows of one subscription.
///
/// For a subscription with nothing stored every row is a plain insert. For one stored before,
/// only what changed is written: a row whose values are the stored ones is left as it is, a row
/// that differs is removed and written again, and the rows whose keys the new timeline no longer
/// has are removed at the end (`removeStale`). A notification that adds one period to a long history
/// rewrites that period's rows and the few its arrival changes (the open segment's end, the
/// subscription's latest values), not every row of the history and every index entry of each,
/// so a receiver's commit and a re-pricing write a fraction of the pages
/// (docs/performance.md, "Derivation writes what changed").
struct DerivedRows {
    private let db: Database
    private let id: String
    /// Per table, the keys stored before and not written yet by this derivation; nil for a
    /// subscription with nothing stored.
    private var stale: [String: Set<[DatabaseValue]>]?
    /// Keys written by this derivation, in tables where the first row of a key stands.
    private var written: Set<[DatabaseValue]> = []
    /// The events stored before, by their values (`event`'s columns after the id): the rowids of each.
    private var staleEvents: [[DatabaseValue]: [Int64]] = [:]

    /// For a subscription with nothing stored.
    init(new id: String, _ db: Database) {
        self.db = db
        self.id = id
    }

    /// For a subscription stored before: `keys` per table name, `events` as stored.
    init(replacing id: String, keys: [String: Set<[DatabaseValue]>], events: [[DatabaseValue]: [Int64]], _ db: Database) {
        self.db = db
        self.id = id
        self.stale = keys
        self.staleEvents = events
    }

    /// Writes one row of `table`: `run` executes the statement it is given with the row's values.
    mutating func write(_ table: DerivedTable, key: [DatabaseValue], _ run: (Statement) throws -> Void) throws {
        guard stale != nil else { return try run(db.cachedStatement(sql: table.insertSQL)) }
        if table.firstRowWins && !written.insert([table.name.databaseValue] + key).inserted { return }
        if stale?[table.name]?.remove(key) != nil {
            // Stored before: removed only if some value differs, then written again.
            try run(db.cachedStatement(sql: table.deleteIfDifferentSQL))
            guard db.changesCount > 0 else { return }
        }
        try run(db.cachedStatement(sql: table.insertSQL))
    }

    /// Writes the subscription's row of `subscriberSearch` (after its `subscription` row):
    /// `select` gives the row from the subscription's id.
    mutating func writeSearch(selecting select: String) throws {
        let insert = "INSERT INTO subscriberSearch (\(DerivedTable.subscriberSearch.columns.joined(separator: ", "))) \(select)"
        if stale?["subscriberSearch"]?.remove([]) != nil {
            let values = try Row.fetchOne(db.cachedStatement(sql: select), arguments: [id]).map { Array($0.databaseValues) }
            let stored = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT \(DerivedTable.subscriberSearch.columns.joined(separator: ", ")) FROM subscriberSearch
                        WHERE originalTransactionId = ?
                        """), arguments: [id]
            ).map { Array($0.databaseValues) }
            if values == stored { return }
            try db.cachedStatement(sql: "DELETE FROM subscriberSearch WHERE originalTransactionId = ?").run(db, id)
        }
        try db.cachedStatement(sql: insert).run(db, id)
    }

    /// Writes one event (`values`: `event`'s columns after the id) unless the same event is stored.
    mutating func writeEvent(_ values: [DatabaseValue]) throws {
        if var rowids = staleEvents[values], !rowids.isEmpty {
            rowids.removeLast()
            staleEvents[values] = rowids.isEmpty ? nil : rowids
            return
        }
        try db.cachedStatement(sql: DerivedTable.event.insertSQL).run(db, key: [id.databaseValue] + values)
    }

    /// Removes the rows stored before that this derivation did not write again.
    func removeStale() throws {
        for table in DerivedTable.keyed {
            guard let keys = stale?[table.name], !keys.isEmpty else { continue }
            let delete = try db.cachedStatement(sql: table.deleteSQL)
            for key in keys { try delete.run(db, key: [id.databaseValue] + key) }
        }
        let delete = try db.cachedStatement(sql: "DELETE FROM event WHERE rowid = ?")
        for rowids in staleEvents.values {
            for rowid in rowids { try delete.run(db, rowid) }
        }
    }
}
