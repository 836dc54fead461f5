import ArgumentParser
import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel

struct Flags: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flags", abstract: "List the current offer flags with who set them and when (--log: every change).",
        discussion: """
            With --log, the audit log instead, oldest first: every flag set, changed (set again over an \
            earlier flag, which the log keeps) and cleared, by whom, when, and the note.
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: "Only this offer kind.") var offer: OfferFlagKind?
    @Option(help: "How to print the flags.") var format: OutputFormat = .table
    @Flag(name: .customLong("log"), help: "Print the audit log (set, changed, cleared) instead of the current flags.")
    var log = false
    @Option(help: "With --log: only this subscription (an originalTransactionId).") var subscription: String?

    func validate() throws {
        if subscription != nil && !log { throw ValidationError("--subscription goes with --log") }
    }

    struct Row {
        var originalTransactionId: String
        var offer: String
        var note: String?
        var `operator`: String
        var at: String
        /// Who the subscription belongs to (flags are set for outreach): nil when unknown.
        var userId: String?
        var email: String?
        var appAccountToken: String?

        var json: JSONOutput {
            var o = JSONOutputObject()
            o["originalTransactionId"] = .string(originalTransactionId)
            o["offer"] = .string(offer)
            o["note"] = note.map(JSONOutput.string) ?? .null
            o["operator"] = .string(self.operator)
            o["at"] = .string(at)
            o["userId"] = userId.map(JSONOutput.string) ?? .null
            o["email"] = email.map(JSONOutput.string) ?? .null
            o["appAccountToken"] = appAccountToken.map(JSONOutput.string) ?? .null
            return .object(o)
        }
    }

    mutating func run() async throws {
        let db: AppDatabase
        do { db = try store.open(readOnly: true) } catch let e as CLIError { e.exit() }
        if log { return try printLog(db) }
        let rows = try db.flags(offer: offer).map { flag in
            let customer = try db.customer(of: flag.originalTransactionId)
            return Row(
                originalTransactionId: flag.originalTransactionId, offer: flag.offer.rawValue, note: flag.note,
                operator: flag.operatorName, at: flag.at.iso8601, userId: customer.userId, email: customer.email,
                appAccountToken: customer.appAccountToken)
        }
        switch format {
        case .json:
            print(JSONOutput.array(rows.map(\.json)).text)
        case .csv:
            printCSV(
                CSV.render(
                    header: ["originalTransactionId", "offer", "note", "operator", "at", "userId", "email", "appAccountToken"],
                    rows: rows.map {
                        [
                            $0.originalTransactionId, $0.offer, $0.note ?? "", $0.operator, $0.at, $0.userId ?? "",
                            $0.email ?? "",
                            $0.appAccountToken ?? "",
                        ]
                    }))
        case .table:
            if rows.isEmpty {
                printOutput("no offer flags\(offer.map { " for \($0.rawValue)" } ?? "")")
                return
            }
            var table = TextTable(headers: ["subscription", "offer", "operator", "at", "note"])
            table.rows = rows.map { [$0.originalTransactionId, $0.offer, $0.operator, $0.at, $0.note ?? ""] }
            table.footer = ["\(rows.count) flag\(rows.count == 1 ? "" : "s")", "", "", "", ""]
            print(table.render())
        }
    }

    func printLog(_ db: AppDatabase) throws {
        let changes = try db.flagLog(originalTransactionId: subscription, offer: offer)
        switch format {
        case .json:
            print(
                JSONOutput.array(
                    changes.map { change in
                        var o = JSONOutputObject()
                        o["at"] = .string(change.at.iso8601)
                        o["originalTransactionId"] = .string(change.originalTransactionId)
                        o["offer"] = .string(change.offer.rawValue)
                        o["action"] = .string(change.kind.rawValue)
                        o["operator"] = .string(change.operatorName)
                        o["note"] = change.note.map(JSONOutput.string) ?? .null
                        return .object(o)
                    }
                ).text)
        case .csv:
            printCSV(
                CSV.render(
                    header: ["at", "originalTransactionId", "offer", "action", "operator", "note"],
                    rows: changes.map {
                        [
                            $0.at.iso8601, $0.originalTransactionId, $0.offer.rawValue, $0.kind.rawValue,
                            $0.operatorName, $0.note ?? "",
                        ]
                    }))
        case .table:
            if changes.isEmpty {
                print("no flag changes in the audit log")
                return
            }
            var table = TextTable(headers: ["at", "subscription", "offer", "action", "operator", "note"])
            table.rows = changes.map {
                [
                    $0.at.iso8601, $0.originalTransactionId, $0.offer.rawValue, $0.kind.rawValue,
                    $0.operatorName, $0.note ?? "",
                ]
            }
            table.footer = ["\(changes.count) change\(changes.count == 1 ? "" : "s")", "", "", "", "", ""]
            print(table.render())
        }
    }
}
