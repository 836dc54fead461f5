import SubscriberAnalytics
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

/// Pane 4: states at as-of with the change over 30 days, the chosen month's events with the
/// month before, and a daily sparkline on every row. Two tables side by side, readable at 80 columns.
func renderStatesEvents(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
    let halves = Layout.horizontal([.fill(), .fill()], spacing: 1).split(area)
    let month = state.asOf.map { state.statesEvents.shownMonth(asOf: $0) }
    // The focus border follows the cursor: the state rows come first, then the event rows.
    let inEvents = state.statesEvents.row >= StatesEventsPane.stateRows.count
    Border(title: "States as of \(state.asOf?.asOfText ?? "…")", focused: !inEvents)
        .render(in: halves[0], buffer: &buffer, palette: palette)
    // Whose subscriptions both tables count (`o` switches); the month keys' hint when it fits.
    var eventsTitle = "Events in \(month?.description ?? "…") · \(state.statesEvents.ownership.title)"
    if eventsTitle.count + " · h/l month".count <= halves[1].width - 4 { eventsTitle += " · h/l month" }
    Border(title: eventsTitle, focused: inEvents)
        .render(in: halves[1], buffer: &buffer, palette: palette)
    let left = Border.inner(halves[0])
    let right = Border.inner(halves[1])
    guard let figures = state.statesEvents.figures else {
        placeholder("Loading…", in: left, buffer: &buffer, palette: palette)
        return
    }

    var stateRows: [SparkTable.Row] = SubscriptionState.allCases.map { kind in
        SparkTable.Row(
            name: kind.rawValue, value: figures.states[kind], other: signed(figures.states[kind] - figures.statesBefore[kind]),
            series: figures.series(kind))
    }
    stateRows.append(
        SparkTable.Row(
            name: "active", value: figures.states.active,
            other: signed(figures.states.active - figures.statesBefore.active),
            series: figures.series(summing: \.isActive), role: .accent))
    stateRows.append(
        SparkTable.Row(
            name: "total", value: figures.states.total,
            other: signed(figures.states.total - figures.statesBefore.total),
            series: figures.series { _ in true }, role: .accent))
    let cursor = state.statesEvents.row
    let split = StatesEventsPane.stateRows.count
    SparkTable(
        titles: ("State", "Now", "Δ30d", "30 days"), nameWidth: 12, rows: stateRows, baseline: .minimum,
        selected: cursor < split ? cursor : nil
    )
    .render(in: left, buffer: &buffer, palette: palette)

    let eventRows = EventType.allCases.map { type in
        SparkTable.Row(
            name: type.rawValue, value: figures.count(type), other: "\(figures.previousCount(type))",
            series: figures.series(type))
    }
    SparkTable(
        titles: ("Event", figures.month.description, figures.month.previous.description, "daily"), nameWidth: 15,
        rows: eventRows, baseline: .zero, selected: cursor >= split ? cursor - split : nil
    )
    .render(in: right, buffer: &buffer, palette: palette)
}

private func signed(_ n: Int) -> String { n > 0 ? "+\(n)" : "\(n)" }

/// A table of `name · value · other · sparkline` rows: the sparkline takes the width left and
/// averages days into buckets when there are more days than cells, so it always spans the whole series.
struct SparkTable {
    struct Row {
        var name: String
        var value: Int
        var other: String
        var series: [Int]
        var role: ThemeRole?
    }

    /// Where the sparkline's lowest block sits: at zero (counts of events), or at the series'
    /// minimum (levels such as states, whose day-to-day change would not show against zero).
    enum Baseline { case zero, minimum }

    var titles: (String, String, String, String)
    var nameWidth: Int
    var rows: [Row]
    var baseline: Baseline
    /// The cursor row, if it is in this table.
    var selected: Int?

    func render(in area: Rect, buffer: inout Buffer, palette: Palette) {
        let columns: [Table.Column] = [
            .init(titles.0, width: .min(nameWidth)), .init(titles.1, width: .fixed(7), alignment: .right),
            .init(titles.2, width: .fixed(7), alignment: .right), .init(titles.3, width: .fill()),
        ]
        Table(
            columns: columns, rows: rows.map { Table.Row([$0.name, "\($0.value)", $0.other, ""], role: $0.role) },
            selected: selected
        )
        .render(in: area, buffer: &buffer, palette: palette)
        let spark = Layout.horizontal(columns.map(\.width), spacing: 1).split(area)[3]
        for (index, row) in rows.enumerated() where area.y + 1 + index < area.bottom {
            let (values, maximum) = Self.scaled(Self.resample(row.series, width: spark.width), baseline: baseline)
            Sparkline(values: values, maximum: maximum)
                .render(
                    in: Rect(x: spark.x, y: area.y + 1 + index, width: spark.width, height: 1), buffer: &buffer, palette: palette)
        }
    }

    /// `values` ready for a ``Sparkline``, with the lowest block at `baseline`.
    static func scaled(_ values: [Double], baseline: Baseline) -> ([Double], Double?) {
        guard baseline == .minimum, let low = values.min(), let high = values.max(), high > 0 else { return (values, nil) }
        // A flat series sits at half height; otherwise its minimum is the lowest block.
        if high == low { return (values, high * 2) }
        return (values.map { $0 - low + (high - low) / 8 }, nil)
    }

    /// `series` in at most `width` buckets of consecutive values, each the mean of its bucket.
    static func resample(_ series: [Int], width: Int) -> [Double] {
        guard width > 0 else { return [] }
        guard series.count > width else { return series.map(Double.init) }
        return (0..<width).map { bucket in
            let from = bucket * series.count / width
            let to = (bucket + 1) * series.count / width
            let slice = series[from..<max(to, from + 1)]
            return Double(slice.reduce(0, +)) / Double(slice.count)
        }
    }
}
