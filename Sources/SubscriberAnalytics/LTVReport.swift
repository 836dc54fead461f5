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
        // Every member's counted paid periods (as cohorts count them) with their price, in order.
        var members: [Member] = []
        var last: (String, Int)?
        try database.forEachCohortMemberPeriod(asOf: asOf.milliseconds, scope: scope.rows) { row in
            let id = (row.originalTransactionId, row.runIndex)
            if last == nil || last! != id {
                members.append(Member(month: row.cohortMonth, ended: row.ended))
                last = id
            }
            guard let start = row.start else { return }
            var price = row.price
            var currency = row.currency
            if let rates, let p = price, let c = currency {
                price = try rates.convert(p, c, month: Instant(milliseconds: start).month)
                currency = rates.target
            }
            members[members.count - 1].prices.append(price.flatMap { p in currency.map { (p, $0) } })
        }
        var unpriced = 0
        var mixed = 0
        var groups: [String: [Int: [Member]]] = [:]
        var firstMonth: Int?
        for member in members {
            firstMonth = min(firstMonth ?? member.month, member.month)
            let currencies = Set(member.prices.compactMap { $0?.1 })
            guard let currency = member.prices.lazy.compactMap({ $0?.1 }).first else {
                unpriced += 1
                continue
            }
            guard currencies.count == 1 else {
                mixed += 1
                continue
            }
            groups[currency, default: [:]][member.month, default: []].append(member)
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
                    Self.ltvRow(
                        groups[currency]![m] ?? [], month: Month(index: m), currency: currency,
                        periods: periods))
            }
        }
        for currency in groups.keys.sorted() {
            let pooled = (firstIndex...lastIndex).flatMap { groups[currency]![$0] ?? [] }
            report.average.append(Self.ltvRow(pooled, month: nil, currency: currency, periods: periods))
        }
        return report
    }

    /// `ltv[k] = Σ_{j=1..k} S(j−1) × m[j]` over `members` (docs/metrics.md "Realized LTV per cohort").
    static func ltvRow(_ members: [Member], month: Month?, currency: String, periods: Int) -> LTVReport.Row {
        let rate = retention(members.map { ($0.prices.count, $0.ended) }, periods: periods)
        var ltv: [Double?] = []
        var sum: Double? = 0
        for j in 1...periods {
            let survival: Double? = j == 1 ? 1 : rate[j - 2]
            if let s = sum {
                let priced = members.compactMap { $0.prices.count >= j ? $0.prices[j - 1]?.0 : nil }
                if let s0 = survival, s0 == 0 {
                    sum = s
                } else if let s0 = survival, !priced.isEmpty {
                    sum = s + s0 * Double(priced.reduce(0, +)) / Double(priced.count)
                } else {
                    sum = nil
                }
            }
            ltv.append(sum)
        }
        return LTVReport.Row(month: month, currency: currency, started: members.count, rate: rate, ltv: ltv)
    }

    struct Member {
        var month: Int
        var ended: Bool
        /// Each counted paid period's price and currency, nil when unpriced.
        var prices: [(Int64, String)?] = []
    }
}

extension ReportJSON {
    public static func ltv(_ r: LTVReport) -> String {
        func numbers(_ values: [Double?]) -> JSONValue { .array(values.map { $0.map(JSONValue.double) ?? .null }) }
        func amounts(_ values: [Double?]) -> JSONValue {
            .array(values.map { $0.map { amount(Int64($0.rounded(.toNearestOrAwayFromZero))) } ?? .null })
        }
        func row(_ x: LTVReport.Row) -> JSONValue {
            var o = JSONObject()
            if let m = x.month { o["month"] = .string(m.description) }
            o["currency"] = .string(x.currency)
            o["started"] = .int(x.started)
            o["rate"] = numbers(x.rate)
            o["ltv"] = amounts(x.ltv)
            return .object(o)
        }
        var o = JSONObject()
        o["asOf"] = .string(r.asOf.iso8601)
        o["periods"] = .int(r.periods)
        o["currency"] = r.currency.map(JSONValue.string) ?? .null
        o["mixedCurrency"] = .int(r.mixedCurrency)
        o["unpriced"] = .int(r.unpriced)
        o["cohorts"] = .array(r.cohorts.map(row))
        o["average"] = .array(r.average.map(row))
        return JSONValue.object(o).text
    }
}
