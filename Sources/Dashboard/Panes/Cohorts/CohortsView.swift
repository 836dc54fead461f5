import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

/// Pane 3: the cohort grid (or one column's rate as a line, `t`), and the counts behind the cell under the cursor.
func renderCohorts(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
    var duration = state.cohorts.duration.map { "\($0.adjective) products" } ?? "every billing duration"
    if state.cohorts.durationIsDefault { duration += " (most common)" }
    var title = "Cohorts · retention by paid periods · \(duration)"
    if let grid = state.cohorts.grid, !grid.cohorts.isEmpty {
        title += " · \(min(state.cohorts.row + 1, grid.cohorts.count))/\(grid.cohorts.count)"
    }
    Border(title: title, focused: true).render(in: area, buffer: &buffer, palette: palette)
    let full = Border.inner(area).inset(horizontal: 1, vertical: 0)
    guard let grid = state.cohorts.grid else {
        placeholder("Loading…", in: full, buffer: &buffer, palette: palette)
        return
    }
    guard !grid.cohorts.isEmpty else {
        placeholder("No cohorts as of \(grid.asOf.asOfText).", in: full, buffer: &buffer, palette: palette)
        return
    }
    // The last line gives the counts behind the cell under the cursor; `t` draws its column as a line.
    renderCohortCell(
        state, at: Position(x: full.x, y: full.bottom - 1), width: full.width, buffer: &buffer, palette: palette)
    let inner = Rect(x: full.x, y: full.y, width: full.width, height: max(0, full.height - 1))
    if state.cohorts.trend {
        renderCohortTrend(state, in: inner, buffer: &buffer, palette: palette)
        return
    }
    // Every cohort is reachable: the window follows the cursor (k, pgup, g g, G). The average row
    // (every month of the grid pooled) stays under it.
    let visible = max(1, inner.height - 2)
    let first = Table.scrollOffset(selected: state.cohorts.row, offset: 0, visibleRows: visible)
    let shown = Array(grid.cohorts.dropFirst(first).prefix(visible))
    func label(_ name: String, _ started: Int) -> String {
        name.padded(toWidth: 7) + " " + CountText.grouped(started).padded(toWidth: 7, alignment: .right)
    }
    let average = grid.average
    let labels = shown.map { label($0.month.description, $0.started) } + [label("average", average.started)]
    HeatGrid(
        rowLabels: labels, columnLabels: (1...grid.periods).map { "P\($0)" }, values: shown.map(\.rate) + [average.rate],
        cellWidth: 4, selected: (state.cohorts.row - first, state.cohorts.column)
    ).render(in: inner, buffer: &buffer, palette: palette)
    // The count column's header, over the row labels.
    buffer.set(
        string: label("cohort", 0).prefix(8) + "members".padded(toWidth: 7, alignment: .right),
        at: Position(x: inner.x, y: inner.y), style: palette[.header], maxWidth: inner.width)
    // A rate resting on fewer than 10 members (those whose fate at that paid period is known) is
    // dimmed: "100%" of 2 is no finding.
    let labelWidth = labels.map(\.displayWidth).max() ?? 0
    for (index, counts) in (shown.map { ($0.retained, $0.ended) } + [(average.retained, average.ended)]).enumerated() {
        let y = inner.y + 1 + index
        guard y < inner.bottom else { break }
        var ended = 0
        for period in 0..<min(grid.periods, counts.0.count) {
            ended += period < counts.1.count ? counts.1[period] : 0
            guard counts.0[period] + ended < CohortsPane.fewMembers else { continue }
            let x = inner.x + labelWidth + 1 + period * 5
            for cell in x..<min(x + 4, inner.right) { buffer[cell, y].style = buffer[cell, y].style.adding(.dim) }
        }
    }
}
