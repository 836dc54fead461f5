import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

extension CohortsPane {
    /// The cell under the cursor: its cohort month, paid period (1-based) and counts at it
    /// (docs/metrics.md "Retention cohorts"): retained (reached the next paid period), ended by
    /// it (with 1…period paid periods), censored (still open at or before it: fate unknown).
    public struct Cell: Equatable, Sendable {
        public var month: Month
        public var period: Int
        public var started: Int
        public var retained: Int
        public var ended: Int
        public var censored: Int
        public var rate: Double?
    }

    public var selectedCell: Cell? {
        guard let grid, grid.cohorts.indices.contains(row), column < grid.periods else { return nil }
        let cohort = grid.cohorts[row]
        let retained = cohort.retained[column]
        let ended = cohort.ended.prefix(column + 1).reduce(0, +)
        return Cell(
            month: cohort.month, period: column + 1, started: cohort.started, retained: retained, ended: ended,
            censored: cohort.started - retained - ended, rate: cohort.rate[column])
    }

    /// `t`: the selected column's rate across the cohorts as a line (percent), with the pooled
    /// average as a flat line to compare against; an unknown rate is a gap.
    public var trendModel: ChartModel? {
        guard let grid, !grid.cohorts.isEmpty, column < grid.periods else { return nil }
        let k = column
        let average = grid.average.rate[k]
        return ChartModel(
            title: "P\(k + 1) retention by cohort month", labels: grid.cohorts.map(\.month.description),
            series: [
                ChartModel.Series(
                    name: "P\(k + 1)", kind: .line, values: grid.cohorts.map { $0.rate[k].map { $0 * 100 } }, role: .accent),
                ChartModel.Series(
                    name: "average", kind: .line, values: grid.cohorts.map { _ in average.map { $0 * 100 } }, role: .muted),
            ], unit: "%", decimals: 1)
    }
}

/// The line `t` shows in place of the grid, the cursor on the selected cohort.
func renderCohortTrend(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
    guard let model = state.cohorts.trendModel else { return }
    Chart(model: model, glyphs: state.chartGlyphs, cursor: state.cohorts.row)
        .render(in: area, buffer: &buffer, palette: palette)
}

/// The counts behind the cell under the cursor, on one line.
func renderCohortCell(_ state: AppState, at position: Position, width: Int, buffer: inout Buffer, palette: Palette) {
    guard let cell = state.cohorts.selectedCell else { return }
    let rate = cell.rate.map(HeatGrid.percentage) ?? "–"
    let text =
        "\(cell.month) · P\(cell.period) \(rate): retained \(CountText.grouped(cell.retained)) · ended "
        + "\(CountText.grouped(cell.ended)) · censored \(CountText.grouped(cell.censored)) of "
        + "\(CountText.grouped(cell.started))" + (state.cohorts.trend ? " · t: grid" : " · t: trend")
    buffer.set(string: text, at: position, style: palette[.text], maxWidth: width)
}
