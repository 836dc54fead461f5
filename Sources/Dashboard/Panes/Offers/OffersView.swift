import SubscriptionModel
import TerminalUI

/// Pane 5: the list selector (each offer's eligibility list, then the flagged), and the shown rows
/// with their marks, the column cursor and the sort.
func renderOffers(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
    let pane = state.offers
    var title = "Offers · \(pane.list.title)"
    if let filter = pane.filter { title += " matching \"\(clean(filter))\"" }
    // Marks can lie outside the filter: say how many are marked and how many rows are shown.
    title += pane.marks.isEmpty ? " (\(pane.shown.count) shown)" : " · \(pane.marks.count) marked (\(pane.shown.count) shown)"
    // The lists still streamed after the first screen: how far along.
    if let stream = pane.stream, pane.loading, !pane.list.isCampaigns { title += " · loading \(stream.percent) %" }
    if pane.list.isCampaigns, let funnel = pane.campaigns {
        title += " · flags set by \(funnel.report.asOf.asOfText)"
        if funnel.setAfterAsOf > 0 { title += " (\(funnel.setAfterAsOf) set later not counted)" }
    }
    if pane.list.isCampaigns, pane.campaignsLoading { title += " · loading" }
    if state.readOnly { title += " · read-only" }
    Border(title: title, focused: true).render(in: area, buffer: &buffer, palette: palette)
    let inner = Border.inner(area)
    guard inner.height >= 3 else { return }

    var x = inner.x
    for list in OfferList.allCases {
        // The funnel is read when first shown: until then its tab has no count.
        let count = pane.isCounted(list) ? " " + String(pane.count(of: list)) : list == .campaigns ? "" : " …"
        let label = " \(list.title)\(count) "
        guard x < inner.right else { break }
        x = buffer.set(
            string: label, at: Position(x: x, y: inner.y),
            style: palette[list == pane.list || (list == .campaigns && pane.list.isCampaigns) ? .tabActive : .tab],
            maxWidth: inner.right - x)
        x += 1
    }
    let listArea = Rect(x: inner.x, y: inner.y + 2, width: inner.width, height: inner.height - 2)
    guard !pane.shown.isEmpty else {
        let text: String
        if pane.list.isCampaigns {
            text =
                pane.campaigns == nil
                ? "Loading…"
                : pane.filter != nil
                    ? "No row matches the filter (esc clears it)."
                    : pane.list == .campaigns
                        ? (pane.campaigns?.setAfterAsOf ?? 0) > 0
                            ? "None by as-of: \(pane.campaigns?.setAfterAsOf ?? 0) set later (:asof a later date counts them)."
                            : "No flag set by \(state.asOf?.asOfText ?? "as-of"): flag subscribers on an offer's list first."
                        : "Nobody at this step (esc: back to the funnel)."
        } else if pane.board == nil {
            text = "Loading…"
        } else if pane.filter != nil {
            text = "No row matches the filter (esc clears it)."
        } else {
            text =
                pane.list == .flagged
                ? "Nobody is flagged." : "Nobody is eligible for \(pane.list.title) as of \(state.asOf?.asOfText ?? "as-of")."
        }
        placeholder(text, in: listArea, buffer: &buffer, palette: palette)
        return
    }
    var rows = pane.shown.map { row in
        Table.Row(row.cells(for: pane.list).map(clean), isMarked: pane.marks.contains(row.id))
    }
    let visible = listArea.height - 1
    let offset = Table.scrollOffset(selected: pane.selected, offset: max(0, pane.selected - visible / 2), visibleRows: visible)
    // Columns sized by the rows on screen: the widest gives way first (product ids keep their end,
    // the subscription id is never cut).
    if pane.list == .campaigns {
        renderFunnel(pane, rows: rows, offset: offset, in: listArea, buffer: &buffer, palette: palette)
        return
    }
    let emailColumn = 1
    let minimums =
        switch pane.list {
        case .eligible: [17, 5, 12, 12, 5]
        case .flagged: [17, 5, 6, 8, 20, 4]
        case .campaigns: Array(repeating: 4, count: OfferList.campaigns.columns.count)
        case .campaignMembers: [17, 5, 7, 6, 5, 20]
        }
    let titles = pane.list.columns
    let onScreen = rows.dropFirst(offset).prefix(max(0, visible))
    var wanted = titles.indices.map { column in
        max(titles[column].displayWidth, onScreen.map { $0.cells[column].displayWidth }.max() ?? 0)
    }
    // The email asks for its local part ("customer0009@…", up to 20 columns) and gets the room the
    // other columns leave, up to its whole width: they are whole before it is. What is left over
    // then goes to the last column.
    let wholeEmail = wanted[emailColumn]
    let localParts = onScreen.map { row in
        let email = row.cells[emailColumn]
        return email.firstIndex(of: "@").map { String(email[...$0]).displayWidth + 1 } ?? email.displayWidth
    }
    wanted[emailColumn] = min(wholeEmail, max(titles[emailColumn].displayWidth, min(20, localParts.max() ?? 0)))
    var floors = minimums
    floors[emailColumn] = wanted[emailColumn]
    var fixedWidths = Table.contentWidths(
        wanted: wanted, minimums: floors, grow: titles.indices.map { $0 == emailColumn }, in: listArea.width - 1)
    let excess = fixedWidths[emailColumn] - max(wholeEmail, floors[emailColumn])
    if excess > 0 {
        fixedWidths[emailColumn] -= excess
        fixedWidths[titles.count - 1] += excess
    }
    let widths: [Constraint] = fixedWidths.map { .fixed($0) }
    // An email keeps its local part, what tells customers apart ("customer0009@ex…").
    for index in rows.indices.dropFirst(offset).prefix(max(0, visible)) {
        rows[index].cells[emailColumn] = rows[index].cells[emailColumn].truncatedEmail(toWidth: fixedWidths[emailColumn])
    }
    let columns = zip(titles, widths).map { Table.Column($0, width: $1, keepsEnd: $0 == "Product") }
    Table(
        columns: columns, rows: rows, selected: pane.selected, offset: offset,
        sort: pane.sort.map { Table.Sort(column: $0.column, ascending: $0.ascending) }, showsMarkGutter: true
    )
    .render(in: listArea, buffer: &buffer, palette: palette)
    // The column cursor: its header is underlined (what `[` and `]` sort by).
    let body = Rect(x: listArea.x + 1, y: listArea.y, width: listArea.width - 1, height: 1)
    let header = Layout.horizontal(widths, spacing: 1).split(body)[pane.column]
    buffer.setStyle(palette[.header].patched(with: palette[.sortIndicator]).adding(.underline), in: header)
}

/// The funnel: one row per flag kind and offer, its counts right-aligned; the column cursor picks
/// the step `enter` lists.
private func renderFunnel(
    _ pane: OffersPane, rows: [Table.Row], offset: Int, in listArea: Rect, buffer: inout Buffer, palette: Palette
) {
    let titles = OfferList.campaigns.columns
    var wanted = titles.indices.map { column in
        max(titles[column].displayWidth, rows.map { $0.cells[column].displayWidth }.max() ?? 0)
    }
    // The offer gives way first (to 14 columns), then the columns on the right go whole: every step
    // stays (a narrow window drops rates, days and retention before a count).
    wanted[1] = min(wanted[1], max(14, listArea.width - 1 - (wanted.reduce(0, +) - wanted[1]) - (titles.count - 1)))
    var shown = titles.count
    while shown > 2 + CampaignFunnel.steps.count, wanted.prefix(shown).reduce(0, +) + shown - 1 > listArea.width - 1 {
        shown -= 1
    }
    let fixedWidths = Table.contentWidths(
        wanted: Array(wanted.prefix(shown)), minimums: (0..<shown).map { $0 < 2 ? 6 : min(wanted[$0], 5) },
        grow: Array(repeating: false, count: shown), in: listArea.width - 1)
    // No column wider than its widest cell: what is left stays blank on the right.
    let widths: [Constraint] = (0..<shown).map { .fixed(min(fixedWidths[$0], wanted[$0])) }
    let columns = (0..<shown).map { Table.Column(titles[$0], width: widths[$0], alignment: $0 < 2 ? .left : .right) }
    let cut = rows.map { Table.Row(Array($0.cells.prefix(shown)), isMarked: $0.isMarked) }
    Table(
        columns: columns, rows: cut, selected: pane.selected, offset: offset,
        sort: pane.sort.map { Table.Sort(column: $0.column, ascending: $0.ascending) }, showsMarkGutter: true
    )
    .render(in: listArea, buffer: &buffer, palette: palette)
    guard pane.column < shown else { return }
    let body = Rect(x: listArea.x + 1, y: listArea.y, width: listArea.width - 1, height: 1)
    let header = Layout.horizontal(widths, spacing: 1).split(body)[pane.column]
    buffer.setStyle(palette[.header].patched(with: palette[.sortIndicator]).adding(.underline), in: header)
}
