import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

/// docs/metrics.md "MRR movement": complete months come from the kept movement rows
/// (`mrrMovementMonth`), other buckets from the intervals; both give the same report.
@Suite struct MovementKeptTests {
    func line(_ row: MRRMovement.Row) -> String {
        let flows = MovementComponent.allCases.map { "\(row[$0])/\(row.count($0))" }.joined(separator: " ")
        return "\(row.bucket.label) \(row.currency) \(row.mrrStart) \(flows) fx \(row.fx) = \(row.mrrEnd)"
    }

    /// On SampleData (several currencies, offers, upgrades, grace periods, commitments paid
    /// monthly): every month from the kept rows equals the same month read from the intervals,
    /// unscoped, by product, by plan, converted, and with a last month cut by as-of.
    @Test func keptMonthsEqualTheIntervalsOnSampleData() throws {
        let p = try MoneyAgreementTests.shared.get()
        let from = day("2023-01-01")
        let whole = Month(index: p.horizon.month.index).start
        let plain = try p.analytics.movement(from: from, to: whole, asOf: p.horizon)
        let live = try p.analytics.movement(from: from, to: whole, asOf: p.horizon, keptMonths: false)
        #expect(plain == live)
        #expect(plain.buckets.count > 20 && plain.buckets.allSatisfy(\.isComplete))
        let moved = plain.rows.reduce(0) { sum, row in MovementComponent.allCases.reduce(sum) { $0 + row.count($1) } }
        #expect(moved > 500)
        let currencies = Set(plain.rows.map(\.currency))
        #expect(currencies.count > 1)

        let products = try p.analytics.database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT productId FROM periodMoney ORDER BY 1")
        }
        let rates = try CurrencyRates(
            target: "USD",
            csv: "currency,rate\n"
                + currencies.subtracting(["USD"]).sorted().enumerated().map { i, c in "\(c),2024-06,1.\(i + 1)\n\(c),0.\(i + 7)\n"
                }.joined(),
            source: "rates.csv")
        var scopes: [(String, ReportScope, CurrencyRates?)] = [
            ("converted", ReportScope(), rates), ("every environment", ReportScope(environment: .all), nil),
        ]
        for product in products { scopes.append(("product \(product)", ReportScope(productId: product), nil)) }
        for plan in BillingPlan.allCases {
            var scope = ReportScope()
            scope.plan = plan
            scopes.append(("plan \(plan.rawValue)", scope, nil))
        }
        var monthly = 0
        for (name, scope, rates) in scopes {
            for to in [whole, p.horizon] {
                let kept = try p.analytics.movement(from: from, to: to, asOf: p.horizon, scope: scope, rates: rates)
                let live = try p.analytics.movement(
                    from: from, to: to, asOf: p.horizon, scope: scope, rates: rates, keptMonths: false)
                #expect(kept.rows.map(line) == live.rows.map(line), "\(name) to \(to.isoDate)")
                #expect(kept == live, "\(name)")
                if name == "plan monthly" { monthly += kept.rows.reduce(0) { $0 + $1.count(.new) } }
            }
        }
        #expect(monthly > 0, "SampleData has commitments paid monthly")
    }

    /// Weeks, days, and months cut short by as-of or `--to` are read from MRR at their starts and
    /// the kept changes inside them (``MRRChanges``): on SampleData, the same reports as the
    /// intervals give, unscoped, by product, by plan, in every environment and converted.
    @Test func bucketsOtherThanCompleteMonthsFromTheChangesEqualTheIntervals() throws {
        let p = try MoneyAgreementTests.shared.get()
        let dayMs = Instant.millisecondsPerDay
        func before(_ days: Int64, _ extra: Int64 = 0) -> Instant {
            Instant(milliseconds: p.horizon.milliseconds - days * dayMs + extra)
        }
        // As-of and `--to` inside a month and inside a day (5 h and 3 ms past midnight).
        let inside = before(40, 5 * 3_600_000 + 3)
        let cases: [(String, Instant, Instant, Instant, BucketSize)] = [
            ("weeks over a year", before(365), p.horizon, p.horizon, .week),
            ("days over 120 days", before(120), p.horizon, p.horizon, .day),
            ("months to a mid-month as-of", day("2023-01-01"), p.horizon, inside, .month),
            ("months cut by --to", day("2024-01-01"), inside, p.horizon, .month),
            ("weeks to a mid-day as-of", before(200), p.horizon, inside, .week),
        ]
        let currencies = Set(try p.analytics.movement(from: before(365), to: p.horizon, asOf: p.horizon).rows.map(\.currency))
        let rates = try CurrencyRates(
            target: "EUR",
            csv: "currency,rate\n"
                + currencies.subtracting(["EUR"]).sorted().enumerated().map { i, c in "\(c),0.\(i + 5)\n" }.joined(),
            source: "rates.csv")
        var monthly = ReportScope()
        monthly.plan = .monthly
        let product = try p.analytics.database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT productId FROM periodMoney GROUP BY 1 ORDER BY COUNT(*) DESC, 1 LIMIT 1")
        }
        let scopes: [(String, ReportScope, CurrencyRates?)] = [
            ("unscoped", ReportScope(), nil), ("every environment", ReportScope(environment: .all), nil),
            ("plan monthly", monthly, nil), ("product", ReportScope(productId: product), nil),
            ("converted", ReportScope(), rates),
        ]
        var moved = 0
        for (name, from, to, asOf, by) in cases {
            for (scopeName, scope, rates) in scopes {
                let kept = try p.analytics.movement(from: from, to: to, asOf: asOf, by: by, scope: scope, rates: rates)
                let live = try p.analytics.movement(
                    from: from, to: to, asOf: asOf, by: by, scope: scope, rates: rates, keptMonths: false)
                #expect(kept.rows.map(line) == live.rows.map(line), "\(name), \(scopeName)")
                #expect(kept == live, "\(name), \(scopeName)")
                moved += kept.rows.reduce(0) { sum, row in MovementComponent.allCases.reduce(sum) { $0 + row.count($1) } }
            }
        }
        #expect(moved > 1000)
    }

    /// The subscriptions behind a bar (pane 6's `enter`) are read from the kept changes: for every
    /// bucket and currency of twelve months to as-of and of weeks, unscoped and for one plan, as
    /// many of each component as the report counts, moving MRR by the report's amount (rounded
    /// once, as the bridge is), each moving MRR the way it is listed.
    @Test func membersOfEveryBarAreTheReportsCounts() throws {
        let p = try MoneyAgreementTests.shared.get()
        var monthly = ReportScope()
        monthly.plan = .monthly
        var listed = 0
        for scope in [ReportScope(), monthly] {
            for (from, by) in [
                (p.horizon.month.adding(months: -11).start, BucketSize.month), (p.horizon.adding(days: -60), .week),
            ] {
                let report = try p.analytics.movement(from: from, to: p.horizon, asOf: p.horizon, by: by, scope: scope)
                for row in report.rows {
                    let members = try p.analytics.movementMembers(bucket: row.bucket, currency: row.currency, scope: scope)
                    #expect(members.counts == row.counts.filter { $0.value > 0 }, "\(row.bucket.label) \(row.currency)")
                    #expect(
                        members.amounts == row.amounts.filter { members.counts[$0.key] != nil },
                        "\(row.bucket.label) \(row.currency)")
                    for member in members.members {
                        #expect(
                            MovementComponent(start: member.before, end: member.after, isNew: member.component == .new)
                                == member.component)
                    }
                    listed += members.members.count
                }
            }
        }
        #expect(listed > 500)
    }

    /// A renewal stored after its month closed, and a refund of a period that ended its run, stored
    /// late: the months they change are counted again (the old subscription's rows taken away,
    /// the new ones added), whatever order the facts came in.
    ///
    /// USD; S: 4.99 monthly throughout. C: 9.99, periods to 2025-02-10. G: 19.99 from 2025-01-15,
    /// periods to 2025-03-15. First: G is new in January (+19.99), C churns in February (−9.99), G
    /// in March (−19.99). Then C's renewal to 03-10 arrives, and G's second period is refunded on
    /// 02-20 (its period ends there): February's churn is G's, March's C's.
    @Test func lateFactsChangeTheKeptMonths() throws {
        var b = StoreBuilder()
        for (i, (start, end)) in [
            ("2024-12-20", "2025-01-20"), ("2025-01-20", "2025-02-20"), ("2025-02-20", "2025-03-20"),
            ("2025-03-20", "2025-04-20"), ("2025-04-20", "2025-05-20"),
        ].enumerated() {
            b.charge("S", "S\(i)", start, end, 4990, "USD")
        }
        b.charge("C", "C1", "2024-12-10", "2025-01-10", 9990, "USD")
        b.charge("C", "C2", "2025-01-10", "2025-02-10", 9990, "USD")
        b.charge("G", "G1", "2025-01-15", "2025-02-15", 19990, "USD")
        b.charge("G", "G2", "2025-02-15", "2025-03-15", 19990, "USD")
        let early = b.documents.count
        b.charge("C", "C3", "2025-02-10", "2025-03-10", 9990, "USD")
        b.charge("G", "G2", "2025-02-15", "2025-03-15", 19990, "USD", revokedAt: "2025-02-20")
        let (from, to, asOf) = (day("2025-01-01"), day("2025-04-01"), day("2025-06-01"))
        let before = [
            "2025-01 USD 14980 19990/1 0/0 0/0 0/0 0/0 fx 0 = 34970",
            "2025-02 USD 34970 0/0 0/0 0/0 0/0 -9990/1 fx 0 = 24980",
            "2025-03 USD 24980 0/0 0/0 0/0 0/0 -19990/1 fx 0 = 4990",
        ]
        let after = [
            "2025-01 USD 14980 19990/1 0/0 0/0 0/0 0/0 fx 0 = 34970",
            "2025-02 USD 34970 0/0 0/0 0/0 0/0 -19990/1 fx 0 = 14980",
            "2025-03 USD 14980 0/0 0/0 0/0 0/0 -9990/1 fx 0 = 4990",
        ]

        let database = try AppDatabase.inMemory()
        let analytics = SubscriberAnalytics(database: database)
        try database.apply(Array(b.documents[..<early]))
        #expect(try analytics.movement(from: from, to: to, asOf: asOf).rows.map(line) == before)
        try database.apply(Array(b.documents[early...]))
        #expect(try analytics.movement(from: from, to: to, asOf: asOf).rows.map(line) == after)
        #expect(try analytics.movement(from: from, to: to, asOf: asOf, keptMonths: false).rows.map(line) == after)

        // All at once, and the late facts first: the same rows kept.
        let together = try AppDatabase.inMemory()
        try together.apply(b.documents)
        let reversed = try AppDatabase.inMemory()
        try reversed.apply(Array(b.documents[early...]) + Array(b.documents[..<early]))
        let kept = try KeptCounts.kept(database)["mrrMovementMonth"]
        #expect(kept?.isEmpty == false)
        #expect(try KeptCounts.kept(together)["mrrMovementMonth"] == kept)
        #expect(try KeptCounts.kept(reversed)["mrrMovementMonth"] == kept)
        #expect(try SubscriberAnalytics(database: reversed).movement(from: from, to: to, asOf: asOf).rows.map(line) == after)
        #expect(try KeptCounts.kept(reversed)["mrrChange"] == KeptCounts.kept(database)["mrrChange"])
        // Weeks, from the kept changes: as the intervals give them, whatever order the facts came in.
        for store in [database, reversed] {
            let a = SubscriberAnalytics(database: store)
            let weeks = try a.movement(from: from, to: to, asOf: asOf, by: .week)
            #expect(
                weeks.rows.map(line)
                    == (try a.movement(from: from, to: to, asOf: asOf, by: .week, keptMonths: false)).rows.map(line))
            #expect(weeks.rows.contains { $0.count(.churn) == 1 })
        }
    }

    /// A key's text survives a product id holding the separators.
    @Test func signaturesReadBackTheirKeys() {
        let keys = [
            MRRKey(offerKind: "standard", productId: "a|b;c%7C", currency: "EUR", price: 4990, monthlyTwelfths: 1),
            MRRKey(offerKind: "standard", productId: "p", currency: nil, price: nil, monthlyTwelfths: 12, billingPlan: "monthly"),
            MRRKey(offerKind: "standard", productId: "p", currency: nil, price: nil, monthlyTwelfths: 12, billingPlan: "monthly"),
        ]
        let text = MRRKey.signature(keys)
        #expect(text == "standard|a%7Cb%3Bc%257C|EUR|4990|1|upfront;standard|p||0|12|monthly;standard|p||0|12|monthly")
        #expect(MRRKey.keys(ofSignature: text) == keys)
        #expect(MRRKey.signature(keys.reversed()) == text)
        #expect(MRRKey.keys(ofSignature: "") == [])
        #expect(MRRKey.keys(ofSignature: "standard|p") == nil)
    }
}
