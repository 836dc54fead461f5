import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI

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

/// Prints `output` in `format`: the one place a report's definition (ReportOutputs) meets stdout.
func emit(_ output: some ReportOutput, format: ReportFormat) {
    switch format {
    case .json: print(output.json)
    case .csv: printCSV(output.csv.text)
    case .table: print(TextSanitizer.visibleLines(output.table))
    case .svg:
        guard let svg = output.svg else {
            printError("subdash: --format svg draws report series, movement and cohorts only")
            exit(ExitStatus.usage)
        }
        print(svg)
    }
}
