import SubscriberAnalytics
import SubscriptionTimeline

/// `report states`: subscriptions in each state at as-of.
public struct StatesOutput: ReportOutput {
    public var counts: StateCounts

    public init(_ counts: StateCounts) { self.counts = counts }

    public var json: String {
        let c = counts
        var o = JSONOutputObject()
        o["asOf"] = .string(c.asOf.iso8601)
        var counts = JSONOutputObject()
        for s in SubscriptionState.allCases { counts[s.rawValue] = .int(c[s]) }
        o["counts"] = .object(counts)
        o["active"] = .int(c.active)
        return JSONOutput.object(o).text
    }

    public var csv: CSVTable {
        CSVTable(
            header: ["state", "subscriptions"],
            rows: SubscriptionState.allCases.map { [$0.rawValue, "\(counts[$0])"] } + [["active", "\(counts.active)"]])
    }

    public var table: String {
        var t = TextTable(headers: ["state", "subscriptions", "share"], rightAligned: [1, 2])
        let total = counts.total
        t.rows = SubscriptionState.allCases.map {
            [$0.rawValue, grouped(counts[$0]), percent(total == 0 ? nil : Double(counts[$0]) / Double(total))]
        }
        t.rows.append([
            "active", grouped(counts.active), percent(total == 0 ? nil : Double(counts.active) / Double(total)),
        ])
        t.footer = ["total", grouped(total), ""]
        return "States as of \(counts.asOf.asOfText)\n" + t.render()
    }
}
