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
    state.pane.definition.render(state, in: body, buffer: &buffer, palette: palette)

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
