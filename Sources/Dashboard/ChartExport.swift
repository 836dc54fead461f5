import Foundation
import SubscriberAnalytics
import SubscriberStore
import TerminalUI

/// `ctrl-s` on a chart pane (6, 7): the chart shown as a standalone SVG, drawn by ``ChartSVG``
/// from the same ``ChartModel`` as the pane and as `report … --format svg`, written beside its
/// figures as CSV under one name (`subdash-STEM.svg` and `subdash-STEM.csv`, in the export
/// directory, 0600, never over an earlier file).
enum ChartExport {
    /// Asks for the pair to be written: what a pane's `ctrl-s` returns.
    static func save(
        _ state: inout AppState, stem: String, models: [ChartModel], header: [String], rows: [[String]]
    ) -> [Effect] {
        guard !models.isEmpty else {
            state.notice = "nothing to save yet: the chart is loading"
            return []
        }
        state.exporting = true
        state.notice = "saving the chart…"
        return [
            .saveChart(stem: stem, csv: CSV.render(header: header, rows: rows) + "\n", svg: ChartSVG.render(models))
        ]
    }

    /// Writes `svg` and `csv` as `subdash-STEM.svg` and `.csv` (or `STEM-2`, … when either
    /// exists): both new files, 0600. Returns their paths.
    static func write(directory: String, stem: String, csv: String, svg: String) throws -> (svg: String, csv: String) {
        let csv = Data(csv.utf8)
        for n in 1...999 {
            let base = directory + "/subdash-" + stem + (n == 1 ? "" : "-\(n)")
            guard try StoreFiles.writeNewPrivateFile(path: base + ".csv", data: csv) else { continue }
            guard try StoreFiles.writeNewPrivateFile(path: base + ".svg", data: Data(svg.utf8)) else {
                // An SVG of that name exists: the pair takes the next free name.
                try? FileManager.default.removeItem(atPath: base + ".csv")
                continue
            }
            return (base + ".svg", base + ".csv")
        }
        throw CocoaError(.fileWriteFileExists)
    }

    /// The notice once written.
    static func saved(_ state: inout AppState, svg: String, csv: String) {
        state.exporting = false
        state.notice = "saved the chart to \(svg) (figures in \(URL(fileURLWithPath: csv).lastPathComponent))"
    }
}
