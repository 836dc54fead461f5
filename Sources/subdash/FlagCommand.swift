import ArgumentParser
import Foundation
import SubscriberStore
import SubscriptionModel

extension OfferFlagKind: ExpressibleByArgument {
    /// Any case: `--offer winback` is `winBack`.
    public init?(argument: String) {
        guard let kind = Self.allCases.first(where: { $0.rawValue.lowercased() == argument.lowercased() }) else { return nil }
        self = kind
    }
}

struct FlagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flag",
        abstract: "Flag subscribers for an offer (or clear the flag), with an audit log entry each.",
        discussion: "Each ID may be an originalTransactionId, transactionId, webOrderLineItemId, appAccountToken, user id or email.")

    @OptionGroup var store: StoreOptions
    @Argument(help: "Subscribers to flag.") var ids: [String]
    @Option(help: "winBack, retention, upgrade, loyalty or service.") var offer: OfferFlagKind
    @Option(help: "A note kept with the flag.") var note: String?
    @Flag(help: "Remove the flag instead of setting it.") var clear = false
    @Option(name: .customLong("operator"), help: "Who sets the flag (default: $USER).") var operatorName: String?

    func validate() throws {
        if ids.isEmpty { throw ValidationError("give at least one subscriber id") }
    }

    mutating func run() async throws {
        let db: AppDatabase
        do { db = try store.open() } catch let e as CLIError { e.exit() }
        var targets: [String] = []
        var problems: [String] = []
        for id in ids {
            let found = try db.subscriptions(matching: id)
            switch found.count {
            case 0: problems.append("no subscription matches \(id)")
            case 1: targets.append(found[0])
            default: problems.append("\(id) matches \(found.count) subscriptions (\(found.prefix(5).joined(separator: ", "))); use an originalTransactionId")
            }
        }
        for p in problems { printError("subdash flag: \(p)") }
        let who = OpenDashboard.operatorName(operatorName)
        let changed = try db.setFlags(offer, on: targets, note: note, operatorName: who,
                                      at: Instant(Date()), clear: clear)
        let verb = clear ? "cleared \(offer.rawValue) on" : "flagged for \(offer.rawValue):"
        print("\(verb) \(changed) subscription\(changed == 1 ? "" : "s")\(targets.count > changed ? " (\(targets.count - changed) unchanged)" : "")")
        if !problems.isEmpty { throw ExitCode(1) }
    }
}
