import Foundation
import TestSupport
import Testing

/// `subdash report series|movement` as a user runs them, on the store of SampleData/examples.
@Suite struct ChartReportCommandTests {
    func run(_ arguments: [String]) throws -> Subdash.Run {
        try Subdash.run(["report"] + arguments + ["--db", try ReportTableTests.store.get()])
    }

    /// A state series is `report states` at each bucket's end: checked month by month.
    @Test func activeSeriesIsStatesAtEachBucketEnd() throws {
        let csv = try ReportTableTests.report([
            "series", "active", "--from", "2024-01-01", "--to", "2024-09-01", "--format", "csv",
        ])
        let lines = csv.split(separator: "\n").map(String.init)
        #expect(lines.first == "start,end,currency,value")
        #expect(lines.count == 9)
        for line in lines.dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let states = try ReportTableTests.report(["states", "--as-of", fields[1], "--format", "json"])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(states.utf8)) as? [String: Any])
            #expect((json["active"] as? Int).map(String.init) == fields[3], "\(line)")
        }
        // The last month ends at the data horizon (2024-08-07 10:00 UTC), not at September.
        #expect(lines.last?.hasPrefix("2024-08-01T00:00:00Z,2024-08-07T10:00:00Z,,") == true)
    }

    @Test func movementTableAndCSVShapes() throws {
        let csv = try ReportTableTests.report(["movement", "--from", "2024-06-01", "--to", "2024-08-01", "--format", "csv"])
        #expect(
            csv.hasPrefix(
                "start,end,currency,mrrStart,new,reactivation,expansion,contraction,churn,fx,mrrEnd,"
                    + "newCount,reactivationCount,expansionCount,contractionCount,churnCount\n"))
        let table = try ReportTableTests.report(["movement", "--from", "2024-06-01", "--to", "2024-08-01"])
        #expect(
            table.hasPrefix(
                "MRR movement 2024-06-01T00:00:00Z – 2024-08-01T00:00:00Z, as of 2024-08-07T10:00:00Z (amount and subscriptions per movement)\n"
                    + "month"))
    }

    @Test func svgOnlyWhereThereIsAChart() throws {
        let states = try run(["states", "--format", "svg"])
        #expect(states.status == 2)
        #expect(states.stdout.isEmpty)
        #expect(states.stderr == "subdash: --format svg draws report series, movement and cohorts only\n")
        let svg = try run(["series", "renewal", "--from", "2024-01-01", "--to", "2024-09-01", "--format", "svg"])
        #expect(svg.status == 0)
        #expect(svg.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""))
        // The caption names the store by its file name, not its path.
        let file = URL(fileURLWithPath: try ReportTableTests.store.get()).lastPathComponent
        #expect(svg.stdout.contains("as of 2024-08-07T10:00:00Z · store \(file) · subdash report series renewal"))
        #expect(!svg.stdout.contains(NSTemporaryDirectory()))
        let unknown = try run(["series", "trials", "--from", "2024-01-01", "--to", "2024-09-01"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("The value 'trials' is invalid for '<metric>'"))
    }
}
