import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// Realized lifetime value per retention cohort and currency (docs/metrics.md "Money",
/// "Realized LTV per cohort").
public struct LTVReport: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        /// Nil for the average row.
        public var month: Month?
        public var currency: String
        public var started: Int
        /// Kaplan–Meier rate[k], k = 1…P, as in cohorts.
        public var rate: [Double?]
        /// Milliunits per member after P1…P`periods`; nil when not known yet.
        public var ltv: [Double?]
    }

    public var asOf: Instant
    public var periods: Int
    public var currency: String?
    public var mixedCurrency: Int
    public var unpriced: Int
    /// By month, then currency.
    public var cohorts: [Row]
    /// One per currency, pooling the months shown.
    public var average: [Row]
}

extension SubscriberAnalytics {
    public func ltv(
        asOf: Instant, periods: Int = 12, from: Month? = nil, to: Month? = nil, scope: ReportScope = ReportScope(),
        rates: CurrencyRates? = nil
    ) throws -> LTVReport {
        precondition(periods >= 1)
        // The members' counts and prices summed per cohort month and currency group, kept by the
        // store: a few thousand rows whatever the number of members.
        let sums = try database.ltvSums(asOf: asOf, scope: scope.rows)
        var unpriced = 0
        var mixed = 0
        var firstMonth: Int?
        var groups: [String: [Int: Group]] = [:]
        /// The group a member's currency group is shown in (with `--rates`, every priced member is
        /// in the target currency), nil when left out.
        func shown(_ currencyGroup: String) -> String? {
            if currencyGroup == LTVSums.unpriced { return nil }
            if let rates { return rates.target }
            return currencyGroup == LTVSums.mixed ? nil : currencyGroup
        }
        for m in sums.members {
            firstMonth = min(firstMonth ?? m.cohortMonth, m.cohortMonth)
            guard let group = shown(m.currencyGroup) else {
                if m.currencyGroup == LTVSums.unpriced { unpriced += m.count } else { mixed += m.count }
                continue
            }
            groups[group, default: [:]][m.cohortMonth, default: Group()].add(m)
        }
        for p in sums.prices {
            guard let group = shown(p.currencyGroup) else { continue }
            var price = p.price
            if let rates { price = try rates.convert(price, p.currency, month: Month(index: p.priceMonth)) }
            groups[group, default: [:]][p.cohortMonth, default: Group()].add(period: p.period, price: price, count: p.count)
        }
        let lastIndex = (to ?? asOf.month).index
        let firstIndex = from?.index ?? firstMonth ?? lastIndex
        var report = LTVReport(
            asOf: asOf, periods: periods, currency: rates?.target, mixedCurrency: mixed, unpriced: unpriced,
            cohorts: [], average: [])
        guard firstIndex <= lastIndex else { return report }
        for m in firstIndex...lastIndex {
            for currency in groups.keys.sorted() {
                report.cohorts.append(
                    Self.ltvRow(groups[currency]![m] ?? Group(), month: Month(index: m), currency: currency, periods: periods))
            }
        }
        for currency in groups.keys.sorted() {
            var pooled = Group()
            for m in firstIndex...lastIndex { if let g = groups[currency]![m] { pooled.add(g) } }
            report.average.append(Self.ltvRow(pooled, month: nil, currency: currency, periods: periods))
        }
        return report
    }

    /// `ltv[k] = Σ_{j=1..k} S(j−1) × m[j]` over a group's members (docs/metrics.md "Realized LTV per cohort").
    static func ltvRow(_ group: Group, month: Month?, currency: String, periods: Int) -> LTVReport.Row {
        var retained = [Int](repeating: 0, count: periods)
        var ended = [Int](repeating: 0, count: periods)
        var started = 0
        for (key, count) in group.members {
            started += count
            for k in 1...periods where key.paid >= k + 1 { retained[k - 1] += count }
            if key.ended, key.paid >= 1, key.paid <= periods { ended[key.paid - 1] += count }
        }
        let rate = KaplanMeier.rates(retained: retained, ended: ended)
        var ltv: [Double?] = []
        var sum: Double? = 0
        for j in 1...periods {
            let survival: Double? = j == 1 ? 1 : rate[j - 2]
            if let s = sum {
                let priced = group.prices[j] ?? (count: 0, sum: 0)
                if let s0 = survival, s0 == 0 {
                    sum = s
                } else if let s0 = survival, priced.count > 0 {
                    sum = s + s0 * Double(priced.sum) / Double(priced.count)
                } else {
                    sum = nil
                }
            }
            ltv.append(sum)
        }
        return LTVReport.Row(month: month, currency: currency, started: started, rate: rate, ltv: ltv)
    }

    /// The members of one cohort month (or several, pooled) in one currency group.
    struct Group {
        struct MemberKey: Hashable {
            var paid: Int
            var ended: Bool
        }

        /// How many members have `paid` counted paid periods, ended or not.
        var members: [MemberKey: Int] = [:]
        /// Per paid period j: how many members have a priced j-th period, and their prices' sum.
        var prices: [Int: (count: Int, sum: Int64)] = [:]

        mutating func add(_ m: LTVSums.MemberCount) {
            members[MemberKey(paid: m.paidPeriods, ended: m.ended), default: 0] += m.count
        }

        mutating func add(period: Int, price: Int64, count: Int) {
            let old = prices[period] ?? (count: 0, sum: 0)
            prices[period] = (old.count + count, old.sum + price * Int64(count))
        }

        mutating func add(_ other: Group) {
            for (key, count) in other.members { members[key, default: 0] += count }
            for (period, p) in other.prices {
                let old = prices[period] ?? (count: 0, sum: 0)
                prices[period] = (old.count + p.count, old.sum + p.sum)
            }
        }
    }
}
