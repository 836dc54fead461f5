import ArgumentParser
import Dashboard
import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

struct Report: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Print the figures defined in docs/metrics.md as a table, CSV or JSON.",
        subcommands: [
            StatesReport.self, EventsReport.self, CohortsReport.self, RecoveryReportCommand.self,
            SubscriberReportCommand.self, EligibilityReport.self, RevenueReportCommand.self,
            RefundsReportCommand.self, MRRReportCommand.self, OffersReportCommand.self, LTVReportCommand.self,
            CampaignsReportCommand.self,
            MovementReportCommand.self, SeriesReportCommand.self,
        ])
}

extension EnvironmentFilter: ExpressibleByArgument {}
extension OwnershipFilter: ExpressibleByArgument {}

/// T is `YYYY-MM-DD` (midnight UTC) or full ISO 8601.
struct InstantArgument: ExpressibleByArgument {
    var instant: Instant
    init?(argument: String) {
        guard let i = Instant(parsing: argument) else { return nil }
        instant = i
    }
    static var defaultValueDescription: String { "YYYY-MM-DD or ISO 8601" }
}

extension Month: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
}

/// Options every report takes.
struct ReportOptions: ParsableArguments {
    @OptionGroup var store: StoreOptions
    @Option(help: "How to print the figures (svg: report series, movement and cohorts).") var format: ReportFormat = .table
    @Option(help: "Only this product.") var product: String?
    @Option(help: "Which App Store environment to count.") var environment: EnvironmentFilter = .production

    var scope: ReportScope { ReportScope(environment: environment, productId: product) }

    func analytics() throws -> SubscriberAnalytics {
        let database = try store.open(readOnly: true)
        switch try database.importActivity() {
        case .idle: break
        case .running:
            printError(
                "subdash: warning: an import or `subdash listen` is writing to this store: "
                    + "the figures may change as it goes on")
        case .interrupted(let pending):
            printError(
                "subdash: warning: \(pending) subscriptions are not rebuilt yet (the last import was interrupted); "
                    + "run `subdash import` again to bring the figures up to date")
        }
        let analytics = SubscriberAnalytics(database: database)
        if let product {
            // An unknown product would print zeros everywhere, as if nobody had bought it.
            let known = try analytics.productIds(scope: ReportScope(environment: .all))
            if !known.contains(product) {
                throw CLIError(SubscriberAnalytics.unknownProductMessage(product, known: known), code: 2)
            }
        }
        return analytics
    }
}

/// `--ownership`, for the reports that can count family members (states, events, recovery).
struct OwnershipOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Whose subscriptions to count.",
            discussion: "familyShared: family members with access through someone else's purchase (Family Sharing)."))
    var ownership: OwnershipFilter = .purchased

    func scope(_ options: ReportOptions) -> ReportScope {
        var scope = options.scope
        scope.ownership = ownership
        return scope
    }
}

/// Said by the reports about paying subscribers.
let purchasedOnlyDiscussion =
    "Counts purchased subscriptions only: a family member with access through someone else's purchase (Family Sharing) pays nothing."

/// `--as-of`, defaulting to the data horizon.
struct AsOfOption: ParsableArguments {
    @Option(
        name: .customLong("as-of"),
        help: ArgumentHelp(
            "The instant figures are read at (default: the data horizon): YYYY-MM-DD (midnight UTC, so that day is not "
                + "included) or ISO 8601 (2025-06-30T12:00:00Z, 2025-06-30T14:00:00+02:00, fractional seconds allowed).",
            valueName: "instant"))
    var asOf: InstantArgument?
}

/// `--from` / `--to` instants, `to` after `from`.
struct RangeOptions: ParsableArguments {
    @Option(help: "Start of the range (inclusive).") var from: InstantArgument
    @Option(help: "End of the range (exclusive).") var to: InstantArgument

    func validate() throws {
        if to.instant <= from.instant {
            throw ValidationError("--to \(to.instant.iso8601) is not after --from \(from.instant.iso8601)")
        }
    }
}

func emit(
    _ format: ReportFormat, json: () throws -> String, csv: () -> String, table: () -> String,
    svg: (() -> String)? = nil
) rethrows {
    switch format {
    case .json: print(try json())
    case .csv: printCSV(csv())
    case .table: print(TextSanitizer.visibleLines(table()))
    case .svg:
        guard let svg else {
            printError("subdash: --format svg draws report series, movement and cohorts only")
            exit(ExitStatus.usage)
        }
        print(svg())
    }
}

func percent(_ rate: Double?) -> String {
    guard let rate else { return "–" }
    return String(format: "%.1f%%", rate * 100)
}

// MARK: - states

struct StatesReport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "states", abstract: "Subscriptions in each state at as-of.")
    @OptionGroup var options: ReportOptions
    @OptionGroup var ownership: OwnershipOption
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var plan: PlanOption

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let counts = try analytics.states(asOf: at, scope: plan.applied(to: ownership.scope(options)))
        try emit(
            options.format, json: { try ReportJSON.states(counts) },
            csv: {
                CSV.render(
                    header: ["state", "subscriptions"],
                    rows: SubscriptionState.allCases.map { [$0.rawValue, "\(counts[$0])"] }
                        + [["active", "\(counts.active)"]])
            },
            table: {
                var t = TextTable(headers: ["state", "subscriptions", "share"], rightAligned: [1, 2])
                let total = counts.total
                t.rows = SubscriptionState.allCases.map {
                    [$0.rawValue, grouped(counts[$0]), percent(total == 0 ? nil : Double(counts[$0]) / Double(total))]
                }
                t.rows.append([
                    "active", grouped(counts.active), percent(total == 0 ? nil : Double(counts.active) / Double(total)),
                ])
                t.footer = ["total", grouped(total), ""]
                return "States as of \(at.asOfText)\n" + t.render()
            })
    }
}

// MARK: - events

struct EventsReport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "events", abstract: "Events with their instant in [from, to).")
    @OptionGroup var options: ReportOptions
    @OptionGroup var ownership: OwnershipOption
    @OptionGroup var range: RangeOptions
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var plan: PlanOption

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let counts = try analytics.events(
            from: range.from.instant, to: range.to.instant, asOf: at,
            scope: plan.applied(to: ownership.scope(options)))
        try emit(
            options.format, json: { try ReportJSON.events(counts) },
            csv: {
                CSV.render(
                    header: ["event", "reason", "count"],
                    rows: EventType.allCases.map { [$0.rawValue, "", "\(counts[$0])"] }
                        + ExpirationReason.allCases.map { ["expiration", $0.rawValue, "\(counts[$0])"] })
            },
            table: {
                var t = TextTable(headers: ["event", "count"], rightAligned: [1])
                t.rows = EventType.allCases.map { [$0.rawValue, grouped(counts[$0])] }
                t.rows += ExpirationReason.allCases.map { ["  expiration: \($0.rawValue)", grouped(counts[$0])] }
                return "Events in [\(counts.from.asOfText), \(counts.to.asOfText)) as of \(at.asOfText)\n" + t.render()
            })
    }
}

// MARK: - cohorts

extension BillingDuration: ExpressibleByArgument {}

struct CohortsReport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cohorts", abstract: "Retention by cohort month and paid period (Kaplan–Meier).",
        discussion: """
            A member is a run with a paid period, in the month of its first paid period. P1…P12 are paid \
            periods, not calendar months: rate[k] is the Kaplan–Meier estimate of the share that reached \
            paid period k+1, over the members whose fate at each step is known (– while nobody's is). \
            \(purchasedOnlyDiscussion) Definitions in docs/metrics.md, "Retention cohorts".
            """)
    @OptionGroup var options: ReportOptions
    @OptionGroup var asOf: AsOfOption
    @Option(help: "Paid periods to show (P1…P).") var periods = 12
    @Option(help: "First cohort month (YYYY-MM).") var from: Month?
    @Option(help: "Last cohort month (YYYY-MM).") var to: Month?
    @Option(
        help: ArgumentHelp(
            "Only members whose first paid product bills for this duration (the most frequent length of its standard periods).",
            valueName: "duration"))
    var duration: BillingDuration?
    @OptionGroup var plan: PlanOption

    func validate() throws {
        if periods < 1 || periods > 120 { throw ValidationError("--periods must be between 1 and 120") }
        if let from, let to, to < from { throw ValidationError("--to \(to) is before --from \(from)") }
    }

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        if let duration {
            let known = try analytics.billingDurations()
            guard known.contains(duration) else {
                throw CLIError(
                    "no product in the store bills \(duration.adjective) (--duration "
                        + (known.isEmpty
                            ? "has nothing to choose from: no standard period yet)"
                            : "takes \(known.map(\.rawValue).joined(separator: ", ")))"),
                    code: 2)
            }
        }
        let grid = try analytics.cohorts(
            asOf: at, periods: periods, from: from, to: to, duration: duration, scope: plan.applied(to: options.scope))
        let store = URL(fileURLWithPath: options.store.path).lastPathComponent
        try emit(
            options.format, json: { try ReportJSON.cohorts(grid) },
            csv: {
                var rows: [[String]] = []
                func add(_ label: String, _ c: CohortGrid.Row) {
                    let rate = c.rate
                    for k in 0..<grid.periods {
                        rows.append([
                            label, "\(c.started)", "\(k + 1)", "\(c.retained[k])", "\(c.ended[k])",
                            rate[k].map { String($0) } ?? "",
                        ])
                    }
                }
                for c in grid.cohorts { add(c.month.description, c) }
                add("average", grid.average)
                return CSV.render(header: ["month", "started", "period", "retained", "ended", "rate"], rows: rows)
            },
            table: {
                let shown = min(grid.periods, 6)
                var t = TextTable(
                    headers: ["cohort", "started"] + (1...shown).map { "P\($0)" }, rightAligned: Set(1...(shown + 1)))
                t.rows = grid.cohorts.map { c in
                    let rate = c.rate
                    return [c.month.description, grouped(c.started)] + (0..<shown).map { percent(rate[$0]) }
                }
                let avg = grid.average
                let averageRate = avg.rate
                t.footer = ["average", grouped(avg.started)] + (0..<shown).map { percent(averageRate[$0]) }
                var text = "Retention by paid periods as of \(at.asOfText)"
                if let duration { text += ", \(duration.adjective) products" }
                text +=
                    " (Kaplan–Meier: share reaching the next paid period among members whose fate is known; – not known yet)\n"
                text += t.render()
                if shown < grid.periods { text += "\n(\(grid.periods - shown) more periods: use --format csv or json)" }
                return text
            },
            svg: { ReportCharts.cohortsSVG(grid, store: store) })
    }
}

// MARK: - recovery

struct RecoveryReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recovery", abstract: "Billing failures in [from, to) and how they ended.")
    @OptionGroup var options: ReportOptions
    @OptionGroup var ownership: OwnershipOption
    @OptionGroup var range: RangeOptions
    @OptionGroup var asOf: AsOfOption
    @OptionGroup var plan: PlanOption

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let r = try analytics.recovery(
            from: range.from.instant, to: range.to.instant, asOf: at,
            scope: plan.applied(to: ownership.scope(options)))
        try emit(
            options.format, json: { try ReportJSON.recovery(r) },
            csv: {
                CSV.render(
                    header: ["failures", "recovered", "expired", "pending"]
                        + RecoveryReport.dayThresholds.map { "recoveredWithin\($0)Days" },
                    rows: [
                        ["\(r.failures)", "\(r.recovered)", "\(r.expired)", "\(r.pending)"]
                            + RecoveryReport.dayThresholds.map { "\(r.recoveredWithinDays[$0] ?? 0)" }
                    ])
            },
            table: {
                func share(_ n: Int) -> String { percent(r.failures == 0 ? nil : Double(n) / Double(r.failures)) }
                var t = TextTable(headers: ["billing failures", "count", "share"], rightAligned: [1, 2])
                t.rows = [
                    ["recovered", grouped(r.recovered), share(r.recovered)], ["expired", grouped(r.expired), share(r.expired)],
                    ["pending", grouped(r.pending), share(r.pending)],
                ]
                t.rows += RecoveryReport.dayThresholds.map { d in
                    let n = r.recoveredWithinDays[d] ?? 0
                    return ["  recovered within \(d) days", grouped(n), share(n)]
                }
                t.footer = ["total", grouped(r.failures), ""]
                return "Billing failures in [\(r.from.asOfText), \(r.to.asOfText)) as of \(at.asOfText)\n" + t.render()
            })
    }
}

// MARK: - subscriber

struct SubscriberReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscriber",
        abstract: "One subscriber's timeline and figures.",
        discussion: """
            ID may be an originalTransactionId, transactionId, webOrderLineItemId, appAccountToken, appTransactionId \
            (every subscription of that Apple Account is listed), user id or email (any case); when nothing matches it exactly, a prefix or part of one, as the dashboard's / search and \
            :user read it. Every environment is searched; several matches are listed to pick from.
            """)
    @OptionGroup var options: ReportOptions
    @OptionGroup var asOf: AsOfOption
    @Argument(help: "Any id of the subscriber.") var id: String

    mutating func run() async throws {
        let analytics = try options.analytics()
        switch try analytics.subscriber(id, asOf: asOf.asOf?.instant) {
        case .notFound(let id):
            throw CLIError(
                "no subscription matches \(id) (tried originalTransactionId, transactionId, webOrderLineItemId, appAccountToken, user id and email)"
            )
        case .ambiguous(let id, let matches):
            throw CLIError(try Self.ambiguity(id, matches, analytics: analytics, asOf: asOf.asOf?.instant))
        case .found(let report):
            try emit(
                options.format, json: { try ReportJSON.subscriber(report) },
                csv: {
                    // One row per period, each led by the subscriber's own fields (one flat table a
                    // spreadsheet opens); a subscriber with no period still gets its row.
                    let r = report
                    let subscriber = [
                        r.originalTransactionId, r.userId ?? "", r.email ?? "", r.appAccountToken ?? "",
                        r.asOf.iso8601, r.state?.rawValue ?? "", r.autoRenew.map { $0 ? "true" : "false" } ?? "",
                        r.autoRenewProductId ?? "", r.inBillingRetry ? "true" : "false",
                        r.gracePeriodExpires?.iso8601 ?? "", r.expirationReason?.rawValue ?? "", r.priceIncrease ?? "",
                        "\(r.paidPeriods)", "\(r.billingFailures)",
                    ]
                    let periods = zip(r.timeline.periods, r.money).map { p, m in
                        [
                            p.transactionId, p.productId, p.start.iso8601, p.end.iso8601, p.offerKind.rawValue,
                            p.periodClass.rawValue, p.isRefunded ? "true" : "false", m.price.map(MoneyFormat.plain) ?? "",
                            m.price == nil ? "" : m.currency ?? "", m.refundAmount.map(MoneyFormat.plain) ?? "",
                            m.upgradeCredit.map(MoneyFormat.plain) ?? "",
                        ]
                    }
                    return CSV.render(
                        header: [
                            "originalTransactionId", "userId", "email", "appAccountToken", "asOf", "state",
                            "autoRenew", "autoRenewProductId", "inBillingRetry", "gracePeriodExpires",
                            "expirationReason", "priceIncrease", "paidPeriods", "billingFailures", "paid",
                            "paidServiceDays", "transactionId", "productId", "start", "end", "offerKind", "class",
                            "refunded", "price", "currency", "refundAmount", "upgradeCredit",
                        ],
                        rows: (periods.isEmpty ? [Array(repeating: "", count: 11)] : periods).map { subscriber + $0 })
                }, table: { SubscriberText.render(report) })
        }
    }
}

extension SubscriberReportCommand {
    /// "N subscriptions match ID" and the first of them as the dashboard lists them (any
    /// environment), so the right one can be picked by its originalTransactionId.
    static func ambiguity(_ id: String, _ matches: [String], analytics: SubscriberAnalytics, asOf: Instant?) throws -> String {
        let shown = 20
        let at = try analytics.resolveAsOf(asOf)
        let rows = try analytics.subscriberList(
            offset: 0, limit: AppDatabase.searchLimit, asOf: at, scope: ReportScope(environment: .all, ownership: .all),
            matching: id)
        let byId = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var table = TextTable(headers: ["subscription", "environment", "product", "state", "user", "email"])
        table.rows = matches.prefix(shown).map { match in
            guard let row = byId[match] else { return [match, "", "", "", "", ""] }
            return [
                row.id, row.environment.rawValue, row.productId, row.state ?? "not started", row.userId ?? "", row.email ?? "",
            ].map(TextSanitizer.visible)
        }
        let count = matches.count >= AppDatabase.searchLimit ? "\(grouped(AppDatabase.searchLimit))+" : grouped(matches.count)
        // An appTransactionId names one Apple Account: its subscriptions are listed as such.
        let account = try analytics.database.subscriptions(sharingAppTransactionId: id) == matches
        var text =
            (account
                ? "\(count) subscriptions of this Apple Account (appTransactionId \(TextSanitizer.visible(id))); "
                    + "pass one originalTransactionId:\n"
                : "\(count) subscriptions match \(TextSanitizer.visible(id)); pass one originalTransactionId:\n")
            + table.render()
        if matches.count > shown { text += "\n… and \(grouped(matches.count - shown)) more" }
        return text
    }
}

enum SubscriberText {
    static func render(_ r: SubscriberReport) -> String {
        var lines: [String] = []
        lines.append("Subscription \(r.originalTransactionId) as of \(r.asOf.asOfText)")
        func field(_ name: String, _ value: String?) {
            lines.append("  " + name.padding(toLength: 20, withPad: " ", startingAt: 0) + (value ?? "–"))
        }
        field("user", [r.userId, r.email].compactMap { $0 }.joined(separator: " ").nilIfEmpty)
        field("appAccountToken", r.appAccountToken)
        field("environment", r.timeline.environment.rawValue)
        field("ownership", SubscriberText.ownership(r))
        field("product", r.productId)
        field("state", r.state?.rawValue ?? "not started")
        if let commitment = r.commitment { field("commitment", commitment.summary) }
        if r.owedPaymentFailed { field("access", CommitmentStatus.noGrace) }
        field("auto-renew", r.autoRenew.map { $0 ? "on" : "off" })
        field("renews to", r.autoRenewProductId)
        if let end = r.accessEnd { field(end.label, "\(end.at.iso8601) (\(r.fromAsOf(end.at)))") }
        field(
            "billing retry",
            r.billingRetrySince.map { since in
                "since \(since.iso8601) (\(r.fromAsOf(since)))"
                    + (r.billingRetryEnds.map { ", until \($0.iso8601) at most" } ?? "")
            } ?? "no")
        field("grace until", r.gracePeriodExpires?.iso8601)
        field("price increase", r.priceIncrease)
        field("expiration reason", r.expirationReason?.rawValue)
        field(
            "paid periods",
            r.runs > 1 ? "\(r.paidPeriods) this run, \(r.paidPeriodsInAllRuns) in \(r.runs) runs" : "\(r.paidPeriods)")
        field("billing failures", "\(r.billingFailures)")
        if r.unverifiedDocuments > 0 {
            field(
                "unverified",
                "\(r.unverifiedDocuments) unsigned document\(r.unverifiedDocuments == 1 ? "" : "s"), not applied to a signed subscription"
            )
        }
        field("paid", r.paid.keys.sorted().map { MoneyFormat.text(r.paid[$0]!, $0) }.joined(separator: ", ").nilIfEmpty)
        field("paid service", "\(r.paidServiceDays) days")
        SubscriberText.renewalDetails(r, field)
        lines.append("")
        var periods = TextTable(
            headers: ["transaction", "product", "start", "end", "offer", "class", "price", "returned"],
            rightAligned: [6, 7])
        periods.rows = zip(r.timeline.periods, r.money).map { p, m in
            let price = m.price.map { MoneyFormat.text($0, m.currency) } ?? (m.isCharged ? "unpriced" : "–")
            let returned =
                (m.refundAmount ?? m.upgradeCredit).map { MoneyFormat.text($0, m.currency) }
                ?? (p.isRefunded ? "refunded" : p.isSharingRevoked ? "sharing revoked" : "")
            return [
                p.transactionId, p.productId, p.start.isoDate, p.end.isoDate,
                SubscriberText.offer(p, r), p.periodClass.rawValue, price, returned,
            ]
        }
        lines.append(periods.render())
        lines.append("")
        var events = TextTable(headers: ["at", "event", "product"])
        events.rows = r.events.map {
            [$0.at.iso8601, $0.type.rawValue + ($0.expirationReason.map { " (\($0.rawValue))" } ?? ""), $0.productId]
        }
        lines.append(events.render())
        if !r.flags.isEmpty {
            lines.append("")
            var flags = TextTable(headers: ["flag", "by", "at", "note"])
            flags.rows = r.flags.map { [$0.offer.rawValue, $0.operatorName, $0.at.iso8601, $0.note ?? ""] }
            lines.append(flags.render())
        }
        return lines.joined(separator: "\n")
    }

    /// Apple's renewal details (docs/metrics.md, "Renewal details from Apple"), as pane 2 says them.
    static func renewalDetails(_ r: SubscriberReport, _ field: (String, String?) -> Void) {
        field("renewal", RenewalText.nextCharge(r))
        field("win-back offers", r.renewal.eligibleWinBackOfferIds.joined(separator: ", ").nilIfEmpty)
        field("apple account", RenewalText.appleAccount(r))
    }

    /// The period's offer kind, with the offer's length and who started it when Apple says
    /// ("introductory (1 month, by Apple)").
    static func offer(_ p: Period, _ r: SubscriberReport) -> String {
        let detail = RenewalText.period(r.renewal.periods[p.transactionId])
        return p.offerKind.rawValue + (detail.isEmpty ? "" : " (\(detail))")
    }

    /// "purchased", or the Family Sharing line the Subscriber pane shows.
    static func ownership(_ r: SubscriberReport) -> String {
        guard r.timeline.isFamilyShared else { return "purchased" }
        var text = "Family Sharing — access through a family member's purchase"
        if let revoked = r.timeline.sharingRevokedAt { text += "; sharing revoked on \(revoked.isoDate)" }
        return text
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}

// MARK: - eligibility

struct EligibilityReport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eligibility", abstract: "Subscribers suggested for each offer at as-of.",
        discussion: purchasedOnlyDiscussion)
    @OptionGroup var options: ReportOptions
    @OptionGroup var asOf: AsOfOption
    @Option(help: "Only this offer (any case).") var offer: OfferFlagKind?

    mutating func run() async throws {
        let analytics = try options.analytics()
        let at = try analytics.resolveAsOf(asOf.asOf?.instant)
        let rows = try analytics.eligibility(asOf: at, offer: offer, scope: options.scope)
        try emit(
            options.format, json: { try ReportJSON.eligibility(rows, asOf: at) },
            csv: {
                CSV.render(
                    header: ["offer", "originalTransactionId", "productId", "detail"],
                    rows: rows.map { [$0.offer.rawValue, $0.originalTransactionId, $0.productId, $0.detail] })
            },
            table: {
                var t = TextTable(headers: ["offer", "subscription", "product", "why"])
                t.rows = rows.map { [$0.offer.rawValue, $0.originalTransactionId, $0.productId, $0.detail] }
                let kinds = offer.map { [$0] } ?? OfferFlagKind.allCases
                t.note = kinds.map { k in "\(k.rawValue) \(grouped(rows.filter { $0.offer == k }.count))" }.joined(
                    separator: ", ")
                return "Eligible as of \(at.asOfText)\n" + t.render()
            })
    }
}
