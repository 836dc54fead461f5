import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// Pane 7: the chart (a line for a stock, bars for events, the previous period dashed beside it),
/// then what the point under the cursor reads and what `enter` lists.
func renderTrends(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
    let pane = state.trends
    var title = "Trends · \(pane.metric.name) · \(pane.range) by \(pane.bucket.rawValue)"
    if let data = pane.data, let line = pane.shownLine {
        if let currency = data.series.lines[line].currency { title += " · \(currency)" }
        if data.shownCount > 0 { title += " · \(pane.shownCursor + 1)/\(data.shownCount)" }
    }
    Border(title: title, focused: true).render(in: area, buffer: &buffer, palette: palette)
    let inner = Border.inner(area).inset(horizontal: 1, vertical: 0)
    guard let data = pane.data else {
        placeholder("Loading…", in: inner, buffer: &buffer, palette: palette)
        return
    }
    guard data.shownCount > 0, let line = pane.shownLine, let model = data.chart(line: line) else {
        placeholder("No \(pane.metric.name) to chart in this range.", in: inner, buffer: &buffer, palette: palette)
        return
    }
    let cursor = pane.shownCursor
    let chartArea = Rect(x: inner.x, y: inner.y, width: inner.width, height: max(4, inner.height - 3))
    let window = TrendsWindow(model: model, cursor: cursor, width: chartArea.width)
    Chart(model: window.model, glyphs: state.chartGlyphs, cursor: cursor - window.first)
        .render(in: chartArea, buffer: &buffer, palette: palette)

    let lines = trendsReadout(data, line: line, cursor: cursor, width: inner.width)
    for (k, text) in lines.enumerated() {
        let y = inner.bottom - lines.count + k
        guard y >= chartArea.bottom else { continue }
        buffer.set(
            string: text, at: Position(x: inner.x, y: y), style: palette[k == 0 ? .text : .muted], maxWidth: inner.width)
    }
}

/// The buckets the terminal shows: each gets a column at least, so a long range shows a window of
/// them that follows the cursor (the latest ones until it moves left of them).
struct TrendsWindow {
    var model: ChartModel
    var first: Int

    init(model full: ChartModel, cursor: Int, width: Int) {
        // The value labels take about as much as the widest value (and sign, and thousands step).
        let values = full.series.flatMap(\.values).compactMap { $0 }
        let widest = values.map { full.format($0).displayWidth }.max() ?? 1
        let labels = max(widest + 2, full.unit?.displayWidth ?? 0)
        let room = max(1, width - labels - 1)
        let n = full.count
        var first = max(0, n - room)
        if cursor < first { first = cursor }
        let shown = first..<min(n, first + room)
        var model = full
        model.labels = Array(full.labels[shown])
        model.incomplete = Set(full.incomplete.filter { shown.contains($0) }.map { $0 - first })
        for k in model.series.indices {
            let values = full.series[k].values
            model.series[k].values = shown.map { $0 < values.count ? values[$0] : nil }
        }
        self.model = model
        self.first = first
    }
}

/// What the point under the cursor reads: its bucket and value, the change against the bucket
/// before and the same bucket a year before (on a line of their own when `width` is short); then
/// what `enter` lists.
func trendsReadout(_ data: TrendsData, line: Int, cursor: Int, width: Int = .max) -> [String] {
    let index = data.first + cursor
    let metric = data.series.metric
    let currency = data.series.lines[line].currency
    let bucket = data.series.buckets[index]
    // Money is milliunits, rounded half away from zero to cents as the reports print it.
    func amount(_ v: Int64) -> String {
        guard metric.isMoney else { return ChartModel.grouped(Double(v), decimals: 0) }
        let cents = (abs(v) + 5) / 10
        return ChartModel.grouped(Double(v < 0 ? -cents : cents) / 100, decimals: 2) + (currency.map { " \($0)" } ?? "")
    }
    let values = data.series.lines[line].values
    func change(against other: Int?) -> String? {
        guard let other, values.indices.contains(other), values.indices.contains(index) else { return nil }
        let (before, delta) = (Double(values[other]), values[index] - values[other])
        var text = (delta > 0 ? "+" : "") + amount(delta)
        text +=
            before == 0
            ? " (—)" : " (" + (delta > 0 ? "+" : "") + ChartModel.grouped(Double(delta) / abs(before) * 100, decimals: 1) + " %)"
        return "vs \(data.series.buckets[other].label): \(text)"
    }
    var label = bucket.label
    if !bucket.isComplete { label += " (to \(bucket.end.isoDate), so far)" }
    let point = "\(label): \(metric.name) \(values.indices.contains(index) ? amount(values[index]) : "—")"
    let changes = [change(against: index - 1), change(against: data.yearBefore(index))].compactMap { $0 }
    var last = "enter lists \(trendsPopulation(metric, bucket))"
    if data.query.range != .all { last = "dashed: the previous \(data.query.range) · " + last }
    let whole = ([point] + changes).joined(separator: " · ")
    guard whole.displayWidth > width, !changes.isEmpty else { return [whole, last] }
    return [point, changes.joined(separator: " · "), last]
}
