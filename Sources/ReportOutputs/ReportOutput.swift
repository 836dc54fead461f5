import Foundation
import SubscriberAnalytics

/// Everything one report prints, in one place: what `subdash report NAME --format json|csv|table|svg`
/// writes and what the dashboard's `ctrl-s` exports write. Each report has one type conforming to
/// this in this target (`StatesOutput`, `MovementOutput`, …); the command line picks a format, the
/// dashboard asks for the CSV (and the chart) of the same definition.
public protocol ReportOutput {
    /// `--format json`: the shape of docs/metrics.md, "Command line and JSON shapes".
    var json: String { get }
    /// `--format csv`: written by ``CSV/render(header:rows:)``, which neutralises a cell a
    /// spreadsheet would read as a formula.
    var csv: CSVTable { get }
    /// `--format table`: for reading in a terminal.
    var table: String { get }
    /// `--format svg`: the report's chart, nil for a report that draws none.
    var svg: String? { get }
}

extension ReportOutput {
    public var svg: String? { nil }
}

/// A CSV before it is written: its header and rows of cells, as they are (``text`` neutralises and quotes).
public struct CSVTable: Sendable, Equatable {
    public var header: [String]
    public var rows: [[String]]

    public init(header: [String], rows: [[String]]) {
        self.header = header
        self.rows = rows
    }

    /// The RFC 4180 text, without a final line break.
    public var text: String { CSV.render(header: header, rows: rows) }
}

/// A count for a table: `12,345` (JSON and CSV keep plain digits for scripts).
func grouped(_ n: Int) -> String { CountText.grouped(n) }

/// A share for a table: `12.3%`, `–` when there is none.
func percent(_ rate: Double?) -> String {
    guard let rate else { return "–" }
    return String(format: "%.1f%%", rate * 100)
}
