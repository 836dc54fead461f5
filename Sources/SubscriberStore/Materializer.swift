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
                try insert(d.timeline, &counts, &rows)
                try insertMoney(d.timeline, priceTable: priceTable, &counts, &rows)
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

        /// A table counted per day (`STEMDay`) and its twin per month (`STEMMonth`): keyed by
        /// environment, then the day or month, then `keyColumns`.
        static func byDayAndMonth(
            _ stem: String, keyColumns: [String], countColumns: [String]
        ) -> (days: CountChanges, months: CountChanges) {
            func table(_ period: String, _ suffix: String) -> CountChanges {
                CountChanges(table: stem + suffix, keyColumns: ["environment", period] + keyColumns, countColumns: countColumns)
            }
            return (table("day", "Day"), table("month", "Month"))
        }

        mutating func add(_ key: [DatabaseValue], column: Int = 0, _ change: Int) {
            changes[key, default: Array(repeating: 0, count: countColumns.count)][column] += change
        }

        func write(_ db: Database) throws {
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

    /// What `store` changes in the tables of counts.
    struct Counts {
        var segmentDays = CountChanges(
            table: "segmentDay", keyColumns: ["environment", "ownership", "day", "productId", "state"],
            countColumns: ["starts", "ends"])
        var eventDays = CountChanges(
            table: "eventDay",
            keyColumns: ["environment", "ownership", "day", "productId", "type", "expirationReason"],
            countColumns: ["count"])
        var productDurations = CountChanges(
            table: "productDuration", keyColumns: ["productId", "billingDays"],
            countColumns: ["count"])
        var subscriptionStartDays = CountChanges(
            table: "subscriptionStartDay",
            keyColumns: ["environment", "ownership", "day", "productId"], countColumns: ["count"])
        var (cohortStepDays, cohortStepMonths) = CountChanges.byDayAndMonth(
            "cohortStep", keyColumns: ["firstPaidProductId", "cohortMonth", "step"], countColumns: ["count"])
        var (mrrDays, mrrMonths) = CountChanges.byDayAndMonth(
            "mrr", keyColumns: ["offerKind", "productId", "currency", "price", "monthlyTwelfths", "billingPlan"],
            countColumns: ["starts", "ends"])

        var ltvMemberDays = CountChanges.signed(
            table: "ltvMemberDay", keyColumns: ["environment", "day"] + AppDatabase.ltvMemberColumns, countColumns: ["count"])
        var ltvMemberMonths = CountChanges.signed(
            table: "ltvMemberMonth", keyColumns: ["environment", "month"] + AppDatabase.ltvMemberColumns,
            countColumns: ["count"])
        var ltvPriceDays = CountChanges.signed(
            table: "ltvPriceDay", keyColumns: ["environment", "day"] + AppDatabase.ltvPriceColumns, countColumns: ["count"])
        var ltvPriceMonths = CountChanges.signed(
            table: "ltvPriceMonth", keyColumns: ["environment", "month"] + AppDatabase.ltvPriceColumns,
            countColumns: ["count"])

        /// A cohort member stored (+1) or removed (-1): the changes of its realized-LTV state, each
        /// on the day and the month it happens (`LTVSums`).
        mutating func ltvMember(environment: String, firstPaidProductId: String, _ member: LTVMember, _ sign: Int) {
            let (env, product) = (environment.databaseValue, firstPaidProductId.databaseValue)
            let cohortMonth = member.cohortMonth.databaseValue
            member.changes { at, state, change in
                let instant = Instant(milliseconds: at)
                let day = AppDatabase.day(of: instant).databaseValue
                let month = instant.month.index.databaseValue
                let m = state.member
                let memberKey = [product, cohortMonth, m.group.databaseValue, m.paidPeriods.databaseValue, m.ended.databaseValue]
                ltvMemberDays.add([env, day] + memberKey, change * sign)
                ltvMemberMonths.add([env, month] + memberKey, change * sign)
                for p in state.prices {
                    let priceKey = [
                        product, cohortMonth, p.group.databaseValue, p.period.databaseValue, p.currency.databaseValue,
                        p.priceMonth.databaseValue, p.price.databaseValue,
                    ]
                    ltvPriceDays.add([env, day] + priceKey, change * sign)
                    ltvPriceMonths.add([env, month] + priceKey, change * sign)
                }
            }
        }

        /// An interval MRR counts (a charged period, or a grace period after one) stored (+1) or
        /// removed (-1): its start and its end, by day and by month. An empty one covers no instant.
        mutating func mrrInterval(environment: String, key: MRRKey, start: Int64, end: Int64, _ sign: Int) {
            guard start < end else { return }
            let env = environment.databaseValue
            mrrDays.add([env, Self.day(start)] + key.storedValues, sign)
            mrrDays.add([env, Self.day(end)] + key.storedValues, column: 1, sign)
            mrrMonths.add([env, Instant(milliseconds: start).month.index.databaseValue] + key.storedValues, sign)
            mrrMonths.add([env, Instant(milliseconds: end).month.index.databaseValue] + key.storedValues, column: 1, sign)
        }

        /// A period stored or removed: standard ones count towards their product's billing duration.
        mutating func period(productId: String, billingDays: Int?, _ sign: Int) {
            guard let billingDays else { return }
            productDurations.add([productId.databaseValue, billingDays.databaseValue], sign)
        }

        /// An event stored or removed.
        mutating func event(
            environment: String, ownership: String, at: Int64, productId: String, type: String,
            expirationReason: String?, _ sign: Int
        ) {
            eventDays.add(
                [
                    environment.databaseValue, ownership.databaseValue, Self.day(at), productId.databaseValue, type.databaseValue,
                    (expirationReason ?? "").databaseValue,
                ], sign)
        }

        /// A segment stored (+1) or removed (-1): its start day, and its end day unless open-ended.
        mutating func segment(
            environment: String, ownership: String, start: Int64, end: Int64, productId: String,
            state: String, _ sign: Int
        ) {
            let (env, owner) = (environment.databaseValue, ownership.databaseValue)
            segmentDays.add([env, owner, Self.day(start), productId.databaseValue, state.databaseValue], sign)
            guard end != AppDatabase.openEnd else { return }
            segmentDays.add([env, owner, Self.day(end), productId.databaseValue, state.databaseValue], column: 1, sign)
        }

        /// A subscription stored or removed: counted on the day of its first start.
        mutating func subscription(environment: String, ownership: String, firstStart: Int64, productId: String, _ sign: Int) {
            subscriptionStartDays.add(
                [environment.databaseValue, ownership.databaseValue, Self.day(firstStart), productId.databaseValue],
                sign)
        }

        /// A cohort member's steps, stored or removed: its first paid start (step 0), the start of
        /// each paid period after the first (step k for paid period k+1) and its end (step −n, ended
        /// with n paid periods), each counted on its day and its month.
        mutating func cohortSteps(
            environment: String, firstPaidStart: Int64?, firstPaidProductId: String?,
            paidPeriodStarts: [Int64], endedAt: Int64, _ sign: Int
        ) {
            guard let firstPaidStart, let firstPaidProductId else { return }
            let (env, product) = (environment.databaseValue, firstPaidProductId.databaseValue)
            let cohortMonth = Instant(milliseconds: firstPaidStart).month.index.databaseValue
            func add(_ at: Int64, _ step: Int) {
                let instant = Instant(milliseconds: at)
                cohortStepDays.add(
                    [env, AppDatabase.day(of: instant).databaseValue, product, cohortMonth, step.databaseValue], sign)
                cohortStepMonths.add([env, instant.month.index.databaseValue, product, cohortMonth, step.databaseValue], sign)
            }
            add(firstPaidStart, 0)
            for (k, start) in paidPeriodStarts.enumerated() where k > 0 { add(start, k) }
            if !paidPeriodStarts.isEmpty { add(endedAt, -paidPeriodStarts.count) }
        }

        private static func day(_ milliseconds: Int64) -> DatabaseValue {
            AppDatabase.day(of: Instant(milliseconds: milliseconds)).databaseValue
        }

        func write(_ db: Database) throws {
            try segmentDays.write(db)
            try eventDays.write(db)
            try productDurations.write(db)
            try subscriptionStartDays.write(db)
            try cohortStepDays.write(db)
            try cohortStepMonths.write(db)
            try mrrDays.write(db)
            try mrrMonths.write(db)
            try ltvMemberDays.write(db)
            try ltvMemberMonths.write(db)
            try ltvPriceDays.write(db)
            try ltvPriceMonths.write(db)
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
        let prices = try subtractMoney(id, &counts, &keys)
        for (table, key) in [("billingFailure", "transactionId"), ("offerUse", "useIndex"), ("commitment", "commitmentIndex")] {
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
            counts.subscription(environment: row[0], ownership: row[1], firstStart: row[2], productId: row[3], -1)
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
            counts.period(productId: row[0], billingDays: row[1], -1)
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
                    SELECT environment, start, "end", productId, state, ownership FROM segment WHERE originalTransactionId = ?
                    """), arguments: [id])
        while let row = try segments.next() {
            counts.segment(
                environment: row[0], ownership: row[5], start: row[1], end: row[2], productId: row[3],
                state: row[4], -1)
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
            // environment, at, type, productId, expirationReason, transactionId, ownership
            counts.event(
                environment: row[0], ownership: row[6], at: row[1], productId: row[3], type: row[2], expirationReason: row[4], -1)
            storedEvents[(0..<7).map { row[$0] as DatabaseValue }, default: []].append(row[7])
        }
        let runs = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT environment, endedAt, firstPaidProductId, cohortMonth, runIndex, firstPaidStart
                    FROM run WHERE originalTransactionId = ?
                    """), arguments: [id])
        while let row = try runs.next() {
            counts.cohortSteps(
                environment: row[0], firstPaidStart: row[5], firstPaidProductId: row[2],
                paidPeriodStarts: (paidStarts[row[4]] ?? []).sorted(), endedAt: row[1], -1)
            keys["run", default: []].insert([row[4]])
            if let firstPaidStart: Int64 = row[5], let product: String = row[2] {
                let member = LTVMember(
                    firstPaidStart: firstPaidStart, endedAt: row[1], cohortMonth: row[3], periods: paidPeriods[row[4]] ?? [])
                counts.ltvMember(environment: row[0], firstPaidProductId: product, member, -1)
            }
        }
        return DerivedRows(replacing: id, keys: keys, events: storedEvents, db)
    }

    /// Takes what a subscription's stored money rows add to the MRR counts away, and notes their
    /// keys. Returns each charged period's price and currency (nil when unpriced), by transaction id.
    private func subtractMoney(
        _ id: String, _ counts: inout Counts, _ keys: inout [String: Set<[DatabaseValue]>]
    ) throws -> [String: (amount: Int64, currency: String)?] {
        let graces = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT f.environment, f.at, MIN(f.windowEnd, f.graceEnd), m.offerKind, m.productId, m.currency, m.price,
                        m.monthlyTwelfths, m.billingPlan
                    FROM billingFailure f JOIN periodMoney m ON m.transactionId = f.transactionId
                    WHERE f.originalTransactionId = ? AND f.graceEnd IS NOT NULL
                    """), arguments: [id])
        while let row = try graces.next() {
            counts.mrrInterval(environment: row[0], key: MRRKey(row, from: 3), start: row[1], end: row[2], -1)
        }
        let periods = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT environment, start, "end", offerKind, productId, currency, price, monthlyTwelfths, billingPlan,
                        transactionId
                    FROM periodMoney WHERE originalTransactionId = ?
                    """), arguments: [id])
        var prices: [String: (amount: Int64, currency: String)?] = [:]
        while let row = try periods.next() {
            counts.mrrInterval(environment: row[0], key: MRRKey(row, from: 3), start: row[1], end: row[2], -1)
            let (amount, currency): (Int64?, String?) = (row[6], row[5])
            prices[row[9]] = amount.flatMap { a in currency.map { (a, $0) } }
            keys["periodMoney", default: []].insert([row[9]])
        }
        return prices
    }

    /// One `periodMoney` row per charged period (docs/metrics.md "Money").
    private func insertMoney(
        _ t: SubscriptionTimeline, priceTable: PriceTable, _ counts: inout Counts, _ rows: inout DerivedRows
    ) throws {
        guard !t.periods.isEmpty else { return }
        let env = t.environment.counted.rawValue
        for (i, u) in t.offerUses.enumerated() {
            // The run's paid periods as `period.countsForRetention` marks them: those from the next
            // period on, and the last start (offer retention reads them instead of the periods).
            let counted = t.periods.filter { $0.runIndex == u.runIndex && $0.isPaid && !$0.isCutByUpgrade }.map(\.start)
            let fromNext = u.nextStart.map { next in counted.filter { $0 >= next }.count } ?? 0
            try rows.write(.offerUse, key: [i.databaseValue]) { use in
                try use.run(
                    db, t.originalTransactionId, i, env, u.offerKind.rawValue, u.offerIdentifier, u.productId,
                    u.start.milliseconds, u.runIndex, u.nextStart?.milliseconds, u.nextIsStandard,
                    t.runs[u.runIndex].endedAt.milliseconds, fromNext,
                    u.nextStart == nil ? nil : counted.max()?.milliseconds)
            }
        }
        var keys: [String: MRRKey] = [:]
        let money = t.money(priceTable: priceTable)
        var paidPeriods: [Int: [LTVMember.Period]] = [:]
        for (p, m) in zip(t.periods, money) where p.countsForRetention {
            let price = m.isCharged ? m.price.flatMap { a in m.currency.map { (a, $0) } } : nil
            paidPeriods[p.runIndex, default: []].append(
                LTVMember.Period(start: p.start.milliseconds, transactionId: p.transactionId, price: price))
        }
        for (i, r) in t.runs.enumerated() {
            guard let firstPaidStart = r.firstPaidStart, let product = r.firstPaidProductId else { continue }
            let member = LTVMember(
                firstPaidStart: firstPaidStart.milliseconds, endedAt: r.endedAt.milliseconds,
                cohortMonth: firstPaidStart.month.index, periods: paidPeriods[i] ?? [])
            counts.ltvMember(environment: env, firstPaidProductId: product, member, 1)
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
            let key = MRRKey(
                offerKind: p.offerKind.rawValue, productId: p.productId, currency: m.currency, price: m.price,
                monthlyTwelfths: m.monthlyTwelfths, billingPlan: p.billingPlan.rawValue)
            keys[p.transactionId] = key
            counts.mrrInterval(environment: env, key: key, start: p.start.milliseconds, end: p.end.milliseconds, 1)
        }
        // Grace after a charged period, as `billingFailure` keeps it: the first failure of each transaction.
        var seen = Set<String>()
        for f in t.billingFailures where seen.insert(f.transactionId).inserted {
            guard let key = keys[f.transactionId], let grace = f.gracePeriodExpiresDate else { continue }
            counts.mrrInterval(environment: env, key: key, start: f.at.milliseconds, end: min(f.windowEnd, grace).milliseconds, 1)
        }
    }

    private func insert(_ t: SubscriptionTimeline, _ counts: inout Counts, _ rows: inout DerivedRows) throws {
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
        counts.subscription(
            environment: env, ownership: owner, firstStart: t.periods[0].start.milliseconds,
            productId: last.productId, 1)

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
            // Only upfront standard periods tell a product's billing duration (an offer can run for
            // another length; a monthly payment of a commitment is a month of an annual product).
            let billingDays =
                p.offerKind == .standard && p.billingPlan == .upfront
                ? BillingDuration(lengthMilliseconds: p.expiresDate.milliseconds - p.start.milliseconds).days : nil
            try rows.write(.period, key: [p.transactionId.databaseValue]) { period in
                try period.run(
                    db, p.transactionId, id, env, p.runIndex, p.productId, p.start.milliseconds, p.end.milliseconds,
                    p.offerKind.rawValue, p.periodClass.rawValue, p.isPaid, p.isRefunded, p.isCutByUpgrade,
                    p.countsForRetention, billingDays)
            }
            counts.period(productId: p.productId, billingDays: billingDays, 1)
        }

        for (i, r) in t.runs.enumerated() {
            try rows.write(.run, key: [i.databaseValue]) { run in
                try run.run(
                    db, id, i, env, r.start.milliseconds, r.endedAt.milliseconds, r.expirationReason.rawValue,
                    r.firstPaidStart?.milliseconds, r.firstPaidStart?.month.index, r.firstPaidProductId,
                    r.paidPeriodStarts.count, r.paidPeriodStarts.last?.milliseconds, owner)
            }
            counts.cohortSteps(
                environment: env, firstPaidStart: r.firstPaidStart?.milliseconds,
                firstPaidProductId: r.firstPaidProductId, paidPeriodStarts: r.paidPeriodStarts.map(\.milliseconds),
                endedAt: r.endedAt.milliseconds, 1)
        }

        for s in Self.segments(of: t) {
            let end = s.end?.milliseconds ?? AppDatabase.openEnd
            try rows.write(.segment, key: [s.start.milliseconds.databaseValue]) { segment in
                try segment.run(
                    db, id, env, s.start.milliseconds, end, s.state.rawValue, s.productId, s.autoRenew, s.runIndex,
                    s.paidPeriods, s.periodDays, s.graceEnd?.milliseconds, owner)
            }
            counts.segment(
                environment: env, ownership: owner, start: s.start.milliseconds, end: end, productId: s.productId,
                state: s.state.rawValue, 1)
        }

        for e in t.events {
            try rows.writeEvent([
                env.databaseValue, e.at.milliseconds.databaseValue, e.type.rawValue.databaseValue, e.productId.databaseValue,
                e.expirationReason?.rawValue.databaseValue ?? .null, e.transactionId.databaseValue, owner.databaseValue,
            ])
            counts.event(
                environment: env, ownership: owner, at: e.at.milliseconds, productId: e.productId, type: e.type.rawValue,
                expirationReason: e.expirationReason?.rawValue, 1)
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

    struct Segment: Equatable {
        var start: Instant
        var end: Instant?
        var state: SubscriptionState
        var productId: String
        var autoRenew: Bool
        var runIndex: Int
        var paidPeriods: Int
        var periodDays: Double?
        var graceEnd: Instant?
    }

    /// The timeline cut at every state interval, auto-renew interval and period start.
    static func segments(of t: SubscriptionTimeline) -> [Segment] {
        var cuts = Set<Instant>()
        for s in t.stateIntervals { cuts.insert(s.from) }
        for a in t.autoRenewIntervals { cuts.insert(a.from) }
        for p in t.periods {
            cuts.insert(p.start)
            cuts.insert(p.end)
        }
        for f in t.billingFailures {
            cuts.insert(f.at)
            cuts.insert(f.windowEnd)
        }
        let first = t.periods[0].start
        let points = cuts.filter { $0 >= first }.sorted()
        var result: [Segment] = []
        var periodIndex = -1
        var failureIndex = 0
        for (i, at) in points.enumerated() {
            guard let interval = t.stateInterval(at: at) else { continue }
            while periodIndex + 1 < t.periods.count && t.periods[periodIndex + 1].start <= at { periodIndex += 1 }
            let runIndex = periodIndex >= 0 ? t.periods[periodIndex].runIndex : 0
            let covering = periodIndex >= 0 && at < t.periods[periodIndex].end ? t.periods[periodIndex] : nil
            while failureIndex < t.billingFailures.count && t.billingFailures[failureIndex].windowEnd <= at { failureIndex += 1 }
            var grace: Instant? = nil
            if failureIndex < t.billingFailures.count {
                let f = t.billingFailures[failureIndex]
                if f.at <= at && at < f.windowEnd { grace = f.gracePeriodExpiresDate }
            }
            let segment = Segment(
                start: at, end: i + 1 < points.count ? points[i + 1] : nil, state: interval.state,
                productId: interval.productId, autoRenew: t.autoRenew(at: at) ?? false, runIndex: runIndex,
                paidPeriods: t.runs.isEmpty ? 0 : t.runs[runIndex].paidPeriods(asOf: at),
                periodDays: covering.map {
                    Double($0.expiresDate.milliseconds - $0.start.milliseconds) / Double(Instant.millisecondsPerDay)
                },
                graceEnd: grace)
            // Merge with the previous segment when nothing differs but the start.
            if var previous = result.last, previous.end == at,
                previous.state == segment.state, previous.productId == segment.productId,
                previous.autoRenew == segment.autoRenew, previous.runIndex == segment.runIndex,
                previous.paidPeriods == segment.paidPeriods, previous.periodDays == segment.periodDays,
                previous.graceEnd == segment.graceEnd
            {
                previous.end = segment.end
                result[result.count - 1] = previous
            } else {
                result.append(segment)
            }
        }
        return result
    }
}
