import AppStoreServerAPI
import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel

/// `subdash offers catalogue`: which Apple offer each flag kind means, checked against the store.
struct OffersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offers", abstract: "The offer catalogue: which Apple offer each flag kind means.",
        subcommands: [Catalogue.self, Served.self])

    struct Served: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "served",
            abstract: "List the signed offers handed out (offer sign, GET /offers/…): who, which offer, when, oldest first.")

        @OptionGroup var store: StoreOptions
        @Option(help: "Only this subscription (an originalTransactionId).") var subscription: String?
        @Option(help: "How to print the list.") var format: OutputFormat = .table

        mutating func run() async throws {
            do {
                try store.requireExisting()
                let db = try store.open(readOnly: true)
                let served = try db.servedOffers(originalTransactionId: subscription)
                let headers = [
                    "at", "originalTransactionId", "flag", "offerKind", "offerIdentifier", "productId", "format", "client",
                ]
                let rows = served.map { s in
                    [
                        s.at.iso8601, s.originalTransactionId, s.flag?.rawValue ?? "", s.offerKind, s.offerIdentifier,
                        s.productId,
                        s.format, s.client,
                    ]
                }
                switch format {
                case .json:
                    var o = JSONOutputObject()
                    o["served"] = .array(
                        served.map { s in
                            var row = JSONOutputObject()
                            row["at"] = .string(s.at.iso8601)
                            row["originalTransactionId"] = .string(s.originalTransactionId)
                            row["flag"] = s.flag.map { .string($0.rawValue) } ?? .null
                            row["flagAt"] = s.flagAt.map { .string($0.iso8601) } ?? .null
                            row["offerKind"] = .string(s.offerKind)
                            row["offerIdentifier"] = .string(s.offerIdentifier)
                            row["productId"] = .string(s.productId)
                            row["format"] = .string(s.format)
                            row["client"] = .string(s.client)
                            return .object(row)
                        })
                    printOutput(JSONOutput.object(o).text)
                case .csv: printCSV(CSV.render(header: headers, rows: rows))
                case .table: printOutput(TextTable(headers: headers, rows: rows, note: "\(served.count) served").render())
                }
            } catch let error as CLIError { error.exit() }
        }
    }

    struct Catalogue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "catalogue",
            abstract: "List the [offers.KIND] entries of the configuration file with the redemptions the store has seen.",
            discussion: """
                An offer no stored transaction has redeemed is a warning, not an error: a new offer has no \
                redemptions yet, but a typo in its id looks the same.
                """)

        @OptionGroup var store: StoreOptions
        @Option(help: "The configuration file (default: $XDG_CONFIG_HOME/subdash/config.toml).") var config: String?
        @Option(help: "How to print the catalogue.") var format: OutputFormat = .table

        mutating func run() async throws {
            do {
                let (catalogue, path) = try CatalogueFile.load(config)
                try store.requireExisting()
                let db = try store.open(readOnly: true)
                let counts = try db.offerRedemptionCounts()
                guard !catalogue.isEmpty else {
                    throw CLIError("\(path ?? "the configuration file") has no [offers.KIND] section: no flag means an offer yet")
                }
                var rows: [[String]] = []
                var json: [JSONOutput] = []
                for entry in catalogue.entries {
                    let seen = counts[entry.offer.kind.offerType]?[entry.offer.identifier] ?? 0
                    if seen == 0 {
                        printError(
                            "warning: \(entry.flag.rawValue) \(entry.key): no stored transaction redeemed \(entry.offer.text) "
                                + "(offerType \(entry.offer.kind.offerType)); right for a new offer, else check the id")
                    }
                    rows.append([
                        entry.flag.rawValue, entry.key, entry.offer.kind.rawValue, entry.offer.identifier, String(seen),
                    ])
                    var o = JSONOutputObject()
                    o["flag"] = .string(entry.flag.rawValue)
                    o["product"] = .string(entry.key)
                    o["offerKind"] = .string(entry.offer.kind.rawValue)
                    o["offerIdentifier"] = .string(entry.offer.identifier)
                    o["redemptions"] = .int(seen)
                    json.append(.object(o))
                }
                switch format {
                case .json:
                    var o = JSONOutputObject()
                    o["offers"] = .array(json)
                    printOutput(JSONOutput.object(o).text)
                case .csv:
                    printCSV(
                        CSV.render(header: ["flag", "product", "offerKind", "offerIdentifier", "redemptions"], rows: rows))
                case .table:
                    printOutput(
                        TextTable(
                            headers: ["flag", "product", "offer kind", "offer id", "redemptions"], rows: rows,
                            rightAligned: [4]
                        ).render())
                }
            } catch let error as CLIError { error.exit() }
        }
    }
}

/// The catalogue alone (no key needed), from `--config` or the default configuration file.
enum CatalogueFile {
    /// The catalogue and the file it came from (nil when there is no file: an empty catalogue).
    static func load(_ option: String?) throws -> (OfferCatalogue, String?) {
        do throws(AppStoreAPIError) {
            guard let path = option ?? ConfigFile.defaultPath(),
                option != nil || FileManager.default.fileExists(atPath: path)
            else { return (OfferCatalogue(), nil) }
            return (try OfferCatalogue(ConfigFile(contentsOf: path), path: path), path)
        } catch {
            throw CLIError(error.message, code: ExitStatus.usage)
        }
    }
}

/// What a flag kind will mean for the subscriptions being flagged, grouped by product.
struct FlagOfferMeaning {
    /// The catalogue's file (nil: there is none).
    var path: String?
    /// Product → (offer, subscriptions) for products the catalogue has an offer for.
    var with: [String: (OfferCatalogue.Offer, Int)] = [:]
    /// Product → subscriptions, for products it has none for.
    var without: [(key: String, value: Int)] = []

    init(db: AppDatabase, offer: OfferFlagKind, targets: [String], config: String?) throws {
        let (catalogue, path) = try CatalogueFile.load(config)
        self.path = path
        var without: [String: Int] = [:]
        for id in targets {
            guard let subject = try db.offerSubject(originalTransactionId: id) else {
                without["(no transaction)", default: 0] += 1
                continue
            }
            if let found = catalogue.offer(
                for: offer, productId: subject.productId, group: subject.subscriptionGroupIdentifier)
            {
                with[subject.productId, default: (found, 0)].1 += 1
            } else {
                without[subject.productId, default: 0] += 1
            }
        }
        self.without = without.sorted { $0.key < $1.key }
        self.offer = offer
    }

    var offer: OfferFlagKind

    /// One line per product: "retention on com.example.monthly means promotional:save-30 (3 subscriptions)".
    var lines: [String] {
        func count(_ n: Int) -> String { "\(n) subscription\(n == 1 ? "" : "s")" }
        return with.sorted { $0.key < $1.key }.map {
            "\(offer.rawValue) on \($0.key) means \($0.value.0.text) (\(count($0.value.1)))"
        }
            + without.map { "\(offer.rawValue) on \($0.key) means no offer yet: the catalogue has none (\(count($0.value)))" }
    }
}
