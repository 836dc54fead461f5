import ArgumentParser
import Foundation
import SubscriberAnalytics
import SubscriptionModel

extension RevenueGrouping: ExpressibleByArgument {}
extension RefundGrouping: ExpressibleByArgument {}
extension MRRGrouping: ExpressibleByArgument {}

/// `--currency C --rates FILE`: convert every amount to C (docs/metrics.md "Money", "Conversion").
struct ConversionOptions: ParsableArguments {
    @Option(help: "Convert every amount to this currency (needs --rates).") var currency: String?
    @Option(help: "CSV of rates to --currency: `currency,rate` or `currency,YYYY-MM,rate` rows after a header line.")
    var rates: String?

    func validate() throws {
        if (currency == nil) != (rates == nil) { throw ValidationError("--currency and --rates go together") }
        if let c = currency, c.count != 3 || !c.allSatisfy(\.isLetter) {
            throw ValidationError("--currency \(c) is not a 3-letter code")
        }
    }

    func load() throws -> CurrencyRates? {
        guard let currency, let rates else { return nil }
        let text: String
        do { text = try String(contentsOfFile: rates, encoding: .utf8) } catch {
            throw CLIError("cannot read \(rates): \(error.localizedDescription)")
        }
        do { return try CurrencyRates(target: currency, csv: text, source: rates) } catch let e as AnalyticsError {
            throw CLIError(e.message)
        }
    }
}

/// Runs a money report, turning a missing rate into one line naming it.
func moneyReport<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let e as AnalyticsError { throw CLIError(e.message) }
}

// MARK: - revenue

struct RevenueReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revenue",
        abstract: "Gross, refunds, upgrade credits, net and estimated proceeds in [from, to), per currency.",
        discussion:
            "Each amount counts at its own instant: a charge at its period's start, a refund at its revocation, an upgrade credit at the cut. Proceeds are an estimate: tax is not removed (docs/metrics.md, \"Money\")."
    )
    @OptionGroup var options: ReportOptions
    @OptionGroup var plan: PlanOption
    @OptionGroup var range: RangeOptions
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var conversion: ConversionOptions
    @Option(help: "What to group the amounts by (currency: each amount's own, also when converted).") var by: RevenueGrouping?
    @Flag(name: .customLong("small-business"), help: "Proceeds at 85 % throughout (App Store Small Business Program).")
    var smallBusiness = false

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let rates = try conversion.load()
        let r = try moneyReport {
            try analytics.revenue(
                from: range.from.instant, to: range.to.instant, asOf: at, by: by, scope: plan.applied(to: options.scope),
                rates: rates, smallBusiness: smallBusiness)
        }
        emit(
            options.format, json: { ReportJSON.revenue(r) },
            csv: {
                CSV.render(
                    header: ["key", "currency", "charged", "gross", "refunded", "refunds", "upgradeCredits", "net", "proceeds"],
                    rows: r.rows.map {
                        [
                            $0.key ?? "", $0.currency, "\($0.charged)", MoneyFormat.plain($0.gross), "\($0.refunded)",
                            MoneyFormat.plain($0.refunds), MoneyFormat.plain($0.upgradeCredits), MoneyFormat.plain($0.net),
                            MoneyFormat.plain($0.proceeds),
                        ]
                    })
            }, table: { MoneyTables.revenue(r) })
    }
}

// MARK: - refunds

struct RefundsReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refunds",
        abstract: "Charged periods started in [from, to) and how many were refunded by as-of.")
    @OptionGroup var options: ReportOptions
    @OptionGroup var plan: PlanOption
    @OptionGroup var range: RangeOptions
    @OptionGroup var asOf: AsOfOption
    @Option(help: "What to group the refunds by.") var by: RefundGrouping = .month

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let r = try analytics.refundRate(
            from: range.from.instant, to: range.to.instant, asOf: at, by: by, scope: plan.applied(to: options.scope))
        emit(
            options.format, json: { ReportJSON.refunds(r) },
            csv: {
                CSV.render(
                    header: ["key", "charged", "refunded", "rate"],
                    rows: r.rows.map { [$0.key, "\($0.charged)", "\($0.refunded)", $0.rate.map { "\($0)" } ?? ""] })
            }, table: { MoneyTables.refunds(r) })
    }
}

// MARK: - mrr

struct MRRReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mrr",
        abstract: "Monthly recurring revenue at as-of, per currency.",
        discussion:
            "Every purchased subscription on a charged period at as-of (or in grace after one), its price made monthly by its billing length: a week × 52/12, a year / 12 (docs/metrics.md, \"Money\"). Free trials and billing retry add nothing."
    )
    @OptionGroup var options: ReportOptions
    @OptionGroup var plan: PlanOption
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var conversion: ConversionOptions
    @Option(help: "What to group by (currency: each subscription's own, also when converted).") var by: MRRGrouping?

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let rates = try conversion.load()
        let r = try moneyReport { try analytics.mrr(asOf: at, by: by, scope: plan.applied(to: options.scope), rates: rates) }
        emit(
            options.format, json: { ReportJSON.mrr(r) },
            csv: {
                CSV.render(
                    header: ["key", "currency", "subscriptions", "mrr", "commitments", "committed"],
                    rows: r.rows.map {
                        [
                            $0.key ?? "", $0.currency, "\($0.subscriptions)", MoneyFormat.plain($0.mrr), "\($0.commitments)",
                            MoneyFormat.plain($0.committed),
                        ]
                    })
            }, table: { MoneyTables.mrr(r) })
    }
}

// MARK: - offers

struct OffersReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offers",
        abstract: "Offer uses started in [from, to): converted, lapsed, switched, pending, and P3/P6 retention of the converted.")
    @OptionGroup var options: ReportOptions
    @OptionGroup var range: RangeOptions
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var plan: PlanOption

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let r = try analytics.offerConversion(
            from: range.from.instant, to: range.to.instant, asOf: at, scope: plan.applied(to: options.scope))
        emit(
            options.format, json: { ReportJSON.offers(r) },
            csv: {
                CSV.render(
                    header: [
                        "offerKind", "offerIdentifier", "started", "converted", "lapsed", "switched", "pending", "rate",
                        "retention3", "retention6",
                    ],
                    rows: r.offers.map {
                        [
                            $0.offerKind.rawValue, $0.offerIdentifier ?? "", "\($0.started)", "\($0.converted)", "\($0.lapsed)",
                            "\($0.switched)", "\($0.pending)", $0.rate.map { "\($0)" } ?? "", $0.retention3.map { "\($0)" } ?? "",
                            $0.retention6.map { "\($0)" } ?? "",
                        ]
                    })
            }, table: { MoneyTables.offers(r) })
    }
}

// MARK: - ltv

struct LTVReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ltv",
        abstract: "Realized lifetime value per member of each retention cohort, per currency, after P1…P12.")
    @OptionGroup var options: ReportOptions
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var conversion: ConversionOptions
    @Option(help: "Paid periods (columns).") var periods = 12
    @Option(help: "First cohort month (YYYY-MM; default: the first cohort).") var from: Month?
    @Option(help: "Last cohort month (YYYY-MM; default: the as-of month).") var to: Month?
    @OptionGroup var plan: PlanOption

    func validate() throws {
        if periods < 1 { throw ValidationError("--periods must be at least 1") }
    }

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let rates = try conversion.load()
        let r = try moneyReport {
            try analytics.ltv(
                asOf: at, periods: periods, from: from, to: to, scope: plan.applied(to: options.scope), rates: rates)
        }
        emit(
            options.format, json: { ReportJSON.ltv(r) },
            csv: {
                var rows: [[String]] = []
                for c in r.cohorts + r.average {
                    for k in 0..<r.periods {
                        rows.append([
                            c.month?.description ?? "average", c.currency, "\(c.started)", "\(k + 1)",
                            c.rate[k].map { "\($0)" } ?? "",
                            c.ltv[k].map { MoneyFormat.plain(Int64($0.rounded(.toNearestOrAwayFromZero))) } ?? "",
                        ])
                    }
                }
                return CSV.render(header: ["month", "currency", "started", "period", "rate", "ltv"], rows: rows)
            }, table: { MoneyTables.ltv(r) })
    }
}
