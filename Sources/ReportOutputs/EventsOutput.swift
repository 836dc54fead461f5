import SubscriberAnalytics
import SubscriptionModel
import SubscriptionTimeline

/// `report events`: events with their instant in [from, to).
public struct EventsOutput: ReportOutput {
    public var counts: EventCounts

    public init(_ counts: EventCounts) { self.counts = counts }

    public var json: String {
        let e = counts
        var o = JSONOutputObject()
        o["from"] = .string(e.from.iso8601)
        o["to"] = .string(e.to.iso8601)
        var counts = JSONOutputObject()
        for t in EventType.allCases { counts[t.rawValue] = .int(e[t]) }
        o["counts"] = .object(counts)
        var reasons = JSONOutputObject()
        for r in ExpirationReason.allCases { reasons[r.rawValue] = .int(e[r]) }
        o["expirationReasons"] = .object(reasons)
        return JSONOutput.object(o).text
    }

    public var csv: CSVTable {
        CSVTable(
            header: ["event", "reason", "count"],
            rows: EventType.allCases.map { [$0.rawValue, "", "\(counts[$0])"] }
                + ExpirationReason.allCases.map { ["expiration", $0.rawValue, "\(counts[$0])"] })
    }

    public var table: String {
        var t = TextTable(headers: ["event", "count"], rightAligned: [1])
        t.rows = EventType.allCases.map { [$0.rawValue, grouped(counts[$0])] }
        t.rows += ExpirationReason.allCases.map { ["  expiration: \($0.rawValue)", grouped(counts[$0])] }
        return "Events in [\(counts.from.asOfText), \(counts.to.asOfText)) as of \(counts.asOf.asOfText)\n" + t.render()
    }
}
