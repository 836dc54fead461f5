import SubscriptionModel
import Testing

@testable import SubscriptionTimeline

/// The counting rules of the kept tables (docs/architecture.md, "Where counting rules live"), by hand.
@Suite struct CountDeltaTests {
    /// A free trial, three paid months, then nothing: one cohort member of February 2024 with
    /// steps 0 (Feb 1), 1 (Mar 1), 2 (Apr 1) and −3 (ended May 1 with three paid periods).
    @Test func aRunsCohortSteps() throws {
        let tl = derive([
            tx("a", "2024-01-01", "2024-02-01", offerType: 1, discount: "FREE_TRIAL"),
            tx("b", "2024-02-01", "2024-03-01"),
            tx("c", "2024-03-01", "2024-04-01"),
            tx("d", "2024-04-01", "2024-05-01"),
        ])
        let member = try #require(tl.cohortMembers().first)
        #expect(tl.cohortMembers().count == 1)
        #expect(member.cohortMonth == Month(year: 2024, month: 2))
        #expect(
            Set(member.steps.map { "\($0.at.iso8601) \($0.step)" }) == [
                "2024-02-01T00:00:00Z 0", "2024-03-01T00:00:00Z 1", "2024-04-01T00:00:00Z 2", "2024-05-01T00:00:00Z -3",
            ])
        #expect(member.isRetained(1, asOf: t("2024-03-15")))
        #expect(!member.isRetained(2, asOf: t("2024-03-15")))
        #expect(!member.hasEnded(within: 3, asOf: t("2024-04-30")))
        #expect(member.hasEnded(within: 3, asOf: t("2024-05-01")))
        #expect(!member.hasEnded(within: 2, asOf: t("2024-06-01")), "it ended with 3 paid periods, not 2")

        // The same steps are what the timeline adds to the kept cohort steps, by first paid
        // product, cohort month, step and first paid period's billing plan (upfront here).
        let rows = CountDelta.of(tl, money: tl.money(priceTable: PriceTable(rows: [])))
            .filter { $0.table == .cohortStep }
        let feb = Int64(Month(year: 2024, month: 2).index)
        #expect(rows.count == 4)
        #expect(
            Set(rows.map { [$0.at!.iso8601] + $0.key.map { "\($0)" } + ["\($0.change)"] }) == [
                ["2024-02-01T00:00:00Z", "text(\"monthly\")", "integer(\(feb))", "integer(0)", "text(\"upfront\")", "1"],
                ["2024-03-01T00:00:00Z", "text(\"monthly\")", "integer(\(feb))", "integer(1)", "text(\"upfront\")", "1"],
                ["2024-04-01T00:00:00Z", "text(\"monthly\")", "integer(\(feb))", "integer(2)", "text(\"upfront\")", "1"],
                ["2024-05-01T00:00:00Z", "text(\"monthly\")", "integer(\(feb))", "integer(-3)", "text(\"upfront\")", "1"],
            ])
        // Four periods, one subscription: its first start counted once, each standard period's
        // billing length (30 days) once, the trial's not.
        let all = CountDelta.of(tl, money: tl.money(priceTable: PriceTable(rows: [])))
        #expect(all.filter { $0.table == .subscriptionStart }.map(\.at) == [t("2024-01-01")])
        #expect(
            all.filter { $0.table == .productDuration }.map(\.key)
                == Array(repeating: [.text("monthly"), .integer(30)], count: 3))
    }

    @Test func mrrIntervals() {
        let key = MRRKey(offerKind: "standard", productId: "monthly", currency: "USD", price: 9_990, monthlyTwelfths: 12)
        #expect(
            MRRInterval.period(start: t("2024-01-01"), end: t("2024-01-01"), key: key) == nil, "an empty period covers nothing")
        #expect(MRRInterval.grace(at: t("2024-02-01"), windowEnd: t("2024-03-01"), graceEnd: nil, key: key) == nil)
        let grace = MRRInterval.grace(at: t("2024-02-01"), windowEnd: t("2024-02-05"), graceEnd: t("2024-02-17"), key: key)
        #expect(grace?.end == t("2024-02-05"), "a recovery closes the grace period")
        #expect(grace?.deltas(environment: "Production").map(\.column) == [0, 1])
        let unpriced = MRRKey(offerKind: "standard", productId: "monthly", currency: "USD", price: nil, monthlyTwelfths: 12)
        #expect(
            unpriced.values == [.text("standard"), .text("monthly"), .text(""), .integer(0), .integer(12), .text("upfront")])
    }

    /// A member paying 9.99 USD, then 8.99 EUR: one USD member, then a mixed one with both
    /// prices; the rows added up to any instant are its state then.
    @Test func anLTVMembersRowsAddUpToItsState() {
        let member = LTVMember(
            firstPaidStart: 100, endedAt: 300, cohortMonth: 0, firstPaidProductId: "monthly", billingPlan: .monthly,
            periods: [
                LTVMember.Period(start: 200, transactionId: "b", price: (8_990, "EUR")),
                LTVMember.Period(start: 100, transactionId: "a", price: (9_990, "USD")),
            ])
        let rows = member.deltas(environment: "Production")
        func sum(upTo t: Int64) -> [[CountDelta.Value]: Int] {
            var sums: [[CountDelta.Value]: Int] = [:]
            for r in rows where r.at!.milliseconds <= t { sums[[.text(r.table.rawValue)] + r.key, default: 0] += r.change }
            return sums.filter { $0.value != 0 }
        }
        // Product `monthly`; every row also carries the member's billing plan, last.
        let (p, m): (CountDelta.Value, CountDelta.Value) = (.text("monthly"), .text("monthly"))
        #expect(
            sum(upTo: 150) == [
                [.text("ltvMember"), p, .integer(0), .text("USD"), .integer(1), .integer(0), m]: 1,
                [.text("ltvPrice"), p, .integer(0), .text("USD"), .integer(1), .text("USD"), .integer(0), .integer(9_990), m]: 1,
            ])
        #expect(
            sum(upTo: 250) == [
                [.text("ltvMember"), p, .integer(0), .text("*"), .integer(2), .integer(0), m]: 1,
                [.text("ltvPrice"), p, .integer(0), .text("*"), .integer(1), .text("USD"), .integer(0), .integer(9_990), m]: 1,
                [.text("ltvPrice"), p, .integer(0), .text("*"), .integer(2), .text("EUR"), .integer(0), .integer(8_990), m]: 1,
            ])
        #expect(sum(upTo: 300)[[.text("ltvMember"), p, .integer(0), .text("*"), .integer(2), .integer(1), m]] == 1, "ended")
        #expect(member.state(at: 99) == nil)
    }
}
