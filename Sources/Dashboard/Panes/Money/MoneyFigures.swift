import SubscriberAnalytics
import SubscriptionModel

/// The sections of pane 6 besides MRR now, asked for with it in this order and read side by side.
public enum MoneySection: String, CaseIterable, Equatable, Sendable {
    /// Revenue by month over the twelve months.
    case revenue
    /// The offers whose use started in the twelve months.
    case offers
    /// MRR movement month by month over the twelve months.
    case movement
}

/// What pane 6 shows, all from the money reports of ``SubscriberAnalytics`` (docs/metrics.md,
/// "Money"): MRR at as-of and 30 days before; MRR movement month by month over the last twelve
/// months (whose MRR at each month's end is the MRR line); revenue month by month over those
/// twelve months; the offers whose use started in them.
///
/// MRR now and 30 days before come first, from one cheap statement; each ``MoneySection`` is nil
/// until its own answer arrives, so the pane draws what it has while the rest loads.
public struct MoneyFigures: Equatable, Sendable {
    /// Months of revenue, of offer uses and of MRR movement, ending with as-of's.
    public static let months = 12
    /// MRR's change is against this many days before as-of.
    public static let changeDays = 30

    public var asOf: Instant
    /// The scope the figures were asked for: a section answered for another is not theirs.
    public var scope: ReportScope
    public var mrr: MRRReport
    /// MRR `changeDays` before as-of.
    public var mrrBefore: MRRReport
    /// By month, over ``shownMonths``; nil until it arrives.
    public var revenue: RevenueReport?
    /// Offer uses started in ``shownMonths`` (up to as-of); nil until they arrive.
    public var offers: OfferConversionReport?
    /// MRR movement by month over ``shownMonths`` (up to as-of), per currency; nil until it arrives.
    public var movement: MRRMovement?

    public init(
        asOf: Instant, scope: ReportScope = ReportScope(), mrr: MRRReport, mrrBefore: MRRReport,
        revenue: RevenueReport? = nil, offers: OfferConversionReport? = nil, movement: MRRMovement? = nil
    ) {
        self.asOf = asOf
        self.scope = scope
        self.mrr = mrr
        self.mrrBefore = mrrBefore
        self.revenue = revenue
        self.offers = offers
        self.movement = movement
    }

    /// One section's answer.
    public enum Part: Equatable, Sendable {
        case revenue(RevenueReport)
        case offers(OfferConversionReport)
        case movement(MRRMovement)

        /// The section this answers.
        public var section: MoneySection {
            switch self {
            case .revenue: .revenue
            case .offers: .offers
            case .movement: .movement
            }
        }
    }

    public mutating func apply(_ part: Part) {
        switch part {
        case .revenue(let report): revenue = report
        case .offers(let report): offers = report
        case .movement(let report): movement = report
        }
    }

    /// The sections still to arrive.
    public var missing: [MoneySection] {
        MoneySection.allCases.filter { section in
            switch section {
            case .revenue: revenue == nil
            case .offers: offers == nil
            case .movement: movement == nil
            }
        }
    }

    /// The MRR line in `currency`: MRR at the end of each shown month (the next one's first
    /// instant), then at as-of — movement's mrrEnd of each month, which is `report mrr` there
    /// (docs/metrics.md, "MRR movement"); 0 in a month without the currency; nil until the
    /// movement arrives.
    public func mrrLine(in currency: String) -> [Int64]? {
        guard let movement else { return nil }
        var ends: [Instant: Int64] = [:]
        for row in movement.rows where row.currency == currency { ends[row.bucket.start] = row.mrrEnd }
        return shownMonths.map { ends[$0.start] ?? 0 }
    }

    /// The twelve months ending with as-of's (the one that ended at as-of when it is a month's
    /// first instant), oldest first.
    public static func months(endingAt asOf: Instant) -> [Month] {
        (0..<months).map { lastMonth(asOf: asOf).adding(months: $0 - months + 1) }
    }

    /// MRR at as-of and 30 days before, from one statement: what pane 6 draws first.
    public static func loadNow(_ analytics: SubscriberAnalytics, asOf: Instant, scope: ReportScope) throws -> Self {
        let mrr = try analytics.mrr(at: [asOf, asOf.adding(days: -Int64(changeDays))], scope: scope, committed: false)
        return MoneyFigures(asOf: asOf, scope: scope, mrr: mrr[0], mrrBefore: mrr[1])
    }

    /// One section of the figures at `asOf`.
    public static func load(
        _ section: MoneySection, _ analytics: SubscriberAnalytics, asOf: Instant,
        scope: ReportScope
    ) throws -> Part {
        let from = months(endingAt: asOf)[0].start
        let to = lastMonth(asOf: asOf).end
        switch section {
        case .revenue:
            return .revenue(try analytics.revenue(from: from, to: to, asOf: asOf, by: .month, scope: scope))
        case .offers:
            return .offers(try analytics.offerConversion(from: from, to: to, asOf: asOf, scope: scope))
        case .movement:
            return .movement(try analytics.movement(from: from, to: to, asOf: asOf, by: .month, scope: scope))
        }
    }

    /// Every section at once.
    public static func load(_ analytics: SubscriberAnalytics, asOf: Instant, scope: ReportScope) throws -> Self {
        var figures = try loadNow(analytics, asOf: asOf, scope: scope)
        for section in MoneySection.allCases { figures.apply(try load(section, analytics, asOf: asOf, scope: scope)) }
        return figures
    }

    public var shownMonths: [Month] { Self.months(endingAt: asOf) }

    /// Every currency MRR or revenue has in these figures so far, sorted: amounts are never summed
    /// across them.
    public var currencies: [String] {
        let all =
            [mrr, mrrBefore].flatMap { $0.rows.map(\.currency) } + (revenue?.rows ?? []).map(\.currency)
            + (movement?.rows ?? []).map(\.currency)
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
        for row in revenue?.rows ?? [] { charges[row.currency, default: 0] += row.charged }
        return currencies.max { (charges[$0] ?? 0, $1) < (charges[$1] ?? 0, $0) }
    }

    /// Revenue in `currency` per shown month (a month without a priced item is all zero).
    public func revenue(in currency: String) -> [(month: Month, row: RevenueReport.Row)] {
        shownMonths.map { month in
            (
                month,
                revenue?.rows.first { $0.key == month.description && $0.currency == currency }
                    ?? RevenueReport.Row(key: month.description, currency: currency)
            )
        }
    }
}
