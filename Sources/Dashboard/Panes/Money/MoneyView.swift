import ReportOutputs
import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// Pane 6: MRR per currency (now, its 30-day change) beside revenue by month in one currency
/// (gross as a bar: net `█`, refunds and upgrade credits returned `▒`); MRR at each month's end as a
/// line beside its movement month by month as signed stacked bars, with the bridge of the bar under
/// the cursor; the offer conversion table. Every amount is in its own currency: nothing here adds two.
func renderMoney(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
    let pane = state.money
    // On a short screen the charts get the rows: MRR now and the offers keep a few lines each.
    let sections = Layout.vertical(
        area.height < 30 ? [.fixed(5), .fill(), .fixed(5)] : [.percentage(30), .fill(), .percentage(28)]
    ).split(area)
    let top = Layout.horizontal([.fixed(43), .fill()], spacing: 1).split(sections[0])
    let middle = Layout.horizontal([.percentage(36), .fill()], spacing: 1).split(sections[1])
    let figures = pane.figures
    // The unpriced count is a line of the box (a title this narrow cut it off).
    let mrrTitle = "MRR as of \(state.asOf?.asOfText ?? "…")"
    let currency = pane.shownCurrency
    let revenueTitle = "Revenue by month" + (currency.map { " · \($0)" } ?? "")
    Border(title: mrrTitle, focused: false).render(in: top[0], buffer: &buffer, palette: palette)
    Border(title: revenueTitle, focused: false).render(in: top[1], buffer: &buffer, palette: palette)
    Border(title: "MRR by month" + (currency.map { " · \($0)" } ?? ""), focused: false)
        .render(in: middle[0], buffer: &buffer, palette: palette)
    Border(title: movementTitle(pane), focused: pane.focus == .movement || pane.members != nil)
        .render(in: middle[1], buffer: &buffer, palette: palette)
    let offersTitle =
        figures.map { f in
            "Offers started \(f.shownMonths[0]) – \(lastMonth(asOf: f.asOf)) · by \(pane.order.title)"
        } ?? "Offers"
    Border(title: offersTitle, focused: pane.focus == .offers && pane.members == nil)
        .render(in: sections[2], buffer: &buffer, palette: palette)
    let mrrArea = Border.inner(top[0])
    let revenueArea = Border.inner(top[1])
    let lineArea = Border.inner(middle[0])
    let movementArea = Border.inner(middle[1])
    let offersArea = Border.inner(sections[2])
    guard let figures else {
        placeholder("Loading…", in: mrrArea, buffer: &buffer, palette: palette)
        return
    }
    // Each section draws once its answer is there; MRR now is the first to arrive.
    let waiting = pane.loading ? "Loading…" : "Not loaded"
    let store = state.storeLabel ?? "store"
    if let currency {
        renderMRR(figures, in: mrrArea, buffer: &buffer, palette: palette)
        if figures.revenue == nil {
            placeholder(waiting, in: revenueArea, buffer: &buffer, palette: palette)
        } else {
            renderRevenue(figures, currency: currency, in: revenueArea, buffer: &buffer, palette: palette)
        }
        if var line = pane.mrrLineModel(store: store) {
            line.title = ""
            Chart(model: line, glyphs: state.chartGlyphs, cursor: pane.shownBar)
                .render(in: lineArea, buffer: &buffer, palette: palette)
        } else {
            placeholder(waiting, in: lineArea, buffer: &buffer, palette: palette)
        }
        if pane.members != nil || pane.membersLoading != nil {
            renderMovementMembers(pane, in: movementArea, buffer: &buffer, palette: palette)
        } else if var bars = pane.movementModel(store: store) {
            bars.title = ""
            renderMovement(pane, bars, glyphs: state.chartGlyphs, in: movementArea, buffer: &buffer, palette: palette)
        } else {
            placeholder(
                figures.movement == nil ? waiting : "No MRR in \(currency) in these months", in: movementArea,
                buffer: &buffer, palette: palette)
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

/// The movement box's title: the month and currency, and what `enter` opened.
private func movementTitle(_ pane: MoneyPane) -> String {
    let currency = pane.shownCurrency.map { " · \($0)" } ?? ""
    if let bucket = pane.members?.bucket ?? pane.membersLoading {
        return "MRR movement \(bucket.label)\(currency) · subscriptions by movement (esc: back)"
    }
    return "MRR movement by month\(currency)"
}

/// The bars with the cursor's bar labelled, and under them that bar's bridge: MRR at its start and
/// end, each movement with its subscriptions, fx when converted.
private func renderMovement(
    _ pane: MoneyPane, _ model: ChartModel, glyphs: ChartGlyphs, in area: Rect, buffer: inout Buffer, palette: Palette
) {
    let readout = area.height >= 7 ? 2 : 1
    let chartArea = Rect(x: area.x, y: area.y, width: area.width, height: max(0, area.height - readout))
    var model = model
    // In cells the net line would cover the bars it sums; the readout gives it (MRR start → end).
    // The SVG (`ctrl-s`) draws it.
    model.series.removeAll { $0.kind == .line }
    Chart(model: model, glyphs: glyphs, cursor: pane.shownBar).render(in: chartArea, buffer: &buffer, palette: palette)
    guard let row = pane.selectedMovement else { return }
    let money = { (m: Int64) in MoneyFormat.number(m, currency: row.currency) }
    let signed = { (m: Int64) in (m > 0 ? "+" : "") + money(m) }
    var y = chartArea.bottom
    let label = row.bucket.label + (row.bucket.isComplete ? "" : " (to \(row.bucket.end.isoDate))")
    if readout == 2 {
        var text = "\(label) · MRR \(money(row.mrrStart)) → \(money(row.mrrEnd)) \(row.currency)"
        if row.fx != 0 { text += " · fx \(signed(row.fx))" }
        buffer.set(string: text, at: Position(x: area.x, y: y), style: palette[.text], maxWidth: area.width)
        y += 1
    }
    let parts = movementReadout(row, width: area.width)
    if parts.isEmpty {
        buffer.set(string: "nothing moved", at: Position(x: area.x, y: y), style: palette[.muted], maxWidth: area.width)
    }
    var x = area.x
    for (c, text) in parts where x < area.right {
        x = buffer.set(string: text, at: Position(x: x, y: y), style: palette[ReportCharts.role(c)], maxWidth: area.right - x) + 2
    }
}

/// A bar's movements as the readout lists them in `width` cells: every movement by its whole name
/// when they fit, else short names, else only those that moved, else those without their counts
/// (`enter` lists them); never cut while the last fits.
func movementReadout(_ row: MRRMovement.Row, width: Int) -> [(MovementComponent, String)] {
    let money = { (m: Int64) in MoneyFormat.number(m, currency: row.currency) }
    let signed = { (m: Int64) in (m > 0 ? "+" : "") + money(m) }
    let moved = MovementComponent.allCases.filter { row.count($0) > 0 }
    let choices = [
        (false, MovementComponent.allCases, true), (true, MovementComponent.allCases, true), (true, moved, true),
        (true, moved, false),
    ]
    var rendered = choices.map { short, shown, counted in
        shown.map { c in
            (
                c,
                "\(short ? shortName(c) : c.rawValue) \(signed(row[c]))"
                    + (counted ? " (\(CountText.grouped(row.count(c))))" : "")
            )
        }
    }
    // Then whole units (a number is never cut in the middle: -20, could read as -20).
    rendered.append(moved.map { c in (c, "\(shortName(c)) \(wholeUnits(row[c], currency: row.currency))") })
    let fits = { (parts: [(MovementComponent, String)]) in
        parts.reduce(0) { $0 + $1.1.displayWidth } + 2 * (parts.count - 1) <= width
    }
    if let first = rendered.first(where: fits) { return first }
    // Narrower still: the movements that fit whole, in order.
    var shown = rendered[rendered.count - 1]
    while !shown.isEmpty, !fits(shown) { shown.removeLast() }
    return shown
}

/// `milliunits` rounded to whole units, signed, grouped: +18,560.
private func wholeUnits(_ milliunits: Int64, currency: String) -> String {
    let rounded = (milliunits >= 0 ? milliunits + 500 : milliunits - 500) / 1000 * 1000
    let text = MoneyFormat.number(rounded, currency: currency)
    let whole = text.split(separator: ".", maxSplits: 1).first.map(String.init) ?? text
    return (rounded > 0 ? "+" : "") + whole
}

private func shortName(_ c: MovementComponent) -> String {
    switch c {
    case .new: "new"
    case .reactivation: "react"
    case .expansion: "exp"
    case .contraction: "contr"
    case .churn: "churn"
    }
}

/// A bar's subscriptions: a heading per movement (its subscriptions and amount), then each
/// subscription with its MRR at the bar's start and end; the cursor row reversed.
private func renderMovementMembers(_ pane: MoneyPane, in area: Rect, buffer: inout Buffer, palette: Palette) {
    guard let members = pane.members else {
        placeholder("Loading…", in: area, buffer: &buffer, palette: palette)
        return
    }
    guard !members.members.isEmpty else {
        placeholder(
            "No subscription moved MRR in \(members.currency) in \(members.bucket.label)", in: area, buffer: &buffer,
            palette: palette)
        return
    }
    let money = { (m: Int64) in MoneyFormat.number(m, currency: members.currency) }
    // (text, style, member index)
    var lines: [(String, Style, Int?)] = []
    for c in MovementComponent.allCases {
        let rows = members.members.enumerated().filter { $0.element.component == c }
        guard !rows.isEmpty else { continue }
        let total = members.counts[c] ?? rows.count
        // The bridge's figure (rounded once), not a sum of the rounded rows below.
        let amount = members.amounts[c] ?? 0
        var heading = "\(c.rawValue) · \(CountText.grouped(total)) subscription\(total == 1 ? "" : "s")"
        heading += " · \(amount > 0 ? "+" : "")\(money(amount))"
        if rows.count < total { heading += " (first \(CountText.grouped(rows.count)) listed)" }
        lines.append((heading, palette[ReportCharts.role(c)].adding(.bold), nil))
        for (index, member) in rows {
            let change = member.after - member.before
            let text =
                "  " + clean(member.originalTransactionId).padded(toWidth: 20) + " "
                + money(member.before).padded(toWidth: 10, alignment: .right) + " → "
                + money(member.after).padded(toWidth: 10, alignment: .right) + "  "
                + ((change > 0 ? "+" : "") + money(change)).padded(toWidth: 10, alignment: .right)
            lines.append((text, palette[.text], index))
        }
    }
    let selectedLine = lines.firstIndex { $0.2 == pane.memberRow } ?? 0
    let first = Table.scrollOffset(selected: selectedLine, offset: 0, visibleRows: max(1, area.height))
    for (offset, line) in lines.dropFirst(first).prefix(area.height).enumerated() {
        let style = line.2 == pane.memberRow ? palette[.selection] : line.1
        buffer.set(string: line.0, at: Position(x: area.x, y: area.y + offset), style: style, maxWidth: area.width)
    }
}

/// One row per currency: MRR now and its change over 30 days.
private func renderMRR(_ figures: MoneyFigures, in area: Rect, buffer: inout Buffer, palette: Palette) {
    let columns: [Table.Column] = [
        .init("", width: .fixed(3)), .init("Now", width: .fixed(14), alignment: .right),
        .init("Δ30d", width: .fixed(13), alignment: .right), .init("", width: .fill()),
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
