import ArgumentParser
import Foundation
import SubscriberAnalytics
import TerminalUI

/// `--format table|csv|json`.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, csv, json
}

/// A count for a table: `12,345` (JSON and CSV keep plain digits for scripts).
func grouped(_ n: Int) -> String { CountText.grouped(n) }

/// `--format` of the reports: `svg` draws a chart (report series, movement and cohorts).
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case table, csv, json, svg
}

extension ReportFormat {
    /// A report that draws no picture prints in the formats every report has.
    init(_ format: OutputFormat) {
        switch format {
        case .table: self = .table
        case .csv: self = .csv
        case .json: self = .json
        }
    }
}
