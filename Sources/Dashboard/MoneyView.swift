import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// Pane 6: MRR per currency (now, its 30-day change, a twelve-month sparkline) beside revenue by
/// month in one currency (gross as a bar: net `█`, refunds and upgrade credits returned `▒`), over the
/// offer conversion table. Every amount is in its own currency: nothing here adds two.
func renderMoney(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
    let pane = state.money
    let sections = Layout.vertical([.fill(), .percentage(45)]).split(area)
    let top = Layout.horizontal([.fixed(43), .fill()], spacing: 1).split(sections[0])
    let figures = pane.figures
    // The unpriced count is a line of the box (a title this narrow cut it off).
    let mrrTitle = "MRR as of \(state.asOf?.asOfText ?? "…")"
    let currency = pane.shownCurrency
    let revenueTitle = "Revenue by month" + (currency.map { " · \($0)" } ?? "")
    Border(title: mrrTitle, focused: false).render(in: top[0], buffer: &buffer, palette: palette)
    Border(title: revenueTitle, focused: false).render(in: top[1], buffer: &buffer, palette: palette)
    let offersTitle =
        figures.map { f in
            "Offers started \(f.shownMonths[0]) – \(lastMonth(asOf: f.asOf)) · by \(pane.order.title)"
        } ?? "Offers"
    Border(title: offersTitle, focused: true).render(in: sections[1], buffer: &buffer, palette: palette)
    let mrrArea = Border.inner(top[0])
    let revenueArea = Border.inner(top[1])
    let offersArea = Border.inner(sections[1])
    guard let figures else {
        placeholder("Loading…", in: mrrArea, buffer: &buffer, palette: palette)
        return
    }
    // Each section draws once its answer is there; MRR now is the first to arrive.
    let waiting = pane.loading ? "Loading…" : "Not loaded"
    if let currency {
        renderMRR(figures, in: mrrArea, buffer: &buffer, palette: palette)
        if figures.revenue == nil {
            placeholder(waiting, in: revenueArea, buffer: &buffer, palette: palette)
        } else {
            renderRevenue(figures, currency: currency, in: revenueArea, buffer: &buffer, palette: palette)
        }
    } else if figures.missing.isEmpty {
        placeholder(
            "No priced charge yet (v1 periods need `subdash prices import`)", in: mrrArea, buffer: &buffer, palette: palette)
    } else {
        placeholder(waiting, in: mrrArea, buffer: &buffer, palette: palette)
        if figures.revenue == nil { placeholder(waiting, in: revenueArea, buffer: &buffer, palette: palette) }
    }
    if figures.offers == nil {
        placeholder(waiting, in: offersArea, buffer: &buffer, palette: palette)
    } else {
        renderMoneyOffers(pane, in: offersArea, buffer: &buffer, palette: palette)
    }
}

/// One row per currency: MRR now, its change over 30 days, and where it stood at each month's end.
private func renderMRR(_ figures: MoneyFigures, in area: Rect, buffer: inout Buffer, palette: Palette) {
    let columns: [Table.Column] = [
        .init("", width: .fixed(3)), .init("Now", width: .fixed(12), alignment: .right),
        .init("Δ30d", width: .fixed(11), alignment: .right), .init("12 months", width: .fill()),
    ]
    let currencies = figures.currencies
    let rows = currencies.map { currency -> Table.Row in
        let now = MoneyFigures.amount(figures.mrr, currency)
        let change = now - MoneyFigures.amount(figures.mrrBefore, currency)
        return Table.Row([
            currency, MoneyFormat.number(now, currency: currency),
            (change > 0 ? "+" : "") + MoneyFormat.number(change, currency: currency), "",
        ])
    }
    Table(columns: columns, rows: rows).render(in: area, buffer: &buffer, palette: palette)
    let unpricedY = area.y + 1 + currencies.count
    if figures.mrr.unpriced > 0, unpricedY < area.bottom {
        buffer.set(
            string: "+ \(CountText.grouped(figures.mrr.unpriced)) unpriced subscriptions, not in MRR",
            at: Position(x: area.x, y: unpricedY), style: palette[.warning], maxWidth: area.width)
    }
    let spark = Layout.horizontal(columns.map(\.width), spacing: 1).split(area)[3]
    for (index, currency) in currencies.enumerated() where area.y + 1 + index < area.bottom {
        guard let monthly = figures.mrrMonthly else {
            buffer.set(
                string: "…", at: Position(x: spark.x, y: area.y + 1 + index), style: palette[.muted], maxWidth: spark.width)
            continue
        }
        let series = monthly.map { Int(MoneyFigures.amount($0, currency)) }
        // A level: its lowest month is the lowest block, unless it was nothing then.
        let (values, maximum) = SparkTable.scaled(
            SparkTable.resample(series, width: spark.width),
            baseline: series.min() == 0 ? .zero : .minimum)
        Sparkline(values: values, maximum: maximum)
            .render(in: Rect(x: spark.x, y: area.y + 1 + index, width: spark.width, height: 1), buffer: &buffer, palette: palette)
    }
}

/// The shown months, latest at the bottom; columns give way to the bar at narrow widths.
private func renderRevenue(_ figures: MoneyFigures, currency: String, in area: Rect, buffer: inout Buffer, palette: Palette) {
    let months = figures.revenue(in: currency)
    // Net is gross less refunds less upgrade credits: wide enough, every term has its column, so
    // the row adds up; narrower, refunds and credits share one ("Returned"), then only net stays.
    let terms = area.width >= 72 ? 3 : area.width >= 60 ? 2 : 0
    var columns: [Table.Column] = [.init("Month", width: .fixed(7))]
    if terms > 0 { columns.append(.init("Gross", width: .fixed(13), alignment: .right)) }
    if terms == 3 {
        columns += [
            .init("Refunds", width: .fixed(11), alignment: .right), .init("Credits", width: .fixed(10), alignment: .right),
        ]
    } else if terms == 2 {
        columns.append(.init("Returned", width: .fixed(12), alignment: .right))
    }
    columns.append(.init("Net", width: .fixed(13), alignment: .right))
    // Items without a price, by month: the amounts beside them leave those out.
    let unpriced = figures.revenue?.unpricedByKey ?? [:]
    let showsUnpriced = months.contains { unpriced[$0.month.description, default: 0] > 0 }
    if showsUnpriced { columns.append(.init("Unpriced", width: .fixed(8), alignment: .right)) }
    columns.append(.init("", width: .fill()))
    // The bar's legend as its title, short when the bar is.
    let barWidth = Layout.horizontal(columns.map(\.width), spacing: 1).split(area)[columns.count - 1].width
    columns[columns.count - 1].title = barWidth >= 16 ? "█ net ▒ returned" : "█net ▒ret"
    let rows = months.map { month, row -> Table.Row in
        var amounts: [String] = terms > 0 ? [MoneyFormat.number(row.gross, currency: currency)] : []
        if terms == 3 {
            amounts += [
                MoneyFormat.number(row.refunds, currency: currency), MoneyFormat.number(row.upgradeCredits, currency: currency),
            ]
        } else if terms == 2 {
            amounts.append(MoneyFormat.number(row.refunds + row.upgradeCredits, currency: currency))
        }
        let left = unpriced[month.description, default: 0]
        let unpricedCell = showsUnpriced ? [left > 0 ? CountText.grouped(left) : ""] : []
        return Table.Row(
            [month.description] + amounts + [MoneyFormat.number(row.net, currency: currency)] + unpricedCell + [""],
            role: left > 0 ? .warning : nil)
    }
    let visible = max(0, area.height - 1)
    let offset = max(0, rows.count - visible)
    Table(columns: columns, rows: rows, offset: offset).render(in: area, buffer: &buffer, palette: palette)
    let bars = Layout.horizontal(columns.map(\.width), spacing: 1).split(area)[columns.count - 1]
    // One scale for every month: the largest of gross and returned money.
    let scale = months.map { max($0.row.gross, $0.row.refunds + $0.row.upgradeCredits) }.max() ?? 0
    guard scale > 0, bars.width > 0 else { return }
    for (index, entry) in months.enumerated().dropFirst(offset) {
        let y = area.y + 1 + index - offset
        guard y < area.bottom else { break }
        let returned = entry.row.refunds + entry.row.upgradeCredits
        let net = cells(max(0, entry.row.net), scale: scale, width: bars.width)
        let back = min(bars.width - net, cells(returned, scale: scale, width: bars.width))
        buffer.set(string: String(repeating: "█", count: net), at: Position(x: bars.x, y: y), style: palette[.success])
        buffer.set(string: String(repeating: "▒", count: back), at: Position(x: bars.x + net, y: y), style: palette[.error])
    }
}

/// Cells of a bar `width` wide for `amount` of `scale`: anything above zero shows at least one.
private func cells(_ amount: Int64, scale: Int64, width: Int) -> Int {
    guard amount > 0 else { return 0 }
    return max(1, Int((Double(amount) / Double(scale) * Double(width)).rounded()))
}

private func renderMoneyOffers(_ pane: MoneyPane, in area: Rect, buffer: inout Buffer, palette: Palette) {
    let offers = pane.offers
    guard !offers.isEmpty else {
        placeholder("No offer use started in these months", in: area, buffer: &buffer, palette: palette)
        return
    }
    let wide = area.width >= 100
    var columns: [Table.Column] = [
        .init("Offer", width: .fixed(12)), .init("Identifier", width: .fill()),
        .init("Started", width: .fixed(8), alignment: .right), .init("Converted", width: .fixed(9), alignment: .right),
        .init("Lapsed", width: .fixed(7), alignment: .right),
    ]
    if wide {
        columns += [
            .init("Switched", width: .fixed(8), alignment: .right), .init("Pending", width: .fixed(8), alignment: .right),
        ]
    }
    columns += [
        .init("Conversion", width: .fixed(11), alignment: .right), .init("P3", width: .fixed(5), alignment: .right),
        .init("P6", width: .fixed(5), alignment: .right),
    ]
    let rows = offers.map { row -> Table.Row in
        var cells = [
            row.offerKind.rawValue, row.offerIdentifier.map(clean) ?? "–", CountText.grouped(row.started),
            CountText.grouped(row.converted), CountText.grouped(row.lapsed),
        ]
        if wide { cells += [CountText.grouped(row.switched), CountText.grouped(row.pending)] }
        cells += [rate(row.rate), rate(row.retention3), rate(row.retention6)]
        return Table.Row(cells)
    }
    let sort: Table.Sort? =
        switch pane.order {
        case .offer: nil
        case .conversion: Table.Sort(column: columns.count - 3, ascending: false)
        case .retention6: Table.Sort(column: columns.count - 1, ascending: false)
        }
    Table(columns: columns, rows: rows, selected: pane.row, sort: sort).render(in: area, buffer: &buffer, palette: palette)
}

private func rate(_ value: Double?) -> String { value.map(HeatGrid.percentage) ?? "–" }
