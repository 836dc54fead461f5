import ArgumentParser
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel

struct Flags: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "flags", abstract: "List the current offer flags with who set them and when.")

    @OptionGroup var store: StoreOptions
    @Option(help: "Only this offer kind.") var offer: OfferFlagKind?
    @Option(help: "table, csv or json.") var format: OutputFormat = .table

    struct Row {
        var originalTransactionId: String
        var offer: String
        var note: String?
        var `operator`: String
        var at: String

        var json: JSONValue {
            var o = JSONObject()
            o["originalTransactionId"] = .string(originalTransactionId)
            o["offer"] = .string(offer)
            o["note"] = note.map(JSONValue.string) ?? .null
            o["operator"] = .string(self.operator)
            o["at"] = .string(at)
            return .object(o)
        }
    }

    mutating func run() async throws {
        let db: AppDatabase
        do { db = try store.open(readOnly: true) } catch let e as CLIError { e.exit() }
        let rows = try db.flags(offer: offer).map {
            Row(originalTransactionId: $0.originalTransactionId, offer: $0.offer.rawValue, note: $0.note,
                operator: $0.operatorName, at: $0.at.iso8601)
        }
        switch format {
        case .json:
            print(JSONValue.array(rows.map(\.json)).text)
        case .csv:
            printCSV(CSV.render(header: ["originalTransactionId", "offer", "note", "operator", "at"],
                             rows: rows.map { [$0.originalTransactionId, $0.offer, $0.note ?? "", $0.operator, $0.at] }))
        case .table:
            if rows.isEmpty { printOutput("no offer flags\(offer.map { " for \($0.rawValue)" } ?? "")"); return }
            var table = TextTable(headers: ["subscription", "offer", "operator", "at", "note"])
            table.rows = rows.map { [$0.originalTransactionId, $0.offer, $0.operator, $0.at, $0.note ?? ""] }
            table.footer = ["\(rows.count) flag\(rows.count == 1 ? "" : "s")", "", "", "", ""]
            print(table.render())
        }
    }
}
