import GRDB
import SubscriptionModel
import SubscriptionTimeline

/// Rebuilds the rows derived from a subscription's facts (docs/metrics.md) — `subscription`,
/// `period`, `run`, `segment`, `event`, `billingFailure` — so population figures are SQL over
/// indexed tables. Runs in `rebuildPending`'s writing transactions, for the subscriptions an import
/// marked pending.
struct Materializer {
    let db: Database

    init(_ db: Database) { self.db = db }

    func rebuild(_ originalTransactionIds: [String]) throws {
        try store(Self.derive(originalTransactionIds, from: db))
    }

    /// The timelines of these subscriptions from their stored facts (any connection will do: a
    /// reader can derive the next chunk while the writer stores this one).
    static func derive(_ originalTransactionIds: [String], from db: Database) throws -> [Derived] {
        let reader = FactReader(db)
        return try originalTransactionIds.map { Derived(originalTransactionId: $0, timeline: .derive(try reader.facts(of: $0))) }
    }

    /// Replaces the derived rows of each subscription by those of its timeline. A subscription
    /// stored before has only what changed written (`DerivedRows`); the tables of counts take the
    /// stored rows' counts away and the new rows' counts in, and only keys whose sums changed are
    /// written.
    func store(_ derived: [Derived]) throws {
        let priceTable = try PriceTableStore.load(db)
        let exists = try db.cachedStatement(sql: "SELECT 1 FROM subscription WHERE originalTransactionId = ?")
        var counts = Counts()
        for d in derived {
            // A subscription seen for the first time has no derived rows to compare with: six
            // index seeks saved per new subscription. (Derived rows never exist without their
            // `subscription` row: it is written first and removed with the rest.)
            var rows =
                try Int.fetchOne(exists, arguments: [d.originalTransactionId]) != nil
                ? try subtract(d.originalTransactionId, &counts) : DerivedRows(new: d.originalTransactionId, db)
            if !d.timeline.periods.isEmpty {
                let money = d.timeline.money(priceTable: priceTable)
                let segments = d.timeline.segments()
                try insert(d.timeline, segments: segments, &rows)
                try insertMoney(d.timeline, money: money, &rows)
                counts.add(CountDelta.of(d.timeline, money: money, segments: segments), 1)
            }
            try rows.removeStale()
        }
        try counts.write(db)
    }

    /// Changes to a table of counts per key (`segmentDay`, `eventDay`, …), summed over a batch and
    /// written once: a row whose counts fall to zero is removed.
    struct CountChanges {
        let table: String
        let keyColumns: [String]
        let countColumns: [String]
        /// Counts that may be negative (a day's changes): a row can fall to zero from below.
        var signed = false
        private var changes: [[DatabaseValue]: [Int]] = [:]

        init(table: String, keyColumns: [String], countColumns: [String]) {
            self.table = table
            self.keyColumns = keyColumns
            self.countColumns = countColumns
        }

        static func signed(table: String, keyColumns: [String], countColumns: [String]) -> CountChanges {
            var changes = CountChanges(table: table, keyColumns: keyColumns, countColumns: countColumns)
            changes.signed = true
            return changes
        }

        /// The changes as rows (key, then counts), those of no change left out.
        var rows: [[DatabaseValue]] {
            changes.filter { $0.value.contains { $0 != 0 } }.map { $0.key + $0.value.map { $0.databaseValue } }
        }

        mutating func add(_ key: [DatabaseValue], column: Int = 0, _ change: Int) {
            changes[key, default: Array(repeating: 0, count: countColumns.count)][column] += change
        }

        func write(_ db: Database) throws {
            guard !changes.isEmpty else { return }
            let columns = keyColumns + countColumns
            let add = try db.cachedStatement(
                sql: """
                    INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))
                    ON CONFLICT DO UPDATE SET \(countColumns.map { "\($0) = \($0) + excluded.\($0)" }.joined(separator: ", "))
                    """)
            let removeEmpty = try db.cachedStatement(
                sql: """
                    DELETE FROM \(table) WHERE \(keyColumns.map { "\($0) = ?" }.joined(separator: " AND "))
                        AND \(countColumns.map { "\($0) = 0" }.joined(separator: " AND "))
                    """)
            for (key, change) in changes where change.contains(where: { $0 != 0 }) {
                try add.run(db, key: key, counts: change)
                if signed || change.contains(where: { $0 < 0 }) { try removeEmpty.run(db, key: key) }
            }
        }
    }

    /// What `store` changes in the tables of counts: the rows of ``CountDelta`` (the counting
    /// rules, in SubscriptionTimeline), each table's rows on the UTC day of their instant and, for
    /// the tables kept per month too, on its month.
    struct Counts {
        /// Each kept table's changes: per day (or not by time), and per month when kept so.
        private(set) var tables: [CountDelta.Table: (days: CountChanges, months: CountChanges?)] = [:]

        init() {
            for table in CountDelta.Table.allCases { tables[table] = Self.stored(table) }
        }

        /// Where a table's rows are stored: its tables, key columns (the delta's scope, then the
        /// day or month, then its key) and count columns.
        static func stored(_ table: CountDelta.Table) -> (days: CountChanges, months: CountChanges?) {
            func byDayAndMonth(_ stem: String, _ scope: [String], _ key: [String], _ counts: [String], signed: Bool = false)
                -> (days: CountChanges, months: CountChanges?)
            {
                func changes(_ period: String, _ suffix: String) -> CountChanges {
                    let columns = scope + [period] + key
                    return signed
                        ? .signed(table: stem + suffix, keyColumns: columns, countColumns: counts)
                        : CountChanges(table: stem + suffix, keyColumns: columns, countColumns: counts)
                }
                return (changes("day", "Day"), changes("month", "Month"))
            }
            switch table {
            case .segment:
                return (
                    CountChanges(
                        table: "segmentDay",
                        keyColumns: ["environment", "ownership", "day", "productId", "state", "billingPlan"],
                        countColumns: ["starts", "ends"]), nil
                )
            case .event:
                return (
                    CountChanges(
                        table: "eventDay",
                        keyColumns: [
                            "environment", "ownership", "day", "productId", "type", "expirationReason", "billingPlan",
                        ],
                        countColumns: ["count"]), nil
                )
            case .productDuration:
                return (
                    CountChanges(table: "productDuration", keyColumns: ["productId", "billingDays"], countColumns: ["count"]), nil
                )
            case .subscriptionStart:
                return (
                    CountChanges(
                        table: "subscriptionStartDay", keyColumns: ["environment", "ownership", "day", "productId"],
                        countColumns: ["count"]), nil
                )
            case .cohortStep:
                return byDayAndMonth(
                    "cohortStep", ["environment"], ["firstPaidProductId", "cohortMonth", "step", "billingPlan"], ["count"])
            case .mrr:
                return byDayAndMonth(
                    "mrr", ["environment"], ["offerKind", "productId", "currency", "price", "monthlyTwelfths", "billingPlan"],
                    ["starts", "ends"])
            case .ltvMember:
                return byDayAndMonth("ltvMember", ["environment"], AppDatabase.ltvMemberColumns, ["count"], signed: true)
            case .ltvPrice:
                return byDayAndMonth("ltvPrice", ["environment"], AppDatabase.ltvPriceColumns, ["count"], signed: true)
            case .committed:
                return byDayAndMonth("committed", ["environment"], ["productId", "currency", "amount"], ["count"], signed: true)
            case .movement:
                return (
                    CountChanges(
                        table: "mrrMovementMonth", keyColumns: ["environment", "month", "startKeys", "endKeys", "isNew"],
                        countColumns: ["count"]), nil
                )
            case .mrrChange:
                return (
                    CountChanges(
                        table: "mrrChange",
                        keyColumns: ["environment", "at", "originalTransactionId", "beforeKeys", "afterKeys", "firstCharge"],
                        countColumns: ["count"]), nil
                )
            case .money:
                return byDayAndMonth(
                    "money", ["environment"],
                    ["kind", "productId", "billingPlan", "storefront", "currency", "amount", "proceedsRate"], ["count"])
            case .charge:
                return (
                    CountChanges(
                        table: "chargeDay", keyColumns: ["environment", "day", "refundDay", "productId", "billingPlan"],
                        countColumns: ["count"]), nil
                )
            }
        }

        /// The rows added (`sign` 1) or taken away (−1).
        mutating func add(_ deltas: [CountDelta], _ sign: Int) {
            for d in deltas {
                let scope = d.scope.map(\.databaseValue)
                let key = d.key.map(\.databaseValue)
                let change = d.change * sign
                guard let at = d.at else {
                    tables[d.table]!.days.add(scope + key, column: d.column, change)
                    continue
                }
                tables[d.table]!.days.add(scope + [AppDatabase.day(of: at).databaseValue] + key, column: d.column, change)
                tables[d.table]!.months?.add(scope + [at.month.index.databaseValue] + key, column: d.column, change)
            }
        }

        func write(_ db: Database) throws {
            for table in CountDelta.Table.allCases {
                try tables[table]!.days.write(db)
                try tables[table]!.months?.write(db)
            }
        }
    }

    struct Derived: Sendable {
        var originalTransactionId: String
        var timeline: SubscriptionTimeline
    }

    /// Takes what a stored subscription's derived rows add to the tables of counts away from
    /// `counts`, and returns the writer that replaces those rows, knowing their keys.
    private func subtract(_ id: String, _ counts: inout Counts) throws -> DerivedRows {
        var keys: [String: Set<[DatabaseValue]>] = [:]
        // First: the grace periods MRR counts join failures to their periods; the prices the
        // cohort members' LTV rows were stored with.
        let (prices, charges) = try subtractMoney(id, &counts, &keys)
        try subtractCommitments(id, charges: charges, &counts, &keys)
        for (table, key) in [("billingFailure", "transactionId"), ("offerUse", "useIndex")] {
            keys[table] = try Set(
                DatabaseValue.fetchAll(
                    db.cachedStatement(sql: "SELECT \(key) FROM \(table) WHERE originalTransactionId = ?"), arguments: [id]
                ).map { [$0] })
        }
        keys["subscriberSearch"] = [[]]
        let subscriptions = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT environment, ownership, firstStart, productId FROM subscription WHERE originalTransactionId = ?
                    """), arguments: [id])
        while let row = try subscriptions.next() {
            counts.add(
                CountDelta.subscription(
                    environment: row[0], ownership: row[1], firstStart: Instant(milliseconds: row[2]), productId: row[3]), -1)
            keys["subscription", default: []].insert([])
        }
        let periods = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT productId, billingDays, runIndex, start, countsForRetention, transactionId
                    FROM period WHERE originalTransactionId = ?
                    """), arguments: [id])
        // The paid periods counted for retention, per run: the cohort steps the runs were stored with.
        var paidStarts: [Int: [Int64]] = [:]
        var paidPeriods: [Int: [LTVMember.Period]] = [:]
        while let row = try periods.next() {
            counts.add(CountDelta.period(productId: row[0], billingDays: row[1]), -1)
            let transactionId: String = row[5]
            keys["period", default: []].insert([transactionId.databaseValue])
            if row[4] as Bool {
                paidStarts[row[2], default: []].append(row[3])
                paidPeriods[row[2], default: []].append(
                    LTVMember.Period(start: row[3], transactionId: transactionId, price: prices[transactionId] ?? nil))
            }
        }
        let segments = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT environment, start, "end", productId, state, ownership, billingPlan FROM segment
                    WHERE originalTransactionId = ?
                    """), arguments: [id])
        while let row = try segments.next() {
            let end: Int64 = row[2]
            counts.add(
                CountDelta.segment(
                    environment: row[0], ownership: row[5], start: Instant(milliseconds: row[1]),
                    end: end == AppDatabase.openEnd ? nil : Instant(milliseconds: end), productId: row[3], state: row[4],
                    billingPlan: row[6]), -1)
            keys["segment", default: []].insert([row[1]])
        }
        let events = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT \(DerivedTable.event.columns.dropFirst().joined(separator: ", ")), rowid
                    FROM event WHERE originalTransactionId = ?
                    """), arguments: [id])
        var storedEvents: [[DatabaseValue]: [Int64]] = [:]
        while let row = try events.next() {
            // environment, at, type, productId, expirationReason, transactionId, ownership, billingPlan
            counts.add(
                CountDelta.event(
                    environment: row[0], ownership: row[6], at: Instant(milliseconds: row[1]), productId: row[3], type: row[2],
                    expirationReason: row[4], billingPlan: row[7]), -1)
            storedEvents[(0..<8).map { row[$0] as DatabaseValue }, default: []].append(row[8])
        }
        let runs = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT environment, endedAt, firstPaidProductId, cohortMonth, runIndex, firstPaidStart, firstPaidBillingPlan
                    FROM run WHERE originalTransactionId = ?
                    """), arguments: [id])
        while let row = try runs.next() {
            keys["run", default: []].insert([row[4]])
            guard let firstPaidStart: Int64 = row[5], let product: String = row[2] else { continue }
            let environment: String = row[0]
            let plan = BillingPlan(rawValue: row[6] as String? ?? "") ?? .upfront
            let cohort = CohortMember(
                firstPaidStart: Instant(milliseconds: firstPaidStart), firstPaidProductId: product, billingPlan: plan,
                paidPeriodStarts: (paidStarts[row[4]] ?? []).map(Instant.init(milliseconds:)),
                endedAt: Instant(milliseconds: row[1]))
            counts.add(cohort.deltas(environment: environment), -1)
            let member = LTVMember(
                firstPaidStart: firstPaidStart, endedAt: row[1], cohortMonth: row[3], firstPaidProductId: product,
                billingPlan: plan, periods: paidPeriods[row[4]] ?? [])
            counts.add(member.deltas(environment: environment), -1)
        }
        return DerivedRows(replacing: id, keys: keys, events: storedEvents, db)
    }

    /// Counts every stored commitment of a purchased subscription into the kept committed counts,
    /// by ``KeptCommitment``'s rule, from the stored `commitment` rows and their charges (the
    /// migration that adds those tables).
    static func countStoredCommitments(_ db: Database) throws {
        var counts = Counts()
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT c.originalTransactionId, c.commitmentIndex, c.environment, c.productId, c.start, c.runningEnd,
                    c.price, c.currency, m.start, m.price, m.currency
                FROM commitment c
                LEFT JOIN periodMoney m ON m.originalTransactionId = c.originalTransactionId
                    AND m.commitmentIndex = c.commitmentIndex
                WHERE c.ownership = '\(Ownership.purchased.rawValue)'
                ORDER BY c.originalTransactionId, c.commitmentIndex
                """)
        var last: (id: String, index: Int, environment: String, commitment: KeptCommitment)?
        while let row = try rows.next() {
            let (id, index): (String, Int) = (row[0], row[1])
            if let l = last, l.id != id || l.index != index {
                counts.add(l.commitment.deltas(environment: l.environment), 1)
                last = nil
            }
            if last == nil {
                last = (
                    id, index, row[2],
                    KeptCommitment(
                        productId: row[3], start: Instant(milliseconds: row[4]), runningEnd: Instant(milliseconds: row[5]),
                        price: row[6], currency: row[7], charges: [])
                )
            }
            if let start: Int64 = row[8] {
                last!.commitment.charges.append(
                    Commitment.Charge(start: Instant(milliseconds: start), price: row[9], currency: row[10]))
            }
        }
        if let l = last { counts.add(l.commitment.deltas(environment: l.environment), 1) }
        try counts.write(db)
    }

    /// Counts every stored subscription's MRR intervals into the kept movement months, by
    /// ``MovementMonths``'s rule, from the stored `periodMoney` and `billingFailure` rows (the
    /// migration that adds `mrrMovementMonth`).
    static func countStoredMovement(_ db: Database) throws {
        try countStoredIntervals(db) { environment, _, intervals, firstCharge in
            MovementMonths.deltas(environment: environment, intervals: intervals, firstCharge: firstCharge)
        }
    }

    /// Counts every stored subscription's MRR intervals into `mrrChange` by ``MRRChanges``'s rule
    /// (the migration that adds it).
    static func countStoredChanges(_ db: Database) throws {
        try countStoredIntervals(db) { environment, id, intervals, firstCharge in
            MRRChanges.deltas(environment: environment, originalTransactionId: id, intervals: intervals, firstCharge: firstCharge)
        }
    }

    /// Counts what `rule` makes of every stored subscription's MRR intervals (per environment,
    /// with the subscription's id and first charge), from the stored `periodMoney` and
    /// `billingFailure` rows: `batch` subscriptions at a time, in `originalTransactionId` order,
    /// each batch's counts written before the next is read.
    private static func countStoredIntervals(
        _ db: Database, batch: Int = 20_000,
        rule: (_ environment: String, _ id: String, _ intervals: [MRRInterval], _ firstCharge: Int64) -> [CountDelta]
    ) throws {
        var after = ""
        while true {
            let ids = try String.fetchAll(
                db,
                sql: """
                    SELECT originalTransactionId FROM subscription
                    WHERE originalTransactionId > ? ORDER BY originalTransactionId LIMIT ?
                    """, arguments: [after, batch])
            guard let first = ids.first, let last = ids.last else { return }
            after = last
            // Per subscription: its intervals by environment and its first charge.
            var intervals: [String: [String: [MRRInterval]]] = [:]
            var firstCharge: [String: Int64] = [:]
            let periods = try Row.fetchCursor(
                db,
                sql: """
                    SELECT originalTransactionId, environment, start, "end", offerKind, productId, currency, price,
                        monthlyTwelfths, billingPlan
                    FROM periodMoney WHERE originalTransactionId BETWEEN ? AND ?
                    """, arguments: [first, last])
            while let row = try periods.next() {
                let (id, start): (String, Int64) = (row[0], row[2])
                firstCharge[id] = min(firstCharge[id] ?? start, start)
                if let interval = MRRInterval.period(
                    start: Instant(milliseconds: start), end: Instant(milliseconds: row[3]), key: MRRKey(row, from: 4))
                {
                    intervals[id, default: [:]][row[1], default: []].append(interval)
                }
            }
            let graces = try Row.fetchCursor(
                db,
                sql: """
                    SELECT f.originalTransactionId, f.environment, f.at, f.windowEnd, f.graceEnd, m.offerKind, m.productId,
                        m.currency, m.price, m.monthlyTwelfths, m.billingPlan
                    FROM billingFailure f JOIN periodMoney m ON m.transactionId = f.transactionId
                    WHERE f.originalTransactionId BETWEEN ? AND ? AND f.graceEnd IS NOT NULL
                    """, arguments: [first, last])
            while let row = try graces.next() {
                let grace = MRRInterval.grace(
                    at: Instant(milliseconds: row[2]), windowEnd: Instant(milliseconds: row[3]),
                    graceEnd: (row[4] as Int64?).map(Instant.init(milliseconds:)), key: MRRKey(row, from: 5))
                if let grace { intervals[row[0], default: [:]][row[1], default: []].append(grace) }
            }
            var counts = Counts()
            for (id, byEnvironment) in intervals {
                guard let charge = firstCharge[id] else { continue }
                for (environment, intervals) in byEnvironment {
                    counts.add(rule(environment, id, intervals, charge), 1)
                }
            }
            try counts.write(db)
        }
    }

    /// Counts every stored money row into `moneyDay`, `moneyMonth` and `chargeDay` by ``MoneyAmount``'s rule, in
    /// SQL (the migration that adds those tables).
    static func countStoredMoney(_ db: Database) throws {
        func day(_ column: String) -> String { "(\(AppDatabase.daySQL(column)))" }
        let amount = { (kind: String, instant: String, amount: String) in
            """
            SELECT environment, \(day(instant)), '\(kind)', productId, billingPlan, COALESCE(storefront, 'unknown'),
                COALESCE(currency, ''), COALESCE(\(amount), -1), proceedsRate, COUNT(*)
            FROM periodMoney WHERE \(instant) IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
            """
        }
        let kinds = MoneyAmount.kinds
        try db.execute(
            sql: """
                DELETE FROM moneyDay;
                DELETE FROM moneyMonth;
                DELETE FROM chargeDay;
                INSERT INTO moneyDay (environment, day, kind, productId, billingPlan, storefront, currency, amount,
                    proceedsRate, count)
                \(amount(kinds.charge, "start", "price"))
                UNION ALL
                \(amount(kinds.refund, "refundAt", "refundAmount"))
                UNION ALL
                \(amount(kinds.credit, "creditAt", "upgradeCredit"));
                INSERT INTO chargeDay (environment, day, refundDay, productId, billingPlan, count)
                SELECT environment, \(day("start")), COALESCE(\(day("refundAt")), \(CountDelta.noRefundDay)), productId,
                    billingPlan, COUNT(*)
                FROM periodMoney GROUP BY 1, 2, 3, 4, 5;
                INSERT INTO moneyMonth (environment, month, kind, productId, billingPlan, storefront, currency, amount,
                    proceedsRate, count)
                SELECT environment, \(AppDatabase.monthIndexOfDaySQL("day")), kind, productId, billingPlan, storefront, currency,
                    amount, proceedsRate, SUM(count)
                FROM moneyDay GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
                """)
    }

    /// Takes what a subscription's stored commitments add to the committed counts away (with their
    /// charges, from its money rows), and notes their keys.
    private func subtractCommitments(
        _ id: String, charges: [Int: [Commitment.Charge]], _ counts: inout Counts,
        _ keys: inout [String: Set<[DatabaseValue]>]
    ) throws {
        keys["commitment"] = []
        let commitments = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT commitmentIndex, environment, ownership, productId, start, runningEnd, price, currency
                    FROM commitment WHERE originalTransactionId = ?
                    """), arguments: [id])
        while let row = try commitments.next() {
            let index: Int = row[0]
            keys["commitment", default: []].insert([index.databaseValue])
            guard (row[2] as String) == Ownership.purchased.rawValue else { continue }
            let commitment = KeptCommitment(
                productId: row[3], start: Instant(milliseconds: row[4]), runningEnd: Instant(milliseconds: row[5]),
                price: row[6], currency: row[7], charges: charges[index] ?? [])
            counts.add(commitment.deltas(environment: row[1]), -1)
        }
    }

    /// Takes what a subscription's stored money rows add to the MRR and money counts away, and notes their
    /// keys. Returns each charged period's price and currency (nil when unpriced), by transaction
    /// id, and the charges of each commitment, by its index.
    private func subtractMoney(
        _ id: String, _ counts: inout Counts, _ keys: inout [String: Set<[DatabaseValue]>]
    ) throws -> (prices: [String: (amount: Int64, currency: String)?], charges: [Int: [Commitment.Charge]]) {
        let graces = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT f.environment, f.at, f.windowEnd, f.graceEnd, m.offerKind, m.productId, m.currency, m.price,
                        m.monthlyTwelfths, m.billingPlan
                    FROM billingFailure f JOIN periodMoney m ON m.transactionId = f.transactionId
                    WHERE f.originalTransactionId = ?
                    """), arguments: [id])
        // Its MRR intervals by environment, and its first charge: the movement rows it was stored with.
        var intervals: [String: [MRRInterval]] = [:]
        var firstCharge: Int64?
        while let row = try graces.next() {
            let grace = MRRInterval.grace(
                at: Instant(milliseconds: row[1]), windowEnd: Instant(milliseconds: row[2]),
                graceEnd: (row[3] as Int64?).map(Instant.init(milliseconds:)), key: MRRKey(row, from: 4))
            if let grace {
                counts.add(grace.deltas(environment: row[0]), -1)
                intervals[row[0], default: []].append(grace)
            }
        }
        let periods = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT environment, start, "end", offerKind, productId, currency, price, monthlyTwelfths, billingPlan,
                        transactionId, commitmentIndex, storefront, proceedsRate, refundAt, refundAmount, creditAt, upgradeCredit
                    FROM periodMoney WHERE originalTransactionId = ?
                    """), arguments: [id])
        var prices: [String: (amount: Int64, currency: String)?] = [:]
        var charges: [Int: [Commitment.Charge]] = [:]
        while let row = try periods.next() {
            let interval = MRRInterval.period(
                start: Instant(milliseconds: row[1]), end: Instant(milliseconds: row[2]), key: MRRKey(row, from: 3))
            if let interval {
                counts.add(interval.deltas(environment: row[0]), -1)
                intervals[row[0], default: []].append(interval)
            }
            let start: Int64 = row[1]
            firstCharge = min(firstCharge ?? start, start)
            counts.add(
                MoneyAmount.deltas(
                    environment: row[0], productId: row[4], billingPlan: row[8], storefront: row[11],
                    start: Instant(milliseconds: row[1]), price: row[6], currency: row[5], proceedsRate: row[12],
                    refundAt: (row[13] as Int64?).map(Instant.init(milliseconds:)), refundAmount: row[14],
                    creditAt: (row[15] as Int64?).map(Instant.init(milliseconds:)), upgradeCredit: row[16]), -1)
            let (amount, currency): (Int64?, String?) = (row[6], row[5])
            prices[row[9]] = amount.flatMap { a in currency.map { (a, $0) } }
            keys["periodMoney", default: []].insert([row[9]])
            if let commitment: Int = row[10] {
                charges[commitment, default: []].append(
                    Commitment.Charge(start: Instant(milliseconds: row[1]), price: amount, currency: currency))
            }
        }
        if let firstCharge {
            for (environment, intervals) in intervals {
                counts.add(MovementMonths.deltas(environment: environment, intervals: intervals, firstCharge: firstCharge), -1)
                counts.add(
                    MRRChanges.deltas(
                        environment: environment, originalTransactionId: id, intervals: intervals, firstCharge: firstCharge), -1)
            }
        }
        return (prices, charges)
    }

    /// One `periodMoney` row per charged period (docs/metrics.md "Money").
    private func insertMoney(_ t: SubscriptionTimeline, money: [PeriodMoney], _ rows: inout DerivedRows) throws {
        guard !t.periods.isEmpty else { return }
        let env = t.environment.counted.rawValue
        for (i, u) in t.offerUses.enumerated() {
            // The run's paid periods as `period.countsForRetention` marks them: those from the next
            // period on, and the last start (offer retention reads them instead of the periods).
            let counted = t.periods.filter { $0.runIndex == u.runIndex && $0.countsForRetention }.map(\.start)
            let fromNext = u.nextStart.map { next in counted.filter { $0 >= next }.count } ?? 0
            try rows.write(.offerUse, key: [i.databaseValue]) { use in
                try use.run(
                    db, t.originalTransactionId, i, env, u.offerKind.rawValue, u.offerIdentifier, u.productId,
                    u.start.milliseconds, u.runIndex, u.nextStart?.milliseconds, u.nextIsStandard,
                    t.runs[u.runIndex].endedAt.milliseconds, fromNext,
                    u.nextStart == nil ? nil : counted.max()?.milliseconds, u.billingPlan.rawValue)
            }
        }
        var commitmentOfPeriod: [Int: Int] = [:]
        for (c, commitment) in t.commitments.enumerated() {
            for p in commitment.firstPeriod...commitment.lastPeriod { commitmentOfPeriod[p] = c }
            try rows.write(.commitment, key: [c.databaseValue]) { statement in
                try statement.run(
                    db, t.originalTransactionId, c, env, t.ownership.rawValue, t.periods[commitment.firstPeriod].productId,
                    commitment.start.milliseconds, commitment.runningEnd.milliseconds, commitment.ends?.milliseconds,
                    commitment.price, commitment.currency)
            }
        }
        for (i, (p, m)) in zip(t.periods, money).enumerated() where m.isCharged {
            try rows.write(.periodMoney, key: [p.transactionId.databaseValue]) { statement in
                try statement.run(
                    db, p.transactionId, t.originalTransactionId, env, p.productId, p.storefront,
                    p.offerKind.rawValue, p.start.milliseconds, p.end.milliseconds, m.price, m.currency,
                    m.priceSource?.rawValue, m.proceedsRate, p.isPaid, m.refundAt?.milliseconds, m.refundAmount,
                    m.creditAt?.milliseconds, m.upgradeCredit, m.monthlyTwelfths, p.billingPlan.rawValue,
                    commitmentOfPeriod[i])
            }
        }
    }

    private func insert(_ t: SubscriptionTimeline, segments: [SubscriptionTimeline.Segment], _ rows: inout DerivedRows) throws {
        let id = t.originalTransactionId
        let env = t.environment.counted.rawValue
        let owner = t.ownership.rawValue
        let last = t.periods[t.periods.count - 1]
        let lastEvent = t.events.last
        try rows.write(.subscription, key: []) { statement in
            try statement.run(
                db, id, env, last.productId, t.periods[0].start.milliseconds, last.start.milliseconds, t.periods.count,
                t.runs.count, t.billingFailures.count, t.autoRenewProductId, t.priceIncreaseStatus, t.appAccountToken,
                lastEvent?.at.milliseconds, lastEvent?.type.rawValue, t.dataHorizon?.milliseconds, owner)
        }

        // The ids pane 1 shows and searches (after `subscription`: the customer is linked through its token).
        try rows.writeSearch(
            selecting: """
                SELECT s.originalTransactionId, \(AppDatabase.customerSQL("userId")), \(AppDatabase.customerSQL("email")),
                    COALESCE(NULLIF(s.appAccountToken, ''), \(AppDatabase.customerSQL("appAccountToken")))
                FROM subscription s WHERE s.originalTransactionId = ?
                """)

        let product = try db.cachedStatement(
            sql: "INSERT INTO product (environment, productId) VALUES (?, ?) ON CONFLICT DO NOTHING")
        var products = Set<String>()
        for p in t.periods where products.insert(p.productId).inserted { try product.run(db, env, p.productId) }
        for p in t.periods {
            let billingDays = p.billingDays
            try rows.write(.period, key: [p.transactionId.databaseValue]) { period in
                try period.run(
                    db, p.transactionId, id, env, p.runIndex, p.productId, p.start.milliseconds, p.end.milliseconds,
                    p.offerKind.rawValue, p.periodClass.rawValue, p.isPaid, p.isRefunded, p.isCutByUpgrade,
                    p.countsForRetention, billingDays)
            }
        }

        for (i, r) in t.runs.enumerated() {
            try rows.write(.run, key: [i.databaseValue]) { run in
                try run.run(
                    db, id, i, env, r.start.milliseconds, r.endedAt.milliseconds, r.expirationReason.rawValue,
                    r.firstPaidStart?.milliseconds, r.firstPaidStart?.month.index, r.firstPaidProductId,
                    r.paidPeriodStarts.count, r.paidPeriodStarts.last?.milliseconds, owner,
                    (t.firstPaidBillingPlan(of: r) ?? .upfront).rawValue)
            }
        }

        for s in segments {
            let end = s.end?.milliseconds ?? AppDatabase.openEnd
            try rows.write(.segment, key: [s.start.milliseconds.databaseValue]) { segment in
                try segment.run(
                    db, id, env, s.start.milliseconds, end, s.state.rawValue, s.productId, s.autoRenew, s.runIndex,
                    s.paidPeriods, s.periodDays, s.graceEnd?.milliseconds, owner, s.billingPlan.rawValue)
            }
        }

        for e in t.events {
            try rows.writeEvent([
                env.databaseValue, e.at.milliseconds.databaseValue, e.type.rawValue.databaseValue, e.productId.databaseValue,
                e.expirationReason?.rawValue.databaseValue ?? .null, e.transactionId.databaseValue, owner.databaseValue,
                e.billingPlan.rawValue.databaseValue,
            ])
        }

        for f in t.billingFailures {
            try rows.write(.billingFailure, key: [f.transactionId.databaseValue]) { failure in
                try failure.run(
                    db, id, env, f.at.milliseconds, f.transactionId, f.productId,
                    f.gracePeriodExpiresDate?.milliseconds, f.retryEnd.milliseconds,
                    f.windowEnd.milliseconds, f.recoveryStart?.milliseconds, owner)
            }
        }
    }
}

extension CountDelta.Value {
    var databaseValue: DatabaseValue {
        switch self {
        case .text(let text): text.databaseValue
        case .integer(let integer): integer.databaseValue
        }
    }
}
