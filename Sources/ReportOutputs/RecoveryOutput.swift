import SubscriberAnalytics

/// `report recovery`: billing failures in [from, to) and how they ended.
public struct RecoveryOutput: ReportOutput {
    public var report: RecoveryReport

    public init(_ report: RecoveryReport) { self.report = report }

    public var json: String {
        let r = report
        var o = JSONOutputObject()
        o["from"] = .string(r.from.iso8601)
        o["to"] = .string(r.to.iso8601)
        o["asOf"] = .string(r.asOf.iso8601)
        o["failures"] = .int(r.failures)
        o["recovered"] = .int(r.recovered)
        o["expired"] = .int(r.expired)
        o["pending"] = .int(r.pending)
        var within = JSONOutputObject()
        for d in RecoveryReport.dayThresholds { within[String(d)] = .int(r.recoveredWithinDays[d] ?? 0) }
        o["recoveredWithinDays"] = .object(within)
        return JSONOutput.object(o).text
    }

    public var csv: CSVTable {
        let r = report
        return CSVTable(
            header: ["failures", "recovered", "expired", "pending"]
                + RecoveryReport.dayThresholds.map { "recoveredWithin\($0)Days" },
            rows: [
                ["\(r.failures)", "\(r.recovered)", "\(r.expired)", "\(r.pending)"]
                    + RecoveryReport.dayThresholds.map { "\(r.recoveredWithinDays[$0] ?? 0)" }
            ])
    }

    public var table: String {
        let r = report
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
        return "Billing failures in [\(r.from.asOfText), \(r.to.asOfText)) as of \(r.asOf.asOfText)\n" + t.render()
    }
}
