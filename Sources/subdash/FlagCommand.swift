import AppStoreServerAPI
import ArgumentParser
import Foundation
import SubscriberStore
import SubscriptionModel
import TeamLog

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
        discussion:
            "Each ID may be an originalTransactionId, transactionId, webOrderLineItemId, appAccountToken, user id or email.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var team: TeamOptions
    @Argument(help: "Subscribers to flag.") var ids: [String]
    @Option(help: "The offer (any case).") var offer: OfferFlagKind
    @Option(help: "A note kept with the flag.") var note: String?
    @Flag(help: "Remove the flag instead of setting it.") var clear = false
    @Option(name: .customLong("operator"), help: "Who sets the flag (default: $USER, else the login name).") var operatorName:
        String?
    @Flag(help: "Replace a flag a subscriber already has (its note, operator and date); without it the earlier flag is kept.")
    var replace = false
    @Flag(
        name: .customLong("require-offer"),
        help: "Refuse (flag nobody) when the offer catalogue has no offer for the flag on a subscriber's product.")
    var requireOffer = false
    @Option(help: "The configuration file with the offer catalogue (default: $XDG_CONFIG_HOME/subdash/config.toml).")
    var config: String?

    func validate() throws {
        if ids.isEmpty { throw ValidationError("give at least one subscriber id") }
        if requireOffer && clear { throw ValidationError("--require-offer goes with setting a flag, not --clear") }
    }

    mutating func run() async throws {
        // With a team log, a role that may not write is refused before anything else.
        let actionLog = try await team.actionLog()
        defer { if let actionLog { Task { await actionLog.close() } } }
        let db: AppDatabase
        do { db = try store.open() } catch let e as CLIError { e.exit() }
        try TeamOptions.attach(actionLog, to: db)
        var targets: [String] = []
        var problems: [String] = []
        for id in ids {
            let found = try db.subscriptions(matching: id)
            switch found.count {
            case 0: problems.append("no subscription matches \(id)")
            case 1: targets.append(found[0])
            default:
                problems.append(
                    "\(id) matches \(found.count) subscriptions (\(found.prefix(5).joined(separator: ", "))); use an originalTransactionId"
                )
            }
        }
        for p in problems { printError("subdash flag: \(p)") }
        guard let who = OperatorIdentity.resolve(option: operatorName) else {
            throw CLIError(OperatorIdentity.missingMessage, code: ExitStatus.usage)
        }
        // Which Apple offer the flag will mean, per product (README, "Offers that reach the customer").
        var meaning: FlagOfferMeaning?
        do {
            if !clear { meaning = try FlagOfferMeaning(db: db, offer: offer, targets: Set(targets).sorted(), config: config) }
        } catch let error as CLIError {
            if requireOffer { throw error }
            printError("subdash flag: warning: \(error.message) (the flag is set; no offer is shown)")
        }
        if requireOffer, let meaning, !meaning.without.isEmpty {
            throw CLIError(
                "--require-offer: the catalogue\(meaning.path.map { " (\($0))" } ?? "") has no offer for \(offer.rawValue) on "
                    + meaning.without.map { "\($0.key) (\($0.value) subscription\($0.value == 1 ? "" : "s"))" }.joined(
                        separator: ", ")
                    + "; nobody was flagged")
        }
        // Flags already there are kept unless --replace: say whose they are.
        var kept = 0
        if !clear {
            for id in Set(targets).sorted() {
                guard let earlier = try db.flags(offer: offer, originalTransactionId: id).first else { continue }
                let noteText = earlier.note.map { " (note: \($0))" } ?? ""
                if replace {
                    printError(
                        "subdash flag: \(id): replacing the \(offer.rawValue) flag set by \(earlier.operatorName) on \(earlier.at.iso8601)\(noteText)"
                    )
                } else {
                    kept += 1
                    printError(
                        "subdash flag: \(id): already flagged for \(offer.rawValue) by \(earlier.operatorName) on \(earlier.at.iso8601)\(noteText); kept (--replace changes it)"
                    )
                }
            }
        }
        let changed: Int
        do {
            let write = OfferFlagWrite(offer: offer, ids: targets, clear: clear, operatorName: who, note: note, replace: replace)
            changed = try db.setFlags(write, at: Instant(Date()))
        } catch let error as StoreError {
            throw CLIError(error.message)
        }
        let verb = clear ? "cleared \(offer.rawValue) on" : "flagged for \(offer.rawValue):"
        let unchanged = Set(targets).count - changed
        var detail = ""
        if kept > 0 {
            detail = " (\(kept) already flagged: kept\(unchanged > kept ? ", \(unchanged - kept) unchanged" : ""))"
        } else if unchanged > 0 {
            detail = " (\(unchanged) unchanged)"
        }
        printOutput("\(verb) \(changed) subscription\(changed == 1 ? "" : "s") as \(who)\(detail)")
        if let meaning, meaning.path != nil { for line in meaning.lines { printOutput(line) } }
        if !problems.isEmpty { throw ExitCode(1) }
    }
}
