import GRDB
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

/// `report revenue` and `report refunds` read whole days from `moneyDay` and `chargeDay` (kept by
/// the materialiser) and only the partial days at the range's ends and as-of's from `periodMoney`
/// (docs/metrics.md "Revenue", "Refund rate"). Ranges and as-of cut inside days here.
@Suite struct RevenueDaySumsTests {
    /// A1: 9.99 EUR from 10 January 15:00, refunded on 20 February 08:00; A2: 10.99 USD from 10
    /// February 15:00; B1: 4.99 EUR from 20 February 20:00.
    static func builder(refundA1: Bool = true) -> StoreBuilder {
        var b = StoreBuilder()
        b.charge(
            "A", "A1", "2025-01-10T15:00:00Z", "2025-02-10T15:00:00Z", 9990, "EUR", storefront: "FRA",
            revokedAt: refundA1 ? "2025-02-20T08:00:00Z" : nil)
        b.charge("A", "A2", "2025-02-10T15:00:00Z", "2025-03-10T15:00:00Z", 10990, "USD", storefront: "USA")
        b.charge("B", "B1", "2025-02-20T20:00:00Z", "2025-03-20T20:00:00Z", 4990, "EUR", storefront: "FRA")
        return b
    }

    static func lines(_ r: RevenueReport) -> [String] {
        r.rows.map { "\($0.key ?? "-") \($0.currency) \($0.charged) \($0.gross) \($0.refunded) \($0.refunds) \($0.net)" }
    }

    static func lines(_ r: RefundRateReport) -> [String] { r.rows.map { "\($0.key) \($0.charged) \($0.refunded)" } }

    @Test func rangesAndAsOfCuttingDaysCountOnlyTheAmountsInside() throws {
        let analytics = try Self.builder().build()
        // From 10 January 12:00 to 20 February 12:00: A1's charge on the first partial day, A2's
        // on a whole day, A1's refund on the last partial day; B1 after the range.
        let inside = try analytics.revenue(
            from: day("2025-01-10T12:00:00Z"), to: day("2025-02-20T12:00:00Z"), asOf: day("2025-03-05"), by: .month)
        #expect(
            Self.lines(inside) == [
                "2025-01 EUR 1 9990 0 0 9990", "2025-02 EUR 0 0 1 9990 -9990", "2025-02 USD 1 10990 0 0 10990",
            ])
        // Ending an hour before the refund, or starting an hour after A1's charge.
        let early = try analytics.revenue(
            from: day("2025-01-10T12:00:00Z"), to: day("2025-02-20T07:00:00Z"), asOf: day("2025-03-05"), by: .month)
        #expect(Self.lines(early) == ["2025-01 EUR 1 9990 0 0 9990", "2025-02 USD 1 10990 0 0 10990"])
        let late = try analytics.revenue(
            from: day("2025-01-10T16:00:00Z"), to: day("2025-03-01"), asOf: day("2025-03-05"), by: .currency)
        #expect(Self.lines(late) == ["EUR EUR 1 4990 1 9990 -5000", "USD USD 1 10990 0 0 10990"])
        // As-of on the refund's instant counts it; a second before does not; B1 is after both.
        let atRefund = try analytics.revenue(
            from: day("2025-01-01"), to: day("2025-03-01"), asOf: day("2025-02-20T08:00:00Z"), by: .storefront)
        #expect(Self.lines(atRefund) == ["FRA EUR 1 9990 1 9990 0", "USA USD 1 10990 0 0 10990"])
        let beforeRefund = try analytics.revenue(
            from: day("2025-01-01"), to: day("2025-03-01"), asOf: day("2025-02-20T07:59:59Z"), by: .storefront)
        #expect(Self.lines(beforeRefund) == ["FRA EUR 1 9990 0 0 9990", "USA USD 1 10990 0 0 10990"])
    }

    @Test func aRefundOnAsOfsDayCountsUpToAsOf() throws {
        let analytics = try Self.builder().build()
        let (from, to) = (day("2025-01-01"), day("2025-03-01"))
        // A1 (started on a whole day of the range) is refunded on as-of's day, at 08:00.
        #expect(
            Self.lines(try analytics.refundRate(from: from, to: to, asOf: day("2025-02-20T08:00:00Z")))
                == ["2025-01 1 1", "2025-02 1 0"])
        #expect(
            Self.lines(try analytics.refundRate(from: from, to: to, asOf: day("2025-02-20T07:59:59Z")))
                == ["2025-01 1 0", "2025-02 1 0"])
        // A day later: the refund's day is before as-of's, B1 has started.
        #expect(
            Self.lines(try analytics.refundRate(from: from, to: to, asOf: day("2025-02-21"))) == ["2025-01 1 1", "2025-02 2 0"])
        // A range starting after A1's start on its day leaves it out; by product.
        #expect(
            Self.lines(
                try analytics.refundRate(from: day("2025-01-10T15:00:01Z"), to: to, asOf: day("2025-03-05"), by: .product))
                == ["pro.monthly 2 0"])
        #expect(
            Self.lines(try analytics.refundRate(from: day("2025-01-10T15:00:00Z"), to: to, asOf: day("2025-03-05"), by: .product))
                == ["pro.monthly 3 1"])
    }

    static func kept(_ database: AppDatabase) throws -> [String] {
        try database.writer.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT 'money ' || date(day * 86400, 'unixepoch') || ' ' || kind || ' ' || currency || ' ' || amount
                        || ' ×' || count FROM moneyDay
                    UNION ALL
                    SELECT 'charge ' || date(day * 86400, 'unixepoch') || ' '
                        || CASE WHEN refundDay = \(CountDelta.noRefundDay) THEN 'never' ELSE date(refundDay * 86400, 'unixepoch') END
                        || ' ×' || count FROM chargeDay
                    ORDER BY 1
                    """)
        }
    }

    /// A1's refund arrives in a later import: its charge moves to the refund's day in `chargeDay`
    /// and the refund is counted on 20 February, nothing else changes.
    @Test func aLateRefundInALaterImportMovesItsDaysSums() throws {
        // The same transaction again, now revoked: a later notification's document.
        var b = Self.builder(refundA1: false)
        b.charge(
            "A", "A1", "2025-01-10T15:00:00Z", "2025-02-10T15:00:00Z", 9990, "EUR", storefront: "FRA",
            revokedAt: "2025-02-20T08:00:00Z")
        let (first, later) = (Array(b.documents.prefix(3)), Array(b.documents.suffix(1)))
        let database = try AppDatabase.inMemory()
        try database.apply(first)
        let analytics = SubscriberAnalytics(database: database)
        #expect(
            try Self.kept(database) == [
                "charge 2025-01-10 never ×1", "charge 2025-02-10 never ×1", "charge 2025-02-20 never ×1",
                "money 2025-01-10 charge EUR 9990 ×1", "money 2025-02-10 charge USD 10990 ×1",
                "money 2025-02-20 charge EUR 4990 ×1",
            ])
        let (from, to, asOf) = (day("2025-01-01"), day("2025-03-01"), day("2025-03-05"))
        #expect(Self.lines(try analytics.refundRate(from: from, to: to, asOf: asOf)) == ["2025-01 1 0", "2025-02 2 0"])

        try database.apply(later)
        #expect(
            try Self.kept(database) == [
                "charge 2025-01-10 2025-02-20 ×1", "charge 2025-02-10 never ×1", "charge 2025-02-20 never ×1",
                "money 2025-01-10 charge EUR 9990 ×1", "money 2025-02-10 charge USD 10990 ×1",
                "money 2025-02-20 charge EUR 4990 ×1", "money 2025-02-20 refund EUR 9990 ×1",
            ])
        #expect(Self.lines(try analytics.refundRate(from: from, to: to, asOf: asOf)) == ["2025-01 1 1", "2025-02 2 0"])
        #expect(
            Self.lines(try analytics.revenue(from: from, to: to, asOf: asOf, by: .month)) == [
                "2025-01 EUR 1 9990 0 0 9990", "2025-02 EUR 1 4990 1 9990 -5000", "2025-02 USD 1 10990 0 0 10990",
            ])

        // Imported the other way round (the revoked transaction first), the sums are the same.
        let reversed = try AppDatabase.inMemory()
        try reversed.apply(later)
        try reversed.apply(first)
        #expect(try Self.kept(reversed) == Self.kept(database))
    }
}

/// Over any range, as-of, grouping, conversion, proceeds rate and scope, revenue and refund rates
/// must equal the money rows counted one by one (docs/metrics.md "Revenue", "Refund rate").
@Suite struct RevenueOverAnyRangeTests {
    struct Amount {
        var kind: Int
        var at: Int64
        var environment: String
        var productId: String
        var plan: String
        var storefront: String?
        var currency: String?
        var amount: Int64?
        var rate: Int
    }

    static func amounts(_ db: Database) throws -> [Amount] {
        var amounts: [Amount] = []
        for (kind, (instant, amount)) in [("start", "price"), ("refundAt", "refundAmount"), ("creditAt", "upgradeCredit")]
            .enumerated()
        {
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(instant), environment, productId, billingPlan, storefront, currency, \(amount), proceedsRate
                    FROM periodMoney WHERE \(instant) IS NOT NULL
                    """)
            amounts += rows.map {
                Amount(
                    kind: kind, at: $0[0], environment: $0[1], productId: $0[2], plan: $0[3], storefront: $0[4], currency: $0[5],
                    amount: $0[6], rate: $0[7])
            }
        }
        return amounts
    }

    static func inScope(_ environment: String, _ productId: String, _ plan: String, _ scope: ReportScope) -> Bool {
        scope.environment.environments.map(\.rawValue).contains(environment) && (scope.productId ?? productId) == productId
            && (scope.plan?.rawValue ?? plan) == plan
    }

    /// The report by definition: every amount in range, one at a time.
    static func revenue(
        _ amounts: [Amount], from: Instant, to: Instant, asOf: Instant, by: RevenueGrouping?, scope: ReportScope,
        rates: CurrencyRates?, smallBusiness: Bool
    ) throws -> Revenue {
        var rows: [String: RevenueReport.Row] = [:]
        var unpriced = 0
        var unpricedByKey: [String: Int] = [:]
        for a in amounts
        where a.at >= from.milliseconds && a.at < to.milliseconds && a.at <= asOf.milliseconds
            && inScope(a.environment, a.productId, a.plan, scope)
        {
            let month = Instant(milliseconds: a.at).month
            let key: String? =
                switch by {
                case nil: nil
                case .month: month.description
                case .product: a.productId
                case .storefront: a.storefront ?? "unknown"
                case .currency: a.currency
                }
            guard let amount = a.amount, let currency = a.currency else {
                unpriced += 1
                unpricedByKey[key ?? "", default: 0] += 1
                continue
            }
            let value = try rates.map { try $0.convert(amount, currency, month: month) } ?? amount
            let rowCurrency = rates?.target ?? currency
            let proceeds = MoneyMath.proceeds(value, ratePercent: smallBusiness ? 85 : a.rate)
            var row = rows[(key ?? "") + " " + rowCurrency] ?? RevenueReport.Row(key: key, currency: rowCurrency)
            switch a.kind {
            case 0: (row.charged, row.gross, row.proceeds) = (row.charged + 1, row.gross + value, row.proceeds + proceeds)
            case 1: (row.refunded, row.refunds, row.proceeds) = (row.refunded + 1, row.refunds + value, row.proceeds - proceeds)
            default: (row.upgradeCredits, row.proceeds) = (row.upgradeCredits + value, row.proceeds - proceeds)
            }
            rows[(key ?? "") + " " + rowCurrency] = row
        }
        return Revenue(
            currency: rates?.target, unpriced: unpriced, unpricedByKey: unpricedByKey,
            rows: rows.values.sorted { ($0.key ?? "", $0.currency) < ($1.key ?? "", $1.currency) })
    }

    /// What a revenue report says beside its range.
    struct Revenue: Equatable {
        var currency: String?
        var unpriced: Int
        var unpricedByKey: [String: Int]
        var rows: [RevenueReport.Row]

        init(currency: String?, unpriced: Int, unpricedByKey: [String: Int], rows: [RevenueReport.Row]) {
            (self.currency, self.unpriced, self.unpricedByKey, self.rows) = (currency, unpriced, unpricedByKey, rows)
        }

        init(_ r: RevenueReport) {
            self.init(currency: r.currency, unpriced: r.unpriced, unpricedByKey: r.unpricedByKey, rows: r.rows)
        }
    }

    /// Refund rates by definition: every charged period started in range, one at a time.
    static func refunds(
        _ db: Database, from: Instant, to: Instant, asOf: Instant, by: RefundGrouping, scope: ReportScope
    ) throws -> [String] {
        var rows: [String: (charged: Int, refunded: Int)] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT start, refundAt, environment, productId, billingPlan FROM periodMoney") {
            let (start, refundAt): (Int64, Int64?) = (row[0], row[1])
            guard start >= from.milliseconds, start < to.milliseconds, start <= asOf.milliseconds,
                inScope(row[2], row[3], row[4], scope)
            else { continue }
            let key = by == .month ? Instant(milliseconds: start).month.description : row[3] as String
            rows[key, default: (0, 0)].charged += 1
            if let refundAt, refundAt <= asOf.milliseconds { rows[key, default: (0, 0)].refunded += 1 }
        }
        return rows.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.charged) \($0.value.refunded)" }
    }

    @Test func revenueAndRefundsEqualTheAmountsCountedOneByOneOverAnyRange() throws {
        let (analytics, horizon, products) = try sampleStore(products: "SELECT DISTINCT productId FROM periodMoney ORDER BY 1")
        let (amounts, currencies) = try analytics.database.writer.read { db in
            (
                try Self.amounts(db),
                try String.fetchAll(db, sql: "SELECT DISTINCT currency FROM periodMoney WHERE currency IS NOT NULL ORDER BY 1")
            )
        }
        #expect(amounts.contains { $0.kind == 1 } && amounts.contains { $0.kind == 2 }, "refunds and credits in SampleData")
        #expect(amounts.contains { $0.amount == nil }, "unpriced amounts in SampleData")
        #expect(amounts.contains { $0.plan == BillingPlan.monthly.rawValue }, "monthly payments in SampleData")
        // Every currency at 1.25 but in March 2025, at 0.8.
        let rates = try CurrencyRates(
            target: "XTS",
            csv: "currency,month,rate\n" + currencies.map { "\($0),2025-03,0.8\n\($0),1.25\n" }.joined(), source: "rates.csv")
        let day = Instant.millisecondsPerDay
        let start = UTCCalendar.instant(year: 2024, month: 1, day: 1)
        var ranges: [(Instant, Instant, Instant)] = []
        for d in stride(from: Int64(0), to: 740, by: 61) {
            let from = start.adding(days: d)
            ranges.append((from, from.adding(days: 31), horizon))
            ranges.append((from.adding(milliseconds: day / 3), from.adding(days: 40).adding(milliseconds: day / 2), horizon))
            ranges.append((from.adding(milliseconds: 1), from.adding(milliseconds: day - 1), horizon))
            ranges.append((from, from.adding(days: 90), from.adding(days: 30).adding(milliseconds: day / 5)))
            ranges.append(
                (from.adding(milliseconds: day / 2), from.adding(days: 365), from.adding(days: 200).adding(milliseconds: 7)))
        }
        ranges.append((start, horizon.adding(days: 30), horizon))
        var monthly = ReportScope()
        monthly.plan = .monthly
        let scopes = [
            ReportScope(), ReportScope(productId: products[0]), ReportScope(environment: .sandbox),
            ReportScope(environment: .all), monthly,
        ]
        var nonEmpty = 0
        for scope in scopes {
            for (from, to, asOf) in ranges {
                for by in [nil] + RevenueGrouping.allCases {
                    let r = try analytics.revenue(from: from, to: to, asOf: asOf, by: by, scope: scope)
                    let expected = try Self.revenue(
                        amounts, from: from, to: to, asOf: asOf, by: by, scope: scope, rates: nil, smallBusiness: false)
                    #expect(Revenue(r) == expected, "\(from) – \(to) as of \(asOf) by \(String(describing: by)) \(scope)")
                    if !expected.rows.isEmpty { nonEmpty += 1 }
                }
                for (withRates, smallBusiness) in [(true, false), (false, true), (true, true)] {
                    let r = try analytics.revenue(
                        from: from, to: to, asOf: asOf, by: .month, scope: scope, rates: withRates ? rates : nil,
                        smallBusiness: smallBusiness)
                    let expected = try Self.revenue(
                        amounts, from: from, to: to, asOf: asOf, by: .month, scope: scope, rates: withRates ? rates : nil,
                        smallBusiness: smallBusiness)
                    #expect(
                        Revenue(r) == expected, "\(from) – \(to) as of \(asOf) rates \(withRates) small \(smallBusiness) \(scope)"
                    )
                }
                for by in RefundGrouping.allCases {
                    let r = try analytics.refundRate(from: from, to: to, asOf: asOf, by: by, scope: scope)
                    let expected = try analytics.database.writer.read { db in
                        try Self.refunds(db, from: from, to: to, asOf: asOf, by: by, scope: scope)
                    }
                    // By month every month of the range is listed, those without a charge as 0 0.
                    let rows = r.rows.filter { by == .product || $0.charged > 0 }
                    #expect(
                        rows.map { "\($0.key) \($0.charged) \($0.refunded)" } == expected,
                        "refunds \(from) – \(to) as of \(asOf) by \(by) \(scope)")
                }
            }
        }
        #expect(nonEmpty > ranges.count * 4)
    }
}
