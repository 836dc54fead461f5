import GRDB
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

/// The SampleData store, its data horizon, and the products `sql` lists.
func sampleStore(products sql: String) throws -> (SubscriberAnalytics, Instant, [String]) {
    let analytics = try SampleDataConsistencyTests.store()
    let horizon = try #require(try analytics.dataHorizon())
    return (analytics, horizon, try analytics.database.writer.read { db in try String.fetchAll(db, sql: sql) })
}

/// States at an instant are read from per-day counts of segments started and ended plus the few
/// segments between the nearest day boundary and the instant. They must equal the definition —
/// the segments with start <= t < end — at any instant: on day boundaries, a millisecond either
/// side, either side of midday (the two ways a boundary is chosen), at segment edges, before the
/// first subscription and after the last.
@Suite struct StatesAtAnyInstantTests {
    static func byDefinition(_ db: Database, at t: Instant, scope: ReportScope) throws -> [SubscriptionState: Int] {
        var sql = "SELECT state, COUNT(*) FROM segment WHERE start <= ?1 AND \"end\" > ?1"
        var arguments: StatementArguments = [t.milliseconds]
        switch scope.environment {
        case .production: sql += " AND environment = 'Production'"
        case .sandbox: sql += " AND environment = 'Sandbox'"
        case .all: break
        }
        sql += " AND ownership IN (" + scope.ownership.ownerships.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
        if let product = scope.productId {
            sql += " AND productId = ?2"
            arguments += [product]
        }
        var counts: [SubscriptionState: Int] = [:]
        for row in try Row.fetchAll(db, sql: sql + " GROUP BY state", arguments: arguments) {
            counts[try #require(SubscriptionState(rawValue: row[0]))] = row[1]
        }
        return counts
    }

    @Test func statesEqualTheDefinitionAtEveryKindOfInstant() throws {
        let analytics = try SampleDataConsistencyTests.store()
        let horizon = try #require(try analytics.dataHorizon())
        let (products, edges) = try analytics.database.writer.read { db in
            (
                try String.fetchAll(db, sql: "SELECT DISTINCT productId FROM segment ORDER BY 1"),
                try Int64.fetchAll(db, sql: "SELECT start FROM segment ORDER BY originalTransactionId LIMIT 40")
            )
        }
        #expect(products.count >= 2)
        let day = Instant.millisecondsPerDay
        let firstDay = UTCCalendar.instant(year: 2023, month: 12, day: 30)
        var instants: [Instant] = []
        // Every 67 hours from before the first subscription to after the horizon: all hours of the day.
        var t = firstDay
        while t <= horizon.adding(days: 3) {
            instants.append(t)
            t = t.adding(hours: 67)
        }
        // Day boundaries and a millisecond either side; midday and a millisecond either side.
        for d in stride(from: Int64(0), to: 760, by: 37) {
            let boundary = firstDay.adding(days: d)
            for offset: Int64 in [-1, 0, 1, day / 2 - 1, day / 2, day / 2 + 1] {
                instants.append(boundary.adding(milliseconds: offset))
            }
        }
        // The edges of segments, where one state hands over to the next.
        for e in edges { for offset: Int64 in [-1, 0, 1] { instants.append(Instant(milliseconds: e + offset)) } }
        instants.append(horizon)

        var scopes = [
            ReportScope(), ReportScope(environment: .all), ReportScope(environment: .sandbox),
            ReportScope(ownership: .familyShared), ReportScope(ownership: .all),
        ]
        scopes += products.prefix(2).map { ReportScope(productId: $0) }
        var nonEmpty = 0
        for scope in scopes {
            for instant in instants {
                let expected = try analytics.database.writer.read { try Self.byDefinition($0, at: instant, scope: scope) }
                let counts = try analytics.states(asOf: instant, scope: scope).counts
                #expect(counts == expected, "\(instant) \(scope)")
                if !expected.isEmpty { nonEmpty += 1 }
            }
            // The daily series counts each sample the same way.
            let daily = try analytics.dailyStates(endingAt: horizon, days: 45, scope: scope)
            for d in stride(from: 0, to: 45, by: 4) {
                let expected = try analytics.database.writer.read {
                    try Self.byDefinition($0, at: horizon.adding(days: Int64(d - 44)), scope: scope)
                }
                for s in SubscriptionState.allCases {
                    #expect((daily[s]?[d] ?? 0) == (expected[s] ?? 0), "\(s) day \(d) \(scope)")
                }
            }
        }
        #expect(nonEmpty > instants.count * 3)
    }
}

/// `segmentDay` is kept by the materialiser: after an import, and after the derived rows of
/// subscriptions whose facts changed are replaced, it equals the counts recomputed from `segment`.
@Suite struct SegmentDayCountsTests {
    static func recomputed(_ db: Database) throws -> [Row] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT environment, ownership, day, productId, state, billingPlan, SUM(starts) AS starts, SUM(ends) AS ends FROM (
                    SELECT environment, ownership, start / 86400000 AS day, productId, state, billingPlan, 1 AS starts, 0 AS ends
                    FROM segment
                    UNION ALL
                    SELECT environment, ownership, "end" / 86400000, productId, state, billingPlan, 0, 1 FROM segment
                    WHERE "end" <> \(AppDatabase.openEnd))
                GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
                """)
    }

    static func kept(_ db: Database) throws -> [Row] {
        try Row.fetchAll(
            db,
            sql:
                "SELECT environment, ownership, day, productId, state, billingPlan, starts, ends FROM segmentDay ORDER BY 1, 2, 3, 4, 5, 6"
        )
    }

    static func eventsRecomputed(_ db: Database) throws -> [Row] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT environment, ownership, at / 86400000 AS day, productId, type,
                       COALESCE(expirationReason, '') AS expirationReason, billingPlan, COUNT(*) AS count
                FROM event GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7
                """)
    }

    static func eventsKept(_ db: Database) throws -> [Row] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT environment, ownership, day, productId, type, expirationReason, billingPlan, count FROM eventDay
                ORDER BY 1, 2, 3, 4, 5, 6, 7
                """)
    }

    /// Every cohort member's steps from `run` and `period`, per day (docs/metrics.md "Retention
    /// cohorts"): 0 at its first paid start, k at the start of paid period k+1, −n at its end.
    static func cohortStepsRecomputed(_ db: Database) throws -> [String] {
        var steps: [[String]: Int] = [:]
        let runs = try Row.fetchAll(
            db,
            sql: """
                SELECT environment, originalTransactionId, runIndex, firstPaidStart, firstPaidProductId, cohortMonth, endedAt,
                    firstPaidBillingPlan
                FROM run WHERE firstPaidStart IS NOT NULL
                """)
        for run in runs {
            let starts = try Int64.fetchAll(
                db,
                sql: """
                    SELECT start FROM period WHERE originalTransactionId = ? AND runIndex = ? AND countsForRetention ORDER BY start
                    """, arguments: [run[1], run[2]])
            func add(_ at: Int64, _ step: Int) {
                let day = at >= 0 ? at / 86_400_000 : (at - 86_399_999) / 86_400_000
                let key = [run[0] as String, "\(day)", run[4] as String, "\(run[5] as Int)", "\(step)", run[7] as String]
                steps[key, default: 0] += 1
            }
            add(run[3], 0)
            for (k, start) in starts.enumerated() where k > 0 { add(start, k) }
            if !starts.isEmpty { add(run[6], -starts.count) }
        }
        return steps.map { "\($0.key.joined(separator: " ")) \($0.value)" }.sorted()
    }

    static func cohortStepsKept(_ db: Database) throws -> [String] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT environment, day, firstPaidProductId, cohortMonth, step, billingPlan, count FROM cohortStepDay
                """
        ).map {
            "\($0[0] as String) \($0[1] as Int) \($0[2] as String) \($0[3] as Int) \($0[4] as Int) \($0[5] as String) \($0[6] as Int)"
        }.sorted()
    }

    /// The month table is the day table summed by month.
    static func cohortMonthsMatchDays(_ db: Database) throws -> Bool {
        let fromDays = try Row.fetchAll(
            db,
            sql: """
                SELECT environment, \(monthOfDay("day")) AS month, firstPaidProductId, cohortMonth, step, billingPlan,
                    SUM(count) AS count
                FROM cohortStepDay
                GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
                """)
        let kept = try Row.fetchAll(
            db,
            sql: """
                SELECT environment, month, firstPaidProductId, cohortMonth, step, billingPlan, count FROM cohortStepMonth
                ORDER BY 1, 2, 3, 4, 5, 6
                """)
        return !kept.isEmpty && fromDays == kept
    }

    static func monthOfDay(_ day: String) -> String {
        "((CAST(strftime('%Y', \(day) * 86400, 'unixepoch') AS INTEGER) - 1970) * 12 + CAST(strftime('%m', \(day) * 86400, 'unixepoch') AS INTEGER) - 1)"
    }

    static func startsRecomputed(_ db: Database) throws -> [Row] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT environment, ownership, firstStart / 86400000 AS day, productId, COUNT(*) AS count FROM subscription
                GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
                """)
    }

    static func startsKept(_ db: Database) throws -> [Row] {
        try Row.fetchAll(
            db, sql: "SELECT environment, ownership, day, productId, count FROM subscriptionStartDay ORDER BY 1, 2, 3, 4")
    }

    @Test func countsFollowImportsAndReplacedRows() throws {
        // This test writes: a copy of the shared store of its own.
        let database = try SampleDataStore.copy(.sharedSecret)
        let original = try database.writer.read { db in try Self.recomputed(db) }
        #expect(original.count > 1000)
        #expect(try database.writer.read { db in try Self.kept(db) } == original)
        let originalEvents = try database.writer.read { db in try Self.eventsRecomputed(db) }
        #expect(originalEvents.count > 1000)
        #expect(try database.writer.read { db in try Self.eventsKept(db) } == originalEvents)
        let originalStarts = try database.writer.read { db in try Self.startsRecomputed(db) }
        #expect(originalStarts.count > 100)
        #expect(try database.writer.read { db in try Self.startsKept(db) } == originalStarts)
        let originalSteps = try database.writer.read { db in try Self.cohortStepsRecomputed(db) }
        #expect(originalSteps.count > 1000)
        #expect(try database.writer.read { db in try Self.cohortStepsKept(db) } == originalSteps)
        #expect(try database.writer.read { db in try Self.cohortMonthsMatchDays(db) })

        // Take the latest transaction away from 80 subscriptions and rebuild them: their segments
        // are replaced by shorter lives, and the counts follow, down to rows that fall to zero.
        try database.takeLatestTransactionAway(fromSubscriptions: 80)
        #expect(try database.rebuildPending() == 80)
        let (kept, recomputed) = try database.writer.read { db in (try Self.kept(db), try Self.recomputed(db)) }
        #expect(kept == recomputed)
        #expect(recomputed != original)
        let (eventsKept, eventsRecomputed) = try database.writer.read { db in
            (try Self.eventsKept(db), try Self.eventsRecomputed(db))
        }
        #expect(eventsKept == eventsRecomputed)
        #expect(eventsRecomputed != originalEvents)
        let (startsKept, startsRecomputed) = try database.writer.read { db in
            (try Self.startsKept(db), try Self.startsRecomputed(db))
        }
        #expect(startsKept == startsRecomputed)
        let (stepsKept, stepsRecomputed) = try database.writer.read { db in
            (try Self.cohortStepsKept(db), try Self.cohortStepsRecomputed(db))
        }
        #expect(stepsKept == stepsRecomputed)
        #expect(stepsRecomputed != originalSteps)
        #expect(try database.writer.read { db in try Self.cohortMonthsMatchDays(db) })

        // A segment is never changed in place: the counts could not follow it.
        try database.writer.write { db in
            do {
                try db.execute(
                    sql:
                        "UPDATE segment SET state = 'expired' WHERE originalTransactionId = (SELECT originalTransactionId FROM segment LIMIT 1)"
                )
                Issue.record("an update of a segment was allowed")
            } catch let error as DatabaseError {
                #expect(error.message == "segments are replaced, never updated (segmentDay counts them)")
            }
            #expect(throws: DatabaseError.self) { try db.execute(sql: "UPDATE run SET endedAt = 0") }
        }
    }
}

/// Pane 1 counts every subscriber from per-day counts of first starts plus the subscriptions begun
/// on as-of's day. At any instant it must equal the subscriptions counted one by one.
@Suite struct SubscriberCountAtAnyInstantTests {
    @Test func theCountOfEverySubscriberEqualsTheSubscriptionsBegunByAsOf() throws {
        let (analytics, horizon, products) = try sampleStore(products: "SELECT DISTINCT productId FROM subscription ORDER BY 1")
        let day = Instant.millisecondsPerDay
        let firstStarts = try analytics.database.writer.read { db in
            try Int64.fetchAll(db, sql: "SELECT firstStart FROM subscription ORDER BY originalTransactionId LIMIT 20")
        }
        var instants = [horizon, horizon.adding(days: 30), UTCCalendar.instant(year: 2020, month: 1, day: 1)]
        for d in stride(from: Int64(0), to: 760, by: 41) {
            let boundary = UTCCalendar.instant(year: 2024, month: 1, day: 1).adding(days: d)
            for offset: Int64 in [-1, 0, 1, day / 2] { instants.append(boundary.adding(milliseconds: offset)) }
        }
        for e in firstStarts { for offset: Int64 in [-1, 0, 1] { instants.append(Instant(milliseconds: e + offset)) } }
        let scopes =
            [
                ReportScope(), ReportScope(environment: .all), ReportScope(environment: .sandbox),
                ReportScope(ownership: .familyShared), ReportScope(ownership: .all),
            ] + products.prefix(2).map { ReportScope(productId: $0) }
        var nonZero = 0
        for scope in scopes {
            for asOf in instants {
                var sql = "SELECT COUNT(*) FROM subscription WHERE firstStart <= ?"
                var arguments: StatementArguments = [asOf.milliseconds]
                sql +=
                    " AND environment IN (" + scope.environment.environments.map { "'\($0.rawValue)'" }.joined(separator: ", ")
                    + ")"
                sql += " AND ownership IN (" + scope.ownership.ownerships.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
                if let product = scope.productId {
                    sql += " AND productId = ?"
                    arguments += [product]
                }
                let expected = try analytics.database.writer.read { db in
                    try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0
                }
                #expect(try analytics.subscriberCount(asOf: asOf, scope: scope) == expected, "\(asOf) \(scope)")
                if expected > 0 { nonZero += 1 }
            }
        }
        #expect(nonZero > instants.count * 3)
    }
}

/// The cohort grid reads the steps before as-of's day from `cohortStepMonth` and `cohortStepDay`
/// and those of as-of's day one by one. At any as-of it must equal the grid computed from every run.
@Suite struct CohortsAtAnyInstantTests {
    /// (cohort month, paid periods started at as-of, ended at as-of) → runs, from every run.
    static func byDefinition(_ db: Database, asOf: Instant, productId: String?, products: [String]? = nil) throws -> [String] {
        var sql = """
            SELECT cohortMonth,
                   (SELECT COUNT(*) FROM period p WHERE p.originalTransactionId = r.originalTransactionId
                      AND p.runIndex = r.runIndex AND p.countsForRetention AND p.start <= ?1) AS paid,
                   endedAt <= ?1, COUNT(*)
            FROM run r WHERE environment = 'Production' AND firstPaidStart IS NOT NULL AND firstPaidStart <= ?1
            """
        var arguments: StatementArguments = [asOf.milliseconds]
        if let productId {
            sql += " AND firstPaidProductId = ?2"
            arguments += [productId]
        }
        if let products { sql += " AND firstPaidProductId IN (\(products.map { "'\($0)'" }.joined(separator: ", ")))" }
        return try Row.fetchAll(db, sql: sql + " GROUP BY 1, 2, 3", arguments: arguments).map {
            "\($0[0] as Int) \($0[1] as Int) \($0[2] as Int) \($0[3] as Int)"
        }
    }

    /// The grid those histograms give, in the report's own terms.
    static func grid(_ cells: [String], periods: Int) -> [Int: (started: Int, retained: [Int], ended: [Int])] {
        var rows: [Int: (started: Int, retained: [Int], ended: [Int])] = [:]
        for cell in cells {
            let v = cell.split(separator: " ").map { Int($0)! }
            var row = rows[v[0]] ?? (0, Array(repeating: 0, count: periods), Array(repeating: 0, count: periods))
            row.started += v[3]
            for k in 1...periods {
                if v[1] >= k + 1 { row.retained[k - 1] += v[3] }
                if v[1] == k && v[2] == 1 { row.ended[k - 1] += v[3] }
            }
            rows[v[0]] = row
        }
        return rows
    }

    @Test func cohortsEqualTheGridOfEveryRunAtEveryKindOfInstant() throws {
        let (analytics, horizon, products) = try sampleStore(
            products: "SELECT DISTINCT firstPaidProductId FROM run WHERE firstPaidProductId IS NOT NULL ORDER BY 1")
        let day = Instant.millisecondsPerDay
        let firstDay = UTCCalendar.instant(year: 2024, month: 1, day: 1)
        var instants: [Instant] = [horizon, horizon.adding(days: 40)]
        for d in stride(from: Int64(0), to: 760, by: 29) {
            for offset: Int64 in [-1, 0, 1, day / 3] { instants.append(firstDay.adding(days: d).adding(milliseconds: offset)) }
        }
        // A millisecond either side of paid period starts, first paid starts and run ends: what
        // happens on as-of's own day is read one by one, up to as-of.
        let edges = try analytics.database.writer.read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT start FROM (SELECT start FROM period WHERE countsForRetention ORDER BY transactionId LIMIT 15)
                    UNION ALL SELECT firstPaidStart FROM (SELECT firstPaidStart FROM run WHERE firstPaidStart IS NOT NULL
                        ORDER BY originalTransactionId LIMIT 8)
                    UNION ALL SELECT endedAt FROM (SELECT endedAt FROM run WHERE paidPeriodCount > 0 ORDER BY originalTransactionId DESC LIMIT 8)
                    """)
        }
        for e in edges { for offset: Int64 in [-1, 0, 1] { instants.append(Instant(milliseconds: e + offset)) } }
        var members = 0
        for productId in [nil] + products.prefix(2).map(Optional.some) {
            for asOf in instants {
                let expected = Self.grid(
                    try analytics.database.writer.read { try Self.byDefinition($0, asOf: asOf, productId: productId) },
                    periods: 6)
                let grid = try analytics.cohorts(asOf: asOf, periods: 6, scope: ReportScope(productId: productId))
                for row in grid.cohorts {
                    let e = expected[row.month.index] ?? (0, Array(repeating: 0, count: 6), Array(repeating: 0, count: 6))
                    #expect(
                        row.started == e.started && row.retained == e.retained && row.ended == e.ended,
                        "\(row.month) at \(asOf) \(productId ?? "all products")")
                    members += row.started
                }
                #expect(grid.cohorts.reduce(0) { $0 + $1.started } == expected.values.reduce(0) { $0 + $1.started }, "\(asOf)")
            }
        }
        #expect(members > 10_000)
    }

    /// The products of each billing duration, from every standard period's own transaction: the
    /// most frequent rounded length per product, ties to the shorter.
    static func productsByDuration(_ db: Database) throws -> [BillingDuration: [String]] {
        var counts: [String: [BillingDuration: Int]] = [:]
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT p.productId, t.expiresDate - p.start FROM period p JOIN "transaction" t USING (transactionId)
                WHERE p.offerKind = 'standard' AND t.billingPlanType IS NOT 'MONTHLY'
                """)
        {
            counts[row[0], default: [:]][BillingDuration(lengthMilliseconds: row[1]), default: 0] += 1
        }
        var result: [BillingDuration: [String]] = [:]
        for (product, lengths) in counts {
            let best = lengths.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }!.key
            result[best, default: []].append(product)
        }
        return result
    }

    @Test func oneDurationEqualsTheGridOfItsProductsRuns() throws {
        let (analytics, horizon, _) = try sampleStore(
            products: "SELECT DISTINCT firstPaidProductId FROM run WHERE firstPaidProductId IS NOT NULL ORDER BY 1")
        let byDuration = try analytics.database.writer.read { try Self.productsByDuration($0) }
        #expect(try analytics.billingDurations() == byDuration.keys.sorted())
        #expect(byDuration.count >= 2)
        // The members per first paid product the pane's default duration is chosen by, from the
        // kept step counts, equal the runs counted one by one, in each plan.
        for plan in [nil, BillingPlan.upfront, .monthly] {
            var scope = ReportScope()
            scope.plan = plan
            let byRun = try analytics.database.writer.read { db in
                try Dictionary(
                    uniqueKeysWithValues: Row.fetchAll(
                        db,
                        sql: """
                            SELECT firstPaidProductId, COUNT(*) FROM run
                            WHERE environment = 'Production' AND firstPaidStart IS NOT NULL AND (?1 IS NULL OR firstPaidBillingPlan = ?1)
                            GROUP BY 1
                            """, arguments: [plan?.rawValue]
                    ).map { ($0[0] as String, $0[1] as Int) })
            }
            #expect(try analytics.database.cohortMembersByProduct(scope: scope.rows) == byRun, "\(String(describing: plan))")
            if plan == nil { #expect(!byRun.isEmpty) }
        }
        for (duration, products) in byDuration {
            for asOf in [horizon, UTCCalendar.instant(year: 2024, month: 9, day: 10)] {
                let expected = Self.grid(
                    try analytics.database.writer.read {
                        try Self.byDefinition($0, asOf: asOf, productId: nil, products: products)
                    }, periods: 6)
                let grid = try analytics.cohorts(asOf: asOf, periods: 6, duration: duration)
                for row in grid.cohorts {
                    let e = expected[row.month.index] ?? (0, Array(repeating: 0, count: 6), Array(repeating: 0, count: 6))
                    #expect(
                        row.started == e.started && row.retained == e.retained && row.ended == e.ended,
                        "\(row.month) at \(asOf) \(duration)")
                }
                #expect(grid.average.started == expected.values.reduce(0) { $0 + $1.started }, "\(asOf) \(duration)")
            }
        }
    }
}

/// Events over a range read whole days from `eventDay` and the partial first and last days from the
/// index. Over any range they must equal the events counted one by one.
@Suite struct EventsOverAnyRangeTests {
    static func byDefinition(
        _ db: Database, from: Instant, to: Instant, asOf: Instant, productId: String?,
        ownership: OwnershipFilter
    ) throws -> [String] {
        var sql = """
            SELECT type, COALESCE(expirationReason, '-'), COUNT(*) FROM event
            WHERE environment = 'Production' AND at >= ?1 AND at < ?2 AND at <= ?3
            """
        sql += " AND ownership IN (" + ownership.ownerships.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
        var arguments: StatementArguments = [from.milliseconds, to.milliseconds, asOf.milliseconds]
        if let productId {
            sql += " AND productId = ?4"
            arguments += [productId]
        }
        return try Row.fetchAll(db, sql: sql + " GROUP BY 1, 2 ORDER BY 1, 2", arguments: arguments)
            .map { "\($0[0] as String) \($0[1] as String) \($0[2] as Int)" }
    }

    static func rendered(_ counts: EventCounts) -> [String] {
        var lines: [String] = []
        for (type, n) in counts.counts where n > 0 {
            if type == .expiration {
                let reasons = counts.expirationReasons.filter { $0.value > 0 }
                for (reason, m) in reasons { lines.append("\(type.rawValue) \(reason.rawValue) \(m)") }
                if n > reasons.values.reduce(0, +) { lines.append("\(type.rawValue) - \(n - reasons.values.reduce(0, +))") }
            } else {
                lines.append("\(type.rawValue) - \(n)")
            }
        }
        return lines.sorted()
    }

    @Test func eventsEqualTheEventsCountedOneByOneOverAnyRange() throws {
        let (analytics, horizon, products) = try sampleStore(products: "SELECT DISTINCT productId FROM event ORDER BY 1 LIMIT 2")
        let day = Instant.millisecondsPerDay
        let start = UTCCalendar.instant(year: 2024, month: 1, day: 1)
        // Ranges of every kind: whole months, whole days, from and to inside days, inside one day,
        // empty, past the horizon, cut by an as-of.
        var ranges: [(Instant, Instant, Instant)] = []
        for d in stride(from: Int64(0), to: 740, by: 53) {
            let from = start.adding(days: d)
            ranges.append((from, from.adding(days: 31), horizon))
            ranges.append((from.adding(milliseconds: day / 3), from.adding(days: 17).adding(milliseconds: day / 2), horizon))
            ranges.append((from.adding(milliseconds: 1), from.adding(milliseconds: day - 1), horizon))
            ranges.append((from.adding(milliseconds: day / 2), from.adding(days: 1).adding(milliseconds: day / 4), horizon))
            ranges.append((from, from.adding(days: 60), from.adding(days: 20).adding(milliseconds: day / 5)))
            ranges.append((from, from, horizon))
        }
        ranges.append((start, horizon.adding(days: 30), horizon))
        var nonEmpty = 0
        let scopes =
            [nil, products[0]].map { ReportScope(productId: $0) }
            + (products.count > 1 ? [ReportScope(productId: products[1])] : [])
            + [ReportScope(ownership: .familyShared), ReportScope(ownership: .all)]
        for scope in scopes {
            let productId = scope.productId
            for (from, to, asOf) in ranges {
                let expected = try analytics.database.writer.read {
                    try Self.byDefinition($0, from: from, to: to, asOf: asOf, productId: productId, ownership: scope.ownership)
                }
                let counts = try analytics.events(from: from, to: to, asOf: asOf, scope: scope)
                #expect(Self.rendered(counts) == expected, "\(from) – \(to) as of \(asOf) \(scope)")
                if !expected.isEmpty { nonEmpty += 1 }
            }
            // Day by day: each day's figure is the events of that day.
            let from = Month(year: 2025, month: 3).start
            let daily = try analytics.dailyEvents(from: from, days: 45, asOf: horizon, scope: scope)
            for d in 0..<45 {
                let counts = try analytics.events(
                    from: from.adding(days: Int64(d)), to: from.adding(days: Int64(d + 1)),
                    asOf: horizon, scope: scope)
                for t in EventType.allCases { #expect((daily[t]?[d] ?? 0) == counts[t], "\(t) day \(d)") }
            }
        }
        #expect(nonEmpty > ranges.count)
    }
}
