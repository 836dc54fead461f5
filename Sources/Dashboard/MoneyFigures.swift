import SubscriberAnalytics
import SubscriptionModel

/// What pane 6 shows, all from the money reports of ``SubscriberAnalytics`` (docs/metrics.md,
/// "Money"): MRR at as-of, 30 days before and at the end of each earlier month of the last twelve;
/// revenue month by month over those twelve months; the offers whose use started in them.
public struct MoneyFigures: Equatable, Sendable {
    /// Months of revenue, of offer uses and of the MRR sparkline, ending with as-of's.
    public static let months = 12
    /// MRR's change is against this many days before as-of.
    public static let changeDays = 30

    public var asOf: Instant
    public var mrr: MRRReport
    /// MRR `changeDays` before as-of.
    public var mrrBefore: MRRReport
    /// MRR at the last instant of each of the 11 months before as-of's, then at as-of.
    public var mrrMonthly: [MRRReport]
    /// By month, over ``shownMonths``.
    public var revenue: RevenueReport
    /// Offer uses started in ``shownMonths`` (up to as-of).
    public var offers: OfferConversionReport

    public init(asOf: Instant, mrr: MRRReport, mrrBefore: MRRReport, mrrMonthly: [MRRReport], revenue: RevenueReport,
                offers: OfferConversionReport) {
        self.asOf = asOf
        self.mrr = mrr
        self.mrrBefore = mrrBefore
        self.mrrMonthly = mrrMonthly
        self.revenue = revenue
        self.offers = offers
    }

    /// The twelve months ending with as-of's, oldest first.
    public static func months(endingAt asOf: Instant) -> [Month] {
        (0..<months).map { asOf.month.adding(months: $0 - months + 1) }
    }

    /// Where the MRR sparkline samples: the last millisecond of each earlier month, then as-of.
    public static func samples(endingAt asOf: Instant) -> [Instant] {
        months(endingAt: asOf).dropLast().map { $0.end.adding(milliseconds: -1) } + [asOf]
    }

    public static func load(_ analytics: SubscriberAnalytics, asOf: Instant, scope: ReportScope) throws -> Self {
        let months = months(endingAt: asOf)
        let from = months[0].start, to = asOf.month.end
        // One statement for every MRR instant: as-of, 30 days before, the month ends.
        let mrr = try analytics.mrr(at: [asOf, asOf.adding(days: -Int64(changeDays))] + samples(endingAt: asOf).dropLast(),
                                    scope: scope)
        return MoneyFigures(asOf: asOf, mrr: mrr[0], mrrBefore: mrr[1], mrrMonthly: Array(mrr.dropFirst(2)) + [mrr[0]],
                            revenue: try analytics.revenue(from: from, to: to, asOf: asOf, by: .month, scope: scope),
                            offers: try analytics.offerConversion(from: from, to: to, asOf: asOf, scope: scope))
    }

    public var shownMonths: [Month] { Self.months(endingAt: asOf) }

    /// Every currency MRR or revenue has in these figures, sorted: amounts are never summed across them.
    public var currencies: [String] {
        let all = (mrrMonthly + [mrrBefore]).flatMap { $0.rows.map(\.currency) } + revenue.rows.map(\.currency)
        return Array(Set(all)).sorted()
    }

    /// MRR in `currency` in `report`, 0 when it has none.
    public static func amount(_ report: MRRReport, _ currency: String) -> Int64 {
        report.rows.filter { $0.currency == currency }.reduce(0) { $0 + $1.mrr }
    }

    /// The currency pane 6 charts revenue in first: the one with the most charges in range (then
    /// the first by code).
    public var leadingCurrency: String? {
        var charges: [String: Int] = [:]
        for row in revenue.rows { charges[row.currency, default: 0] += row.charged }
        return currencies.max { (charges[$0] ?? 0, $1) < (charges[$1] ?? 0, $0) }
    }

    /// Revenue in `currency` per shown month (a month without a priced item is all zero).
    public func revenue(in currency: String) -> [(month: Month, row: RevenueReport.Row)] {
        shownMonths.map { month in
            (month, revenue.rows.first { $0.key == month.description && $0.currency == currency }
                ?? RevenueReport.Row(key: month.description, currency: currency))
        }
    }
}
