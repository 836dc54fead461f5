import Dashboard
import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriptionModel
import TerminalUI
import TestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `--format svg` (docs/metrics.md "Charts"): a standalone SVG that parses as XML and shows the
/// numbers the JSON gives, drawn from the same chart model as the terminal.
@Suite struct ReportChartsSVGTests {
    /// What an SVG shows: each drawn value by series and bucket, its text, its external references.
    final class Reading: NSObject, XMLParserDelegate {
        var values: [String: String] = [:]
        var text = ""
        /// The `data-series` of each open `g` (nil when it has none).
        var series: [String?] = []
        var hrefs: [String] = []
        var elements: Set<String> = []

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements.insert(name)
            if name == "g" { series.append(attributes["data-series"]) }
            if let h = attributes["href"] ?? attributes["xlink:href"] { hrefs.append(h) }
            if let v = attributes["data-value"] {
                let key =
                    attributes["data-bucket"].map { "\(series.compactMap { $0 }.last ?? "") \($0)" }
                    ?? "\(attributes["data-row"] ?? "") \(attributes["data-column"] ?? "")"
                values[key] = v
            }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "g", !series.isEmpty { series.removeLast() }
            text += " "
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        static func of(_ svg: String) throws -> Reading {
            let reading = Reading()
            let parser = XMLParser(data: Data(svg.utf8))
            parser.delegate = reading
            guard parser.parse() else {
                throw TestSupportError("not XML: \(parser.parserError.map { "\($0)" } ?? "?") at line \(parser.lineNumber)")
            }
            return reading
        }
    }

    func analytics() throws -> (SubscriberAnalytics, Instant) {
        let analytics = SubscriberAnalytics(database: try SampleDataStore.shared())
        return (analytics, try #require(try analytics.dataHorizon()))
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func number(_ any: Any?) -> Double? { (any as? NSNumber)?.doubleValue }

    @Test func movementSVGShowsTheJSONFigures() throws {
        let (analytics, horizon) = try analytics()
        let r = try analytics.movement(from: day("2024-07-01"), to: horizon, asOf: horizon)
        // SampleData has four currencies, a chart each: the USD one against the USD rows.
        let svg = ChartSVG.render(ReportCharts.movement(r, store: "demo.sqlite").filter { $0.title.hasSuffix(", USD") })
        let reading = try Reading.of(svg)
        #expect(reading.hrefs.allSatisfy { $0.hasPrefix("#") }, "nothing external")
        #expect(!reading.elements.contains("script") && !reading.elements.contains("image"))
        #expect(reading.text.contains("MRR movement by month, USD"))
        #expect(reading.text.contains("as of \(horizon.iso8601) · store demo.sqlite"))
        let allRows = try #require(try json(MovementOutput(r, store: "test.sqlite").json)["rows"] as? [[String: Any]])
        let rows = allRows.filter { $0["currency"] as? String == "USD" }
        #expect(rows.count == r.buckets.count && allRows.count == 4 * r.buckets.count)
        var compared = 0
        for (row, bucket) in zip(rows, r.buckets) {
            for c in MovementComponent.allCases {
                let shown = try #require(reading.values["\(c.rawValue) \(bucket.label)"], "\(c) \(bucket.label)")
                #expect(Double(shown) == number(row[c.rawValue]), "\(c) \(bucket.label)")
                compared += 1
            }
            let net = try #require(number(row["mrrEnd"])) - (try #require(number(row["mrrStart"])))
            let shownNet = try #require(reading.values["net \(bucket.label)"].flatMap(Double.init))
            #expect(abs(shownNet - net) < 0.0005)
        }
        #expect(compared > 50)
        #expect(rows.contains { (number($0["churn"]) ?? 0) < 0 })
    }

    @Test func seriesSVGShowsTheJSONFigures() throws {
        let (analytics, horizon) = try analytics()
        for metric in [SeriesMetric.active, .state(.billingRetry), .event(.renewal), .mrr] {
            let s = try analytics.series(metric, from: day("2024-01-01"), to: horizon, asOf: horizon)
            // One chart per line (per currency for MRR), each read on its own.
            let charts = ReportCharts.series(s, store: "demo.sqlite")
            let lines = try #require(try json(SeriesOutput(s, store: "test.sqlite").json)["series"] as? [[String: Any]])
            #expect(charts.count == lines.count)
            for (line, chart) in zip(lines, charts) {
                let reading = try Reading.of(ChartSVG.render([chart]))
                let points = try #require(line["points"] as? [[String: Any]])
                #expect(points.count == s.buckets.count)
                for (point, bucket) in zip(points, s.buckets) {
                    let shown = try #require(reading.values["\(metric.name) \(bucket.label)"], "\(metric.name) \(bucket.label)")
                    #expect(Double(shown) == number(point["value"]), "\(metric.name) \(bucket.label)")
                }
                #expect(reading.text.contains("subdash report series \(metric.name)"))
            }
        }
    }

    @Test func cohortHeatMapShowsTheJSONRates() throws {
        let (analytics, horizon) = try analytics()
        let grid = try analytics.cohorts(asOf: horizon, periods: 6)
        let reading = try Reading.of(ReportCharts.cohortsSVG(grid, store: "demo.sqlite"))
        let cohorts = try #require(try json(CohortsOutput(grid, store: "test.sqlite").json)["cohorts"] as? [[String: Any]])
        var compared = 0
        for cohort in cohorts {
            let month = try #require(cohort["month"] as? String)
            let rates = try #require(cohort["rate"] as? [Any])
            for (k, rate) in rates.enumerated() {
                let shown = reading.values["\(month) P\(k + 1)"]
                if let r = number(rate) {
                    // Foundation's JSON reader may miss the last binary digit of what it reads.
                    let drawn = try #require(shown.flatMap(Double.init), "\(month) P\(k + 1)")
                    #expect(abs(drawn - r) < 1e-12, "\(month) P\(k + 1)")
                    compared += 1
                } else {
                    #expect(shown == nil, "\(month) P\(k + 1) unknown, drawn as –")
                }
            }
        }
        #expect(compared > 20)
    }

    /// Text from the store is escaped: a product name with markup stays text.
    @Test func hostileTextStaysText() throws {
        let model = ChartModel(
            title: "mrr <script>&\"x\"</script> \u{1B}[31m", labels: ["a<b"],
            series: [ChartModel.Series(name: "s&p", kind: .bar, values: [1], role: .accent)])
        let reading = try Reading.of(ChartSVG.render(model))
        #expect(!reading.elements.contains("script"))
        #expect(reading.text.contains("mrr <script>&\"x\"</script> [31m"))
        #expect(reading.values["s&p a<b"] == "1")
    }
}
