import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

@Suite struct OfferConversionTests {

    /// docs/metrics.md "Offer conversion": four January trials; three convert, renew once (P2) and
    /// end; one lapses. A promotional offer switched to another, and one still running.
    func store() throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        for (s, d) in [("A", 1), ("B", 2), ("C", 3)] {
            func at(_ month: Int, _ dayOfMonth: Int) -> String {
                "2025-0\(month)-" + (dayOfMonth < 10 ? "0" : "") + "\(dayOfMonth)"
            }
            b.charge(s, "\(s)0", at(1, d), at(1, d + 7), 0, "USD", trial: true)
            b.charge(s, "\(s)1", at(1, d + 7), at(2, d + 7), 9990, "USD")
            b.charge(s, "\(s)2", at(2, d + 7), at(3, d + 7), 9990, "USD")
        }
        b.charge("D", "D0", "2025-01-05", "2025-01-12", 0, "USD", trial: true)
        b.charge("E", "E1", "2025-01-10", "2025-02-10", 4990, "USD", offerType: 2, offerIdentifier: "save50")
        b.charge("E", "E2", "2025-02-10", "2025-03-10", 2990, "USD", offerType: 3, offerIdentifier: "CODE")
        b.charge("F", "F1", "2025-01-20", "2025-02-20", 4990, "USD", offerType: 2, offerIdentifier: "save50")
        b.charge("F", "F2", "2025-02-20", "2025-03-20", 4990, "USD", offerType: 2, offerIdentifier: "save50")
        return try b.build()
    }

    @Test func anOfferThatConvertsButKeepsNobodyByP3() throws {
        let r = try store().offerConversion(from: day("2025-01-01"), to: day("2025-02-01"), asOf: day("2025-03-15"))
        #expect(
            r.offers.map {
                "\($0.offerKind) \($0.offerIdentifier ?? "-") \($0.started) \($0.converted) \($0.lapsed) \($0.switched) \($0.pending)"
            } == [
                "freeTrial - 4 3 1 0 0", "promotional save50 2 0 0 1 1",
            ])
        let trial = r.offers[0]
        #expect(trial.rate == 0.75)
        // Every converted member paid P1 and P2 and ended: retained at P3 none of three known.
        #expect(trial.retention3 == 0)
        #expect(trial.retention6 == 0)
        #expect(r.offers[1].rate == nil)
        #expect(
            OffersOutput(r).json.hasPrefix(
                """
                {"from":"2025-01-01T00:00:00Z","to":"2025-02-01T00:00:00Z","asOf":"2025-03-15T00:00:00Z","offers":[\
                {"offerKind":"freeTrial","offerIdentifier":null,"started":4,"converted":3,"lapsed":1,"switched":0,"pending":0,\
                "rate":0.75,"retention":{"3":0,"6":0}}
                """))
    }

    @Test func earlierTheOutcomesArePendingAndRetentionUnknown() throws {
        let r = try store().offerConversion(from: day("2025-01-01"), to: day("2025-02-01"), asOf: day("2025-01-09"))
        // A and B converted (8 and 9 January); C's and D's trials still run; E's offer starts later.
        #expect(
            r.offers.map { "\($0.offerKind) \($0.started) \($0.converted) \($0.lapsed) \($0.pending)" } == [
                "freeTrial 4 2 0 2"
            ])
        #expect(r.offers[0].retention3 == nil)
    }

    /// Offer conversion in SQL equals the outcomes of every subscriber's offer uses on SampleData.
    @Test func offersAreTheSumOfTheSubscribers() throws {
        let p = try MoneyAgreementTests.shared.get()
        var month = Month(year: 2024, month: 1)
        var total = 0
        while month <= p.horizon.month {
            var expected: [String: [OfferUse.Outcome: Int]] = [:]
            for (t, _) in p.timelines {
                for u in t.offerUses where month.start <= u.start && u.start < month.end && u.start <= p.horizon {
                    expected["\(u.offerKind.rawValue) \(u.offerIdentifier ?? "-")", default: [:]][
                        u.outcome(asOf: p.horizon), default: 0] += 1
                    total += 1
                }
            }
            let sql = try p.analytics.offerConversion(from: month.start, to: month.end, asOf: p.horizon)
            var got: [String: [OfferUse.Outcome: Int]] = [:]
            for o in sql.offers {
                let counts: [OfferUse.Outcome: Int] = [
                    .converted: o.converted, .lapsed: o.lapsed, .switched: o.switched,
                    .pending: o.pending,
                ]
                got["\(o.offerKind.rawValue) \(o.offerIdentifier ?? "-")"] = counts.filter { $0.value > 0 }
            }
            #expect(got == expected, "offers \(month)")
            month = month.next
        }
        #expect(total > 300)
    }
}
