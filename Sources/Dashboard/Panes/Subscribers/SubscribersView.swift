import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

/// Pane 1's title: which list is shown (everyone, a drill-down, a search in either), and the
/// cursor's position in it.
func subscribersTitle(_ state: AppState) -> String {
    let pane = state.subscribers
    let view = pane.view
    // The position first: a long list description is what gets cut at 80 columns.
    var title = "Subscribers"
    if let count = pane.count {
        // Thousands grouped; a search cut off at its limit says so ("5,000+"), never a short count.
        title +=
            " \(CountText.grouped(count == 0 ? 0 : pane.selected + 1))/\(CountText.grouped(count))\(pane.capped ? "+" : "")"
    }
    title += " · "
    if let population = view.population, !view.searchesEveryone {
        title += "\(population)"
        if let size = pane.populationSize {
            title +=
                size.figure == size.subscriptions ? " (\(size.figure))" : " (\(size.figure), \(size.subscriptions) subscriptions)"
        }
        // A drill-down counts purchased subscriptions, as the reports do, unless `o` says otherwise.
        if view.ownership != .purchased { title += " · \(view.ownership.title)" }
    } else {
        title += view.queriedOwnership == .all ? "all" : view.queriedOwnership.title
    }
    if let filter = view.filter { title += " matching \"\(clean(filter))\"" }
    if view.searchesEveryone, let population = view.population { title += " (none in \(population))" }
    return title
}

/// Pane 1's columns, in the order of ``SubscriberSort/Column``, sized by their content when drawn
/// (ids and products keep their distinguishing end, emails their local part); `Fam` says "yes" for
/// a family member's access through someone else's purchase (Family Sharing); `Plan` says `12×` for
/// monthly payments of a 12-month commitment and nothing for a period billed upfront.
private let subscriberColumns: [Table.Column] = [
    .init("Subscription", width: .fixed(16), keepsEnd: true), .init("User", width: .fill(1), keepsEnd: true),
    .init("Email", width: .fill(2)),
    .init("State", width: .fixed(12)), .init("Product", width: .fixed(12), keepsEnd: true),
    .init("Paid", width: .fixed(4), alignment: .right), .init("Auto", width: .fixed(4)),
    .init("Flg", width: .fixed(3), alignment: .right),
    .init("Fam", width: .fixed(3)), .init("Env", width: .fixed(3)), .init("Plan", width: .fixed(4)),
]

/// The Env column: blank for production (most rows), a short name for test purchases, `?` for an
/// environment Apple does not document.
private func environmentText(_ environment: StoreEnvironment) -> String {
    switch environment {
    case .production: ""
    case .sandbox: "sbx"
    case .xcode: "xcd"
    case .localTesting: "loc"
    default: "?"
    }
}

/// How many of ``subscriberColumns`` pane 1 shows: the Env column only when the dashboard counts
/// test environments or a row is from one (a search finds every environment), the Plan column only
/// when a loaded row pays monthly for a commitment, so a production list billed upfront keeps its
/// width for user ids and emails. The shown columns are a prefix (the column cursor sorts by its
/// index), so Plan brings Env with it.
func shownSubscriberColumns(_ state: AppState) -> Int {
    let showsPlan = state.subscribers.rows.contains { $0.commitmentPeriods != nil }
    let showsEnvironment =
        showsPlan || state.scope.environment != .production
        || state.subscribers.rows.contains { $0.environment != .production }
    return subscriberColumns.count - (showsPlan ? 0 : 1) - (showsEnvironment ? 0 : 1)
}

/// The Plan column: blank when billed upfront, `12×` for monthly payments of a 12-month commitment
/// (`mo` when Apple did not say how many).
private func planText(_ commitmentPeriods: Int?) -> String {
    guard let n = commitmentPeriods else { return "" }
    return n > 0 ? "\(n)×" : "mo"
}

func renderSubscribers(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
    let pane = state.subscribers
    var columns = Array(subscriberColumns.prefix(shownSubscriberColumns(state)))
    Border(title: subscribersTitle(state), focused: true).render(in: area, buffer: &buffer, palette: palette)
    let inner = Border.inner(area)
    if pane.rows.isEmpty {
        let text =
            pane.loading || (pane.count ?? 0) > 0
            ? "Loading…"
            : orderLookupOffer(state).map { "Nobody matches \"\($0)\": look up order \($0) at Apple (enter)" }
                ?? pane.filter.map { "Nobody matches \"\(clean($0))\" (esc goes back)." } ?? "No subscribers."
        placeholder(text, in: inner, buffer: &buffer, palette: palette)
        return
    }
    // Only the rows on screen become table rows: a frame costs the same on row 10 and row 100,000.
    let visible = max(0, inner.height - 1)
    let cursor = pane.selected - pane.first
    let first = Table.scrollOffset(selected: cursor, offset: 0, visibleRows: visible)
    let cellRows = pane.rows[first..<min(pane.rows.count, first + visible)].map { row in
        let paid = row.paidPeriods.map(String.init) ?? "—"
        let autoRenew = row.autoRenew.map { $0 ? "on" : "off" } ?? "—"
        let cells: [String] = [
            clean(row.id), row.userId.map(clean) ?? "", row.email.map(clean) ?? "", row.state ?? "—",
            clean(row.productId), paid, autoRenew, row.flagCount > 0 ? "\(row.flagCount)" : "",
            row.ownership == .familyShared ? "yes" : "", environmentText(row.environment),
            planText(row.commitmentPeriods),
        ]
        return Table.Row(Array(cells.prefix(columns.count)), isMarked: state.marks.contains(row.id))
    }
    // Columns sized by what the rows on screen hold: the widest gives way first (the subscription
    // id never), room left over goes to the user id and email.
    let minimums = [16, 5, 14, 5, 12, 4, 4, 3, 3, 3, 4]
    let wanted = columns.indices.map { column in
        max(columns[column].title.displayWidth, cellRows.map { $0.cells[column].displayWidth }.max() ?? 0)
    }
    let widths = Table.contentWidths(
        wanted: wanted, minimums: Array(minimums.prefix(columns.count)), grow: columns.indices.map { $0 == 1 || $0 == 2 },
        in: inner.width - 1)
    for column in columns.indices { columns[column].width = .fixed(widths[column]) }
    // An email keeps its local part, what tells customers apart ("customer0009@ex…").
    let emailWidth = widths[2]
    let rows = cellRows.map { row in
        var row = row
        row.cells[2] = row.cells[2].truncatedEmail(toWidth: emailWidth)
        return row
    }
    let sort = pane.view.sort
    let shownSort =
        sort == SubscriberSort()
        ? nil
        : Table.Sort(column: SubscriberSort.Column.allCases.firstIndex(of: sort.column) ?? 0, ascending: sort.ascending)
    Table(columns: columns, rows: rows, selected: cursor - first, sort: shownSort, showsMarkGutter: true)
        .render(in: inner, buffer: &buffer, palette: palette)
    // The column cursor: its header is underlined (what `[` and `]` sort by).
    let body = Rect(x: inner.x + 1, y: inner.y, width: inner.width - 1, height: 1)
    let headers = Layout.horizontal(columns.map(\.width), spacing: 1).split(body)
    if headers.indices.contains(pane.column) {
        buffer.setStyle(palette[.header].patched(with: palette[.sortIndicator]).adding(.underline), in: headers[pane.column])
    }
}
