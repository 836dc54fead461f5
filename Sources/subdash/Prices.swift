import ArgumentParser
import Foundation
import SubscriberStore
import SubscriptionTimeline

/// `subdash prices import FILE`: the price table for periods whose transaction carries no price.
struct Prices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prices",
        abstract: "The price table for periods without a price of their own (every v1 period).",
        subcommands: [PricesImport.self])
}

struct PricesImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Replace the price table with a CSV file.",
        discussion: """
            The file's first line is `\(PriceTableStore.header)`; price in currency units (at most 3 \
            decimals), storefront a 3-letter code or empty for any, validFrom a date (YYYY-MM-DD). A charged \
            standard period without a price of its own takes the latest row for its product and storefront \
            valid at its start (docs/metrics.md, "Money").
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The CSV file.") var file: String

    mutating func run() async throws {
        let text: String
        do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
            CLIError("cannot read \(file): \(error.localizedDescription)").exit()
        }
        let rows: [PriceTableRow]
        do { rows = try PriceTableStore.parse(text, source: file) } catch let e as StoreError { CLIError(e.message).exit() }
        let database = try store.open()
        let rebuilt = try PriceTableStore.replace(in: database, with: rows)
        printError("subdash prices import: \(rows.count) rows; \(rebuilt) subscriptions re-priced")
    }
}
