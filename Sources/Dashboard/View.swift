import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

public enum DashboardView {
    public static let minimumSize = Size(width: 80, height: 24)

    /// The keys that quit whatever is shown: `ctrl-c` anywhere (a prompt or a dialog included),
    /// and `q` too on the "Terminal too small" screen, where no other key does anything.
    public static func quitsAtAnySize(_ event: KeyEvent) -> Bool {
        event.key == .ctrl("c") || event.key == .char("q")
    }
}

/// The whole screen as a pure function of the state. Returns the buffer; `render(_:into:palette:)`
/// draws into a given buffer and also returns where the cursor belongs.
public func view(_ state: AppState, size: Size, palette: Palette) -> Buffer {
    var buffer = Buffer(size: size)
    render(state, into: &buffer, palette: palette)
    return buffer
}

/// Draws into `buffer` (the whole of it) and returns where the cursor belongs, if anywhere.
@discardableResult
public func render(_ state: AppState, into buffer: inout Buffer, palette: Palette) -> Position? {
    let area = buffer.area
    // The theme's background everywhere, blanks included (a light theme on a dark terminal).
    buffer.fill(area, style: palette[.text])
    guard area.width >= DashboardView.minimumSize.width, area.height >= DashboardView.minimumSize.height else {
        let lines = ["Terminal too small", "need 80×24, have \(area.width)×\(area.height)", "q or ctrl-c quits"]
        for (index, line) in lines.enumerated() {
            let x = max(0, (area.width - line.displayWidth) / 2)
            let y = max(0, area.height / 2 - 1 + index)
            buffer.set(
                string: line, at: Position(x: x, y: y), style: palette[index == 0 ? .warning : .muted],
                maxWidth: max(0, area.width - x))
        }
        return nil
    }
    let rows = Layout.vertical([.fixed(1), .fixed(1), .fill(), .fixed(1), .fixed(1)]).split(area)
    Tabs(titles: Pane.allCases.map(\.title), active: state.pane.rawValue, shortTitles: Pane.allCases.map(\.shortTitle))
        .render(in: rows[0], buffer: &buffer, palette: palette)
    var crumbs = ["subdash"]
    if state.pane == .subscribers, let population = state.subscribers.view.queriedPopulation {
        // A drill-down shows where it came from.

        crumbs.append(
            state.subscribers.view.origin?.title
                ?? (population.isCohort
                    ? Pane.cohorts.title : population.isOfferUse ? Pane.money.title : Pane.statesEvents.title))
    }
    crumbs.append(state.pane.title)
    if state.pane == .subscriber, let id = state.subscriber.id { crumbs.append(clean(id)) }
    Breadcrumbs(crumbs).render(in: rows[1], buffer: &buffer, palette: palette)
    var scope = ["as of " + (state.asOf?.asOfText ?? "…"), state.scope.environment.rawValue]
    if let product = state.scope.productId { scope.append(clean(product)) }
    // `:plan`: the panes that count one plan say which (and a list behind one of their figures);
    // the others count both and say so.
    if let plan = state.scope.plan {
        let counted =
            [.cohorts, .statesEvents, .money, .trends].contains(state.pane)
            || (state.pane == .subscribers && state.subscribers.view.queriedPopulation != nil)
        scope.append(counted ? "plan \(plan.rawValue)" : "both plans here")
    }
    if state.pane == .subscribers, !state.marks.isEmpty { scope.append("\(state.marks.count) marked") }
    // Said where the user looks first, not only when a writing key is refused.
    if state.readOnly { scope.append("read-only") }
    // Right of the crumbs, never over them: the default environment gives way first.
    let crumbsEnd = rows[1].x + Breadcrumbs(crumbs).width + 1
    if scope.joined(separator: " · ").displayWidth > rows[1].right - crumbsEnd, state.scope.environment == .production {
        scope.remove(at: 1)
    }
    let scopeText = scope.joined(separator: " · ")
    let scopeX = max(min(crumbsEnd, rows[1].right), rows[1].right - scopeText.displayWidth)
    buffer.set(string: scopeText, at: Position(x: scopeX, y: rows[1].y), style: palette[.muted], maxWidth: rows[1].right - scopeX)

    let body = rows[2]
    switch state.pane {
    case .subscribers: renderSubscribers(state, in: body, buffer: &buffer, palette: palette)
    case .subscriber: renderSubscriber(state, in: body, buffer: &buffer, palette: palette)
    case .cohorts: renderCohorts(state, in: body, buffer: &buffer, palette: palette)
    case .statesEvents: renderStatesEvents(state, in: body, buffer: &buffer, palette: palette)
    case .offers: renderOffers(state, in: body, buffer: &buffer, palette: palette)
    case .money: renderMoney(state, in: body, buffer: &buffer, palette: palette)
    case .trends: renderTrends(state, in: body, buffer: &buffer, palette: palette)
    }

    var cursor: Position?
    let statusRow = Position(x: rows[3].x, y: rows[3].y)
    if let entry = state.commandLine {
        cursor = entry.prompt.render(in: rows[3], buffer: &buffer, palette: palette)
    } else if let status = state.status {
        buffer.set(string: clean(status), at: statusRow, style: palette[.error], maxWidth: rows[3].width)
    } else if !state.pendingKeys.isEmpty {
        buffer.set(string: pendingHint(state), at: statusRow, style: palette[.accent], maxWidth: rows[3].width)
    } else if state.exporting, let notice = state.notice {
        buffer.set(string: clean(notice), at: statusRow, style: palette[.accent], maxWidth: rows[3].width)
    } else if isLoading(state) {
        Spinner(tick: 0, label: "loading…", frames: Spinner.asciiFrames).render(in: rows[3], buffer: &buffer, palette: palette)
    } else if let notice = state.notice {
        buffer.set(string: clean(notice), at: statusRow, style: palette[.success], maxWidth: rows[3].width)
    } else {
        switch state.storeWatch.importActivity {
        case .idle:
            // A mass extension the dashboard polls (MassExtensionWatch.swift), and how far behind
            // the team log the store is.
            let lines = [state.massExtensions.line, state.teamLog.map(clean)].compactMap { $0 }
            if !lines.isEmpty {
                buffer.set(string: lines.joined(separator: " · "), at: statusRow, style: palette[.muted], maxWidth: rows[3].width)
            }
        case .running:
            buffer.set(
                string: "an import or the listener is writing: the figures follow it as it goes", at: statusRow,
                style: palette[.muted], maxWidth: rows[3].width)
        case .interrupted(let pending):
            buffer.set(
                string: "the last import was interrupted: \(pending) subscription\(pending == 1 ? " is" : "s are") not rebuilt; "
                    + "run `subdash import` again", at: statusRow, style: palette[.warning], maxWidth: rows[3].width)
        }
    }
    if let label = state.storeLabel, state.commandLine == nil {
        // Which store this is (the demo's path), at the right where the row has room for it.
        let text = clean(label)
        let x = rows[3].right - text.displayWidth
        if x >= rows[3].x,
            (0..<text.displayWidth + 1).allSatisfy({ x + $0 - 1 < rows[3].x || buffer[x + $0 - 1, rows[3].y].symbol == " " })
        {
            buffer.set(string: text, at: Position(x: x, y: rows[3].y), style: palette[.muted])
        }
    }
    var barItems = KeyBindings.barItems(for: state.pane, readOnly: state.readOnly)
    if state.appleFetchUnavailable != nil, let i = barItems.firstIndex(where: { $0.key == "R" }) {
        // Offered, but say why it would do nothing.
        barItems[i].description = "fetch: no credentials"
    }
    HelpBar(items: barItems).render(in: rows[4], buffer: &buffer, palette: palette)

    switch state.overlay {
    case .help: renderHelp(state, in: area, buffer: &buffer, palette: palette)
    case .message(let title, let text):
        MessageOverlay(title: title, text: text, rows: area.height).dialog(scroll: state.messageScroll)
            .render(in: area, buffer: &buffer, palette: palette)
    case nil: break
    }
    state.confirmation?.dialog.render(in: area, buffer: &buffer, palette: palette)
    state.extensionDialog?.dialog.render(in: area, buffer: &buffer, palette: palette)
    state.consumptionForm?.dialog.render(in: area, buffer: &buffer, palette: palette)
    return cursor
}

/// Payload strings never reach the screen with control characters in them.
func clean(_ text: String) -> String { TextSanitizer.visible(text) }

private func isLoading(_ state: AppState) -> Bool { state[keyPath: state.pane.loadingFlag] }

/// `g …`: the keys that can finish the sequence typed so far.
private func pendingHint(_ state: AppState) -> String {
    let typed = KeyChord(state.pendingKeys).description
    guard case .prefix(let bindings) = KeyBindings.resolve(state.pendingKeys, on: state.pane) else { return typed }
    let next = bindings.filter { $0.isOffered(on: state.pane, readOnly: state.readOnly) }
        .map { "\($0.chord.description) \($0.name)" }
    return "\(typed) …  " + next.joined(separator: " · ")
}

func placeholder(_ text: String, in area: Rect, buffer: inout Buffer, palette: Palette) {
    buffer.set(string: text, at: Position(x: area.x + 1, y: area.y + 1), style: palette[.muted], maxWidth: area.width - 2)
}

// MARK: - Panes

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

private func renderSubscribers(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
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

func role(for kind: OfferKind) -> ThemeRole {
    switch kind {
    case .standard: .standard
    case .freeTrial: .freeTrial
    case .introductory: .introductory
    case .promotional: .promotional
    case .offerCode: .offerCode
    case .winBack: .winBackPeriod
    }
}

private func renderCohorts(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
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

// MARK: - Help overlay

private func renderHelp(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
    var seen: Set<String> = []
    var lines: [(String, String)] = []
    // This pane's own keys first: they are what the overlay is opened for.
    let offered = KeyBindings.all.filter { $0.isOffered(on: state.pane, readOnly: state.readOnly) }
    for binding in offered.filter({ $0.panes != nil }) + offered.filter({ $0.panes == nil }) {
        let key = binding.description
        if seen.insert(key).inserted {
            let chords = KeyBindings.all.filter {
                $0.description == key && $0.isOffered(on: state.pane, readOnly: state.readOnly)
            }
            .map(\.chord.description).joined(separator: " ")
            lines.append((chords, key))
        }
    }
    // Descriptions wrap under themselves (never cut): the key column is 14 wide, one space, the rest.
    let width = min(area.width - 4, 76)
    let textWidth = max(10, width - 4 - 15)
    lines = lines.flatMap { line in
        Dialog.wrap(line.1, width: textWidth).enumerated().map { index, part in (index == 0 ? line.0 : "", part) }
    }
    let box = area.centered(Size(width: width, height: min(area.height - 2, lines.count + 2)))
    Border(title: "Keys · \(state.pane.title)", focused: true, fill: .dialog).render(in: box, buffer: &buffer, palette: palette)
    let inner = Border.inner(box).inset(horizontal: 1, vertical: 0)
    if lines.count > inner.height {
        // Too many for the screen: a window on them, with how many lie below (j/k scroll).
        let room = max(1, inner.height - 1)
        let first = min(state.helpScroll, max(0, lines.count - room))
        let below = lines.count - first - room
        lines =
            Array(lines[first..<min(lines.count, first + room)])
            + [("j/k", below > 0 ? "\(below) more below" : "end of the list (k scrolls back)")]
    }
    for (index, line) in lines.enumerated() {
        let y = inner.y + index
        buffer.set(
            string: line.0, at: Position(x: inner.x, y: y), style: palette[.dialog].patched(with: palette[.helpKey]), maxWidth: 14
        )
        buffer.set(string: line.1, at: Position(x: inner.x + 15, y: y), style: palette[.dialog], maxWidth: inner.width - 15)
    }
}
