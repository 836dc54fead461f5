import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

/// docs/metrics.md "MRR movement" and "Series", on subscribers whose figures are worked out by hand.
@Suite struct MovementTests {
    /// Months January–April 2025 (instants t0 = 1 Jan … t4 = 1 May), USD unless said:
    /// - T: a free trial from 10 Jan converting to 9.99 monthly on 17 Jan: new in January.
    /// - U: 9.99 monthly, upgraded on 20 Feb to 59.99 yearly (4.999…/month): contraction in February.
    /// - V: 4.99 monthly, on to 99.99 yearly at its renewal on 20 Feb (8.3325/month): expansion.
    /// - P: 9.99 monthly, renewing at 12.99 from 5 Feb (a price increase): expansion in February.
    /// - R: 9.99 monthly, billing failure on 20 Jan (in retry on 1 Feb), recovered on 10 Feb: churn
    ///   in January, reactivation in February.
    /// - C: 9.99 monthly, last period ends 10 Feb: churn in February.
    /// - X: ended in December 2024, back on 10 Mar: reactivation in March.
    /// - E: 8.99 EUR monthly throughout.
    static func store() throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        b.charge("T", "T0", "2025-01-10", "2025-01-17", 0, "USD", trial: true)
        b.charge("T", "T1", "2025-01-17", "2025-02-17", 9990, "USD")
        b.charge("T", "T2", "2025-02-17", "2025-03-17", 9990, "USD")
        b.charge("T", "T3", "2025-03-17", "2025-04-17", 9990, "USD")
        b.charge("T", "T4", "2025-04-17", "2025-05-17", 9990, "USD")
        b.charge("U", "U1", "2024-12-15", "2025-01-15", 9990, "USD")
        b.charge("U", "U2", "2025-01-15", "2025-02-15", 9990, "USD")
        b.charge("U", "U3", "2025-02-15", "2025-03-15", 9990, "USD", upgraded: true)
        b.charge("U", "U4", "2025-02-20", "2026-02-20", 59990, "USD", product: "pro.yearly")
        b.charge("V", "V1", "2024-12-20", "2025-01-20", 4990, "USD", product: "basic.monthly")
        b.charge("V", "V2", "2025-01-20", "2025-02-20", 4990, "USD", product: "basic.monthly")
        b.charge("V", "V3", "2025-02-20", "2026-02-20", 99990, "USD", product: "pro.yearly")
        b.charge("P", "P1", "2024-12-05", "2025-01-05", 9990, "USD")
        b.charge("P", "P2", "2025-01-05", "2025-02-05", 9990, "USD")
        b.charge("P", "P3", "2025-02-05", "2025-03-05", 12990, "USD")
        b.charge("P", "P4", "2025-03-05", "2025-04-05", 12990, "USD")
        b.charge("P", "P5", "2025-04-05", "2025-05-05", 12990, "USD")
        b.charge("R", "R1", "2024-12-20", "2025-01-20", 9990, "USD")
        b.notification("R", "DID_FAIL_TO_RENEW", at: "2025-01-20", transaction: "R1")
        b.charge("R", "R2", "2025-02-10", "2025-03-10", 9990, "USD")
        b.charge("R", "R3", "2025-03-10", "2025-04-10", 9990, "USD")
        b.charge("R", "R4", "2025-04-10", "2025-05-10", 9990, "USD")
        b.charge("C", "C1", "2024-12-10", "2025-01-10", 9990, "USD")
        b.charge("C", "C2", "2025-01-10", "2025-02-10", 9990, "USD")
        b.charge("X", "X1", "2024-11-05", "2024-12-05", 9990, "USD")
        b.charge("X", "X2", "2025-03-10", "2025-04-10", 9990, "USD")
        b.charge("X", "X3", "2025-04-10", "2025-05-10", 9990, "USD")
        for (i, month) in ["01", "02", "03", "04", "05"].enumerated() {
            let next = ["02", "03", "04", "05", "06"][i]
            b.charge("E", "E\(i)", "2025-\(month)-01", "2025-\(next)-01", 8990, "EUR")
        }
        return try b.build()
    }

    static let rates = "currency,rate\nEUR,2025-01,1.1\nEUR,1.2\n"

    func line(_ row: MRRMovement.Row) -> String {
        let flows = MovementComponent.allCases.map { "\(row[$0])/\(row.count($0))" }.joined(separator: " ")
        return "\(row.bucket.label) \(row.currency) \(row.mrrStart) \(flows) fx \(row.fx) = \(row.mrrEnd)"
    }

    @Test func eachMovementByHand() throws {
        let analytics = try Self.store()
        let r = try analytics.movement(from: day("2025-01-01"), to: day("2025-05-01"), asOf: day("2025-06-01"))
        // USD at the ends: 44.95, 44.95, (119880 + 59990 + 99990 + 155880 + 119880) / 12 = 46.30167,
        // then X's 9.99 more: 56.29167. Each figure is rounded once: February's expansion is
        // (40110 + 36000) / 12 = 6342.5 → 6.343, its contraction −59890 / 12 → −4.991.
        #expect(
            r.rows.map(line) == [
                "2025-01 EUR 8990 0/0 0/0 0/0 0/0 0/0 fx 0 = 8990",
                "2025-01 USD 44950 9990/1 0/0 0/0 0/0 -9990/1 fx 0 = 44950",
                "2025-02 EUR 8990 0/0 0/0 0/0 0/0 0/0 fx 0 = 8990",
                "2025-02 USD 44950 0/0 9990/1 6343/2 -4991/1 -9990/1 fx 0 = 46302",
                "2025-03 EUR 8990 0/0 0/0 0/0 0/0 0/0 fx 0 = 8990",
                "2025-03 USD 46302 0/0 9990/1 0/0 0/0 0/0 fx 0 = 56292",
                "2025-04 EUR 8990 0/0 0/0 0/0 0/0 0/0 fx 0 = 8990",
                "2025-04 USD 56292 0/0 0/0 0/0 0/0 0/0 fx 0 = 56292",
            ])
        // mrrStart and mrrEnd are `report mrr` at the bucket's ends.
        let ends = ["2025-01-01", "2025-02-01", "2025-03-01", "2025-04-01", "2025-05-01"].map(day)
        let mrr = try analytics.mrr(at: ends)
        for row in r.rows {
            let i = ends.firstIndex(of: row.bucket.start)!
            #expect(mrr[i].rows.first { $0.currency == row.currency }?.mrr == row.mrrStart)
            #expect(mrr[i + 1].rows.first { $0.currency == row.currency }?.mrr == row.mrrEnd)
        }
        #expect(
            MovementOutput(r, store: "test.sqlite").json.contains(
                #"{"start":"2025-02-01T00:00:00Z","end":"2025-03-01T00:00:00Z","currency":"USD","mrrStart":44.95,"new":0,"#
                    + #""reactivation":9.99,"expansion":6.343,"contraction":-4.991,"churn":-9.99,"fx":0,"mrrEnd":46.302,"#
                    + #""counts":{"new":0,"reactivation":1,"expansion":2,"contraction":1,"churn":1}}"#))
    }

    /// Converted: the movements and mrrEnd at the end's rate, mrrStart at the start's, fx the
    /// difference. EUR is 1.1 in January and 1.2 after: E's 8.99 EUR is 9.889 USD on 1 Jan and
    /// 10.788 on 1 Feb, so January's fx is 0.899 and February's 0.
    @Test func fxWithTwoRates() throws {
        let analytics = try Self.store()
        let rates = try CurrencyRates(target: "USD", csv: Self.rates, source: "rates.csv")
        let r = try analytics.movement(
            from: day("2025-01-01"), to: day("2025-03-01"), asOf: day("2025-06-01"), rates: rates)
        #expect(
            r.rows.map(line) == [
                "2025-01 USD 54839 9990/1 0/0 0/0 0/0 -9990/1 fx 899 = 55738",
                "2025-02 USD 55738 0/0 9990/1 6343/2 -4991/1 -9990/1 fx 0 = 57090",
            ])
        let mrr = try analytics.mrr(at: [day("2025-01-01"), day("2025-02-01"), day("2025-03-01")], rates: rates)
        #expect(mrr.map { $0.rows[0].mrr } == [54839, 55738, 57090])
        #expect(
            MovementOutput(r, store: "test.sqlite").json.hasPrefix(
                #"{"from":"2025-01-01T00:00:00Z","to":"2025-03-01T00:00:00Z","#))
        #expect(MovementOutput(r, store: "test.sqlite").json.contains(#""currency":"USD","rows":["#))
    }

    /// Buckets start at the month, ISO week or day holding --from; the last ends at min(to, as-of).
    @Test func bucketsFromTheOneHoldingFromToAsOf() throws {
        let weeks = try BucketSize.week.buckets(from: day("2025-01-01"), to: day("2025-01-20"), asOf: day("2025-01-16T12:00:00Z"))
        #expect(weeks.map(\.label) == ["2025-W01", "2025-W02", "2025-W03"])
        #expect(weeks.map(\.start) == [day("2024-12-30"), day("2025-01-06"), day("2025-01-13")])
        #expect(weeks.last?.end == day("2025-01-16T12:00:00Z"))
        #expect(weeks.map(\.isComplete) == [true, true, false])
        let months = try BucketSize.month.buckets(from: day("2025-01-15"), to: day("2025-03-01"), asOf: day("2025-06-01"))
        #expect(months.map(\.label) == ["2025-01", "2025-02"])
        #expect(months.map(\.isComplete) == [true, true])
        #expect(try BucketSize.day.buckets(from: day("2025-02-01"), to: day("2025-03-01"), asOf: day("2025-01-01")).isEmpty)
        #expect(throws: AnalyticsError.self) {
            _ = try BucketSize.day.buckets(from: day("1990-01-01"), to: day("2025-03-01"), asOf: day("2025-03-01"))
        }
    }

    /// A stock at each bucket's end, events within it; money per currency.
    @Test func seriesByHand() throws {
        let analytics = try Self.store()
        let (from, to, asOf) = (day("2025-01-01"), day("2025-05-01"), day("2025-06-01"))
        // Active on 1 Feb: T, U, V, P, C, E (R in billing retry); 1 Mar: C gone, R back; 1 Apr: X back.
        let active = try analytics.series(.active, from: from, to: to, asOf: asOf)
        #expect(active.lines == [MetricSeries.Line(currency: nil, values: [6, 6, 7, 7])])
        let retry = try analytics.series(.state(.billingRetry), from: from, to: to, asOf: asOf)
        #expect(retry.lines[0].values == [1, 0, 0, 0])
        let issues = try analytics.series(.event(.billingIssue), from: from, to: to, asOf: asOf)
        #expect(issues.lines[0].values == [1, 0, 0, 0])
        let expirations = try analytics.series(.event(.expiration), from: from, to: to, asOf: asOf)
        #expect(expirations.lines[0].values == [0, 1, 0, 0])
        let mrr = try analytics.series(.mrr, from: from, to: to, asOf: asOf)
        #expect(
            mrr.lines == [
                MetricSeries.Line(currency: "EUR", values: [8990, 8990, 8990, 8990]),
                MetricSeries.Line(currency: "USD", values: [44950, 46302, 56292, 56292]),
            ])
        #expect(
            SeriesOutput(active, store: "test.sqlite").json
                == #"{"metric":"active","from":"2025-01-01T00:00:00Z","to":"2025-05-01T00:00:00Z","asOf":"2025-06-01T00:00:00Z","by":"month","series":[{"currency":null,"points":["#
                + #"{"start":"2025-01-01T00:00:00Z","end":"2025-02-01T00:00:00Z","value":6},{"start":"2025-02-01T00:00:00Z","end":"2025-03-01T00:00:00Z","value":6},"#
                + #"{"start":"2025-03-01T00:00:00Z","end":"2025-04-01T00:00:00Z","value":7},{"start":"2025-04-01T00:00:00Z","end":"2025-05-01T00:00:00Z","value":7}]}]}"#
        )
        let rates = try CurrencyRates(target: "USD", csv: Self.rates, source: "rates.csv")
        let converted = try analytics.series(.mrr, from: from, to: to, asOf: asOf, rates: rates)
        #expect(converted.lines == [MetricSeries.Line(currency: "USD", values: [55738, 57090, 67080, 67080])])
        // Weekly renewals: every renewal of the store falls in one week, all counted once.
        let weekly = try analytics.series(.event(.renewal), from: from, to: to, asOf: asOf, by: .week)
        let total = try analytics.events(from: weekly.buckets[0].start, to: to, asOf: asOf)
        #expect(weekly.lines[0].values.reduce(0, +) == Int64(total[.renewal]))
        #expect(total[.renewal] > 10)
        // No commitment in this store: committed revenue is nothing in every bucket.
        let committed = try analytics.series(.committed, from: from, to: to, asOf: asOf)
        #expect(committed.lines.allSatisfy { $0.values.allSatisfy { $0 == 0 } })
        #expect(SeriesMetric(name: "billingRetry") == .state(.billingRetry))
        #expect(SeriesMetric(name: "renewal") == .event(.renewal))
        #expect(SeriesMetric(name: "nonsense") == nil)
    }

    /// On SampleData, every month and week: mrrStart and mrrEnd are `report mrr` at the ends and
    /// start + flows + fx = end to within the rounding of each figure.
    @Test func identityOnEveryBucketOfSampleData() throws {
        let p = try MoneyAgreementTests.shared.get()
        for by in [BucketSize.month, .week] {
            let from = day("2024-01-01")
            let r = try p.analytics.movement(from: from, to: p.horizon, asOf: p.horizon, by: by)
            let ends = [r.buckets[0].start] + r.buckets.map(\.end)
            let mrr = try p.analytics.mrr(at: ends)
            var moved = 0
            for row in r.rows {
                let i = r.buckets.firstIndex(of: row.bucket)!
                #expect((mrr[i].rows.first { $0.currency == row.currency }?.mrr ?? 0) == row.mrrStart)
                #expect((mrr[i + 1].rows.first { $0.currency == row.currency }?.mrr ?? 0) == row.mrrEnd)
                let flows = MovementComponent.allCases.reduce(row.fx) { $0 + row[$1] }
                #expect(abs(row.mrrStart + flows - row.mrrEnd) <= 4, "\(row.bucket.label) \(row.currency)")
                moved += MovementComponent.allCases.reduce(0) { $0 + row.count($1) }
            }
            #expect(r.buckets.count > (by == .month ? 20 : 90))
            #expect(moved > 500)
        }
    }
}
