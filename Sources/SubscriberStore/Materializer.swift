import GRDB
import SubscriptionModel
import SubscriptionTimeline

/// Rebuilds the rows derived from a subscription's facts (DESIGN §3) — `subscription`, `period`,
/// `run`, `segment`, `event`, `billingFailure` — so population figures are SQL over indexed
/// tables. Runs inside the import's transaction, for every subscription the batch touched.
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

    /// Replaces the derived rows of each subscription by those of its timeline.
    func store(_ derived: [Derived]) throws {
        let exists = try db.cachedStatement(sql: "SELECT 1 FROM subscription WHERE originalTransactionId = ?")
        var days = SegmentDays()
        for d in derived {
            // A subscription seen for the first time has no derived rows to delete: six index
            // seeks saved per new subscription. (Derived rows never exist without their
            // `subscription` row: insert writes it first, delete removes all together.)
            if try Int.fetchOne(exists, arguments: [d.originalTransactionId]) != nil { try delete(d.originalTransactionId, &days) }
            guard !d.timeline.periods.isEmpty else { continue }
            try insert(d.timeline, &days)
        }
        try days.write(db)
    }

    /// Changes to `segmentDay` (segments started and ended per UTC day), summed over a batch.
    struct SegmentDays {
        struct Key: Hashable {
            var environment: String
            var day: Int64
            var productId: String
            var state: String
        }
        private var changes: [Key: (starts: Int, ends: Int)] = [:]

        mutating func count(environment: String, start: Int64, end: Int64, productId: String, state: String, _ sign: Int) {
            changes[Key(environment: environment, day: AppDatabase.day(of: Instant(milliseconds: start)), productId: productId,
                        state: state), default: (0, 0)].starts += sign
            guard end != AppDatabase.openEnd else { return }
            changes[Key(environment: environment, day: AppDatabase.day(of: Instant(milliseconds: end)), productId: productId,
                        state: state), default: (0, 0)].ends += sign
        }

        func write(_ db: Database) throws {
            let add = try db.cachedStatement(sql: """
                INSERT INTO segmentDay (environment, day, productId, state, starts, ends) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT DO UPDATE SET starts = starts + excluded.starts, ends = ends + excluded.ends
                """)
            let removeEmpty = try db.cachedStatement(sql: """
                DELETE FROM segmentDay WHERE environment = ? AND day = ? AND productId = ? AND state = ? AND starts = 0 AND ends = 0
                """)
            for (key, change) in changes.sorted(by: { ($0.key.environment, $0.key.day) < ($1.key.environment, $1.key.day) })
            where change != (0, 0) {
                try add.execute(arguments: [key.environment, key.day, key.productId, key.state, change.starts, change.ends])
                if change.starts < 0 || change.ends < 0 {
                    try removeEmpty.execute(arguments: [key.environment, key.day, key.productId, key.state])
                }
            }
        }
    }

    struct Derived: Sendable {
        var originalTransactionId: String
        var timeline: SubscriptionTimeline
    }

    private static let tables = ["subscription", "period", "run", "segment", "event", "billingFailure"]

    private func delete(_ id: String, _ days: inout SegmentDays) throws {
        for table in Self.tables where table != "segment" {
            try db.cachedStatement(sql: "DELETE FROM \(table) WHERE originalTransactionId = ?").run(db, id)
        }
        let segments = try db.cachedStatement(sql: """
            DELETE FROM segment WHERE originalTransactionId = ? RETURNING environment, start, "end", productId, state
            """)
        let removed = try Row.fetchCursor(segments, arguments: [id])
        while let row = try removed.next() {
            days.count(environment: row[0], start: row[1], end: row[2], productId: row[3], state: row[4], -1)
        }
    }

    private func insert(_ t: SubscriptionTimeline, _ days: inout SegmentDays) throws {
        let id = t.originalTransactionId
        let env = t.environment.rawValue
        let last = t.periods[t.periods.count - 1]
        let lastEvent = t.events.last
        try db.cachedStatement(sql: """
            INSERT INTO subscription (originalTransactionId, environment, productId, firstStart, latestStart, periodCount,
                runCount, billingFailureCount, autoRenewProductId, priceIncreaseStatus, appAccountToken, lastEventAt,
                lastEventType, dataHorizon)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).run(db, id, env, last.productId, t.periods[0].start.milliseconds, last.start.milliseconds, t.periods.count,
                t.runs.count, t.billingFailures.count, t.autoRenewProductId, t.priceIncreaseStatus, t.appAccountToken,
                lastEvent?.at.milliseconds, lastEvent?.type.rawValue, t.dataHorizon?.milliseconds)

        let period = try db.cachedStatement(sql: """
            INSERT INTO period (transactionId, originalTransactionId, environment, runIndex, productId, start, "end",
                offerKind, class, isPaid, isRefunded, isCutByUpgrade, countsForRetention)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let product = try db.cachedStatement(sql: "INSERT INTO product (environment, productId) VALUES (?, ?) ON CONFLICT DO NOTHING")
        var products = Set<String>()
        for p in t.periods where products.insert(p.productId).inserted { try product.run(db, env, p.productId) }
        for p in t.periods {
            try period.run(db, p.transactionId, id, env, p.runIndex, p.productId, p.start.milliseconds, p.end.milliseconds,
                p.offerKind.rawValue, p.periodClass.rawValue, p.isPaid, p.isRefunded, p.isCutByUpgrade,
                p.isPaid && !p.isCutByUpgrade)
        }

        let run = try db.cachedStatement(sql: """
            INSERT INTO run (originalTransactionId, runIndex, environment, start, endedAt, expirationReason, firstPaidStart,
                cohortMonth, firstPaidProductId, paidPeriodCount, lastPaidStart)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (i, r) in t.runs.enumerated() {
            try run.run(db, id, i, env, r.start.milliseconds, r.endedAt.milliseconds, r.expirationReason.rawValue,
                r.firstPaidStart?.milliseconds, r.firstPaidStart?.month.index, r.firstPaidProductId,
                r.paidPeriodStarts.count, r.paidPeriodStarts.last?.milliseconds)
        }

        let segment = try db.cachedStatement(sql: """
            INSERT INTO segment (originalTransactionId, environment, start, "end", state, productId, autoRenew, runIndex,
                paidPeriods, periodDays, graceEnd)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for s in Self.segments(of: t) {
            let end = s.end?.milliseconds ?? AppDatabase.openEnd
            try segment.run(db, id, env, s.start.milliseconds, end, s.state.rawValue, s.productId, s.autoRenew, s.runIndex,
                            s.paidPeriods, s.periodDays, s.graceEnd?.milliseconds)
            days.count(environment: env, start: s.start.milliseconds, end: end, productId: s.productId, state: s.state.rawValue, 1)
        }

        let event = try db.cachedStatement(sql: """
            INSERT INTO event (originalTransactionId, environment, at, type, productId, expirationReason, transactionId)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for e in t.events {
            try event.run(db, id, env, e.at.milliseconds, e.type.rawValue, e.productId,
                                          e.expirationReason?.rawValue, e.transactionId)
        }

        let failure = try db.cachedStatement(sql: """
            INSERT INTO billingFailure (originalTransactionId, environment, at, transactionId, productId, graceEnd, retryEnd,
                windowEnd, recoveryStart)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """)
        for f in t.billingFailures {
            try failure.run(db, id, env, f.at.milliseconds, f.transactionId, f.productId,
                                            f.gracePeriodExpiresDate?.milliseconds, f.retryEnd.milliseconds,
                                            f.windowEnd.milliseconds, f.recoveryStart?.milliseconds)
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
        for p in t.periods { cuts.insert(p.start); cuts.insert(p.end) }
        for f in t.billingFailures { cuts.insert(f.at); cuts.insert(f.windowEnd) }
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
                periodDays: covering.map { Double($0.expiresDate.milliseconds - $0.start.milliseconds) / 86_400_000 },
                graceEnd: grace)
            // Merge with the previous segment when nothing differs but the start.
            if var previous = result.last, previous.end == at,
               previous.state == segment.state, previous.productId == segment.productId,
               previous.autoRenew == segment.autoRenew, previous.runIndex == segment.runIndex,
               previous.paidPeriods == segment.paidPeriods, previous.periodDays == segment.periodDays,
               previous.graceEnd == segment.graceEnd {
                previous.end = segment.end
                result[result.count - 1] = previous
            } else {
                result.append(segment)
            }
        }
        return result
    }
}
