import SubscriberAnalytics
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

/// Pane 2: one subscriber at a glance. Everything it shows is a field of the `SubscriberReport`
/// that `report subscriber` prints; this file only lays it out.
func renderSubscriber(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
    var title = "Subscriber"
    if let id = state.subscriber.id, state.fetchingFromApple.contains(id) {
        title += " · " + String(spinnerFrames[state.spinnerFrame % spinnerFrames.count]) + " fetching from Apple"
    }
    Border(title: title, focused: true).render(in: area, buffer: &buffer, palette: palette)
    let inner = Border.inner(area).inset(horizontal: 1, vertical: 0)
    guard let report = state.subscriber.report else {
        let text = state.subscriber.id == nil ? "No subscriber selected: pick one on 1 Subscribers." : "Loading…"
        placeholder(text, in: inner, buffer: &buffer, palette: palette)
        return
    }
    let header = SubscriberHeader(report: report)
    let layout = SubscriberLayout(
        headerRows: header.lines(width: inner.width).count,
        timelineRows: timelineBarRows(report), in: inner)
    header.render(in: layout.header, buffer: &buffer, palette: palette)
    renderTimelineBar(report, in: layout.timeline, buffer: &buffer, palette: palette)
    renderLists(state.subscriber, report, in: layout.lists, buffer: &buffer, palette: palette)
}

/// The pane's parts top to bottom, each as many rows as it draws: the header's fields, the
/// timeline bar with its legend, and the periods and events lists in the rows left.
struct SubscriberLayout {
    var header: Rect
    var timeline: Rect
    var lists: Rect

    init(headerRows: Int, timelineRows: Int, in area: Rect) {
        header = Rect(x: area.x, y: area.y, width: area.width, height: headerRows)
        timeline = Rect(x: area.x, y: header.bottom, width: area.width, height: timelineRows)
        lists = Rect(x: area.x, y: timeline.bottom, width: area.width, height: area.bottom - timeline.bottom)
    }
}

/// The spinner shown while a fetch from Apple runs (one frame per tick).
let spinnerFrames = Array("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

// MARK: - Header

/// The Subscriber pane's words for Family Sharing.
enum FamilySharingText {
    static let access = "Family Sharing — access through a family member's purchase"
    static func revoked(on instant: Instant) -> String { "sharing revoked on \(instant.isoDate)" }
}

/// The fields a support agent is asked about, two to a row; a field too long for half a row (an
/// appAccountToken at 80 columns, several flags) gets a row of its own below the others.
struct SubscriberHeader {
    var report: SubscriberReport
    static let labelWidth = 13

    struct Field {
        var label: String
        var value: String
        var role: ThemeRole = .text
        /// Drawn on a row of its own above the paired fields, however short.
        var ownRow = false
    }

    var fields: [Field] {
        let r = report
        func dated(_ t: Instant) -> String { "\(t.isoDate) (\(r.fromAsOf(t)))" }
        var fields = [
            Field(
                label: "State", value: SubscriberHeader.words(for: r.state), role: SubscriberHeader.role(for: r.state),
                ownRow: true)
        ]
        if let commitment = r.commitment {
            // Monthly payments of a commitment: what a customer asks first (which payment, when it
            // ends, whether it renews, what is still owed).
            fields.append(
                Field(
                    label: "Commitment", value: clean(commitment.summary), role: commitment.autoRenew ? .text : .warning,
                    ownRow: true))
        }
        if r.owedPaymentFailed {
            fields.append(Field(label: "Access", value: CommitmentStatus.noGrace, role: .warning, ownRow: true))
        }
        if r.timeline.environment != .production {
            // Test purchases: a support agent must not take them for a paying customer's.
            fields.append(
                Field(label: "Environment", value: r.timeline.environment.rawValue, role: .warning, ownRow: true))
        }
        if r.timeline.isFamilyShared {
            // A support agent must see at once that this is not the customer's own purchase.
            fields.append(Field(label: "Ownership", value: FamilySharingText.access, role: .accent, ownRow: true))
            if let revoked = r.timeline.sharingRevokedAt {
                fields.append(Field(label: "Family", value: FamilySharingText.revoked(on: revoked), role: .warning, ownRow: true))
            }
        }
        // A late refund (docs/metrics.md, "Late refunds") ends nothing, so neither the state nor an
        // expiration tells it: each gets a row saying which period was refunded, and when.
        for (i, period) in r.timeline.periods.enumerated() where r.timeline.isLateRefund(period: i) {
            guard let refunded = period.revocationDate, refunded <= r.asOf else { continue }
            fields.append(
                Field(
                    label: "Refunded",
                    value: "period of \(period.start.isoDate) on \(refunded.isoDate) (late: the next had begun)",
                    role: .refund, ownRow: true))
        }
        fields += [
            Field(label: "Subscription", value: clean(r.originalTransactionId)),
            Field(label: "User id", value: r.userId.map(clean) ?? "—"),
            Field(label: "Email", value: r.email.map(clean) ?? "—"),
        ]
        if let end = r.accessEnd {
            fields.append(Field(label: end.label.prefix(1).uppercased() + end.label.dropFirst(), value: dated(end.at)))
        }
        if let since = r.billingRetrySince {
            let until = r.billingRetryEnds.map { ", retried until \($0.isoDate) at most" } ?? ""
            fields.append(Field(label: "Retry since", value: dated(since) + until, role: .warning, ownRow: true))
        }
        if let grace = r.gracePeriodExpires {
            fields.append(Field(label: "Grace until", value: dated(grace), role: .warning))
        }
        fields.append(Field(label: "Product", value: r.productId.map(clean) ?? "—"))
        fields.append(Field(label: "Auto-renew", value: r.autoRenew.map { $0 ? "on" : "off" } ?? "—"))
        if let next = r.autoRenewProductId, next != r.productId {
            fields.append(Field(label: "Renews to", value: clean(next)))
        }
        if let reason = r.expirationReason {
            fields.append(Field(label: "Ended", value: SubscriberHeader.words(for: reason)))
        }
        if let increase = r.priceIncrease {
            fields.append(Field(label: "Price rise", value: increase == "pending" ? "pending consent" : increase))
        }
        // The latest run's paid periods (the retention figure) and, after a resubscription, every run's.
        let paid = r.runs > 1 ? "\(r.paidPeriods) this run, \(r.paidPeriodsInAllRuns) in \(r.runs) runs" : "\(r.paidPeriods)"
        fields.append(
            Field(
                label: "Paid periods",
                value: paid + " · \(r.billingFailures) billing failure" + (r.billingFailures == 1 ? "" : "s")))
        // What the customer paid, per currency (never summed across currencies), and the paid
        // service that sets the 85 % proceeds rate; only when something is priced, so an unpriced
        // (v1) subscriber's header keeps its rows for the lists.
        // Charged periods without a price are counted beside the amount, never silently left out.
        if !r.paid.isEmpty {
            var paid = r.paid.keys.sorted().map { MoneyFormat.text(r.paid[$0]!, $0) }
            if r.unpricedPeriods > 0 {
                paid.append("\(r.unpricedPeriods) period\(r.unpricedPeriods == 1 ? "" : "s") unpriced")
            }
            fields.append(
                Field(
                    label: "Paid", value: paid.joined(separator: " · ") + " · \(r.paidServiceDays) d service",
                    role: r.unpricedPeriods > 0 ? .warning : .text))
        }
        if r.unverifiedDocuments > 0 {
            // As `report subscriber` says it: facts set aside, so the periods above may be missing some.
            fields.append(
                Field(
                    label: "Unverified",
                    value: "\(r.unverifiedDocuments) unsigned document\(r.unverifiedDocuments == 1 ? "" : "s"), "
                        + "not applied to a signed subscription", role: .warning, ownRow: true))
        }
        fields += SubscriberHeader.renewalFields(r)
        fields.append(Field(label: "Token", value: r.appAccountToken.map(clean) ?? "—"))
        let flags = r.flags.map { flag in
            "\(flag.offer.rawValue) by \(clean(flag.operatorName)) \(flag.at.isoDate)"
                + (flag.note.map { " “\(clean($0))”" } ?? "")
        }
        fields.append(
            Field(
                label: "Flags", value: flags.isEmpty ? "none" : flags.joined(separator: " · "),
                role: flags.isEmpty ? .muted : .accent))
        return fields
    }

    /// Apple's renewal details (docs/metrics.md, "Renewal details from Apple"), in the words
    /// `report subscriber` uses; none when Apple gave none.
    static func renewalFields(_ r: SubscriberReport) -> [Field] {
        var fields: [Field] = []
        if let next = RenewalText.nextCharge(r) {
            fields.append(Field(label: "Renewal", value: clean(next), ownRow: true))
        }
        if !r.renewal.eligibleWinBackOfferIds.isEmpty {
            fields.append(
                Field(
                    label: "Win-back",
                    value: "Apple offers " + r.renewal.eligibleWinBackOfferIds.map(clean).joined(separator: ", "),
                    role: .accent, ownRow: true))
        }
        if let account = RenewalText.appleAccount(r) {
            fields.append(Field(label: "Account", value: clean(account), ownRow: true))
        }
        return fields
    }

    /// The state as a support agent says it.
    static func words(for state: SubscriptionState?) -> String {
        switch state {
        case nil: "not started"
        case .standard: "active, paid at full price"
        case .freeTrial: "active, free trial"
        case .introductory: "active, introductory offer"
        case .promotional: "active, promotional offer"
        case .offerCode: "active, offer code"
        case .inWinBackOffer: "active, win-back offer"
        case .gracePeriod: "billing failed, in grace period (has access)"
        case .billingRetry: "billing failed, in billing retry (no access)"
        case .expired: "expired (no access)"
        }
    }

    /// Why the latest run ended, as a support agent says it.
    static func words(for reason: ExpirationReason) -> String {
        switch reason {
        case .voluntary: "turned off auto-renew (voluntary)"
        case .billing: "billing failed, not recovered"
        case .priceIncrease: "did not accept a price increase"
        case .productUnavailable: "product no longer available"
        case .refund: "refunded"
        case .sharingRevoked: "family sharing revoked"
        case .other: "other reason"
        }
    }

    static func role(for state: SubscriptionState?) -> ThemeRole {
        switch state {
        case .gracePeriod, .billingRetry: .warning
        case .expired, nil: .muted
        default: .success
        }
    }

    /// One row of the header: a field across the whole width, or two side by side.
    enum Line {
        case whole(Field)
        case pair(Field, Field?)
    }

    /// The two columns of paired fields in a row of `area`.
    private static func halves(of area: Rect) -> [Rect] {
        Layout.horizontal([.fill(), .fill()], spacing: 2).split(Rect(x: area.x, y: area.y, width: area.width, height: 1))
    }

    /// The rows at `width`: the fields that stand alone, then the others two to a row, then those
    /// too long for half a row.
    func lines(width: Int) -> [Line] {
        let half = Self.halves(of: Rect(x: 0, y: 0, width: width, height: 1))[0].width
        let fits = { (field: Field) in !field.ownRow && Self.labelWidth + field.value.displayWidth <= half }
        let paired = fields.filter(fits)
        var lines: [Line] = fields.filter(\.ownRow).map { .whole($0) }
        for i in stride(from: 0, to: paired.count, by: 2) {
            lines.append(.pair(paired[i], i + 1 < paired.count ? paired[i + 1] : nil))
        }
        return lines + fields.filter { !$0.ownRow && !fits($0) }.map { .whole($0) }
    }

    /// Draws `lines(width:)` one to a row from the top of `area`.
    func render(in area: Rect, buffer: inout Buffer, palette: Palette) {
        let halves = Self.halves(of: area)
        for (row, line) in lines(width: area.width).enumerated() {
            let y = area.y + row
            switch line {
            case .whole(let field):
                draw(field, at: Position(x: area.x, y: y), width: area.width, buffer: &buffer, palette: palette)
            case .pair(let left, let right):
                draw(left, at: Position(x: halves[0].x, y: y), width: halves[0].width, buffer: &buffer, palette: palette)
                if let right {
                    draw(right, at: Position(x: halves[1].x, y: y), width: halves[1].width, buffer: &buffer, palette: palette)
                }
            }
        }
    }

    private func draw(_ field: Field, at position: Position, width: Int, buffer: inout Buffer, palette: Palette) {
        let x = buffer.set(string: field.label.padded(toWidth: Self.labelWidth), at: position, style: palette[.muted])
        buffer.set(
            string: field.value.truncated(toWidth: width - Self.labelWidth), at: Position(x: x, y: position.y),
            style: palette[field.role], maxWidth: width - Self.labelWidth)
    }
}

// MARK: - Timeline bar

func role(for kind: TimelineSegment.Kind) -> ThemeRole {
    switch kind {
    case .period(let offer): role(for: offer)
    case .refund: .refund
    case .gracePeriod: .gracePeriod
    case .billingRetry: .billingRetry
    case .gap: .gap
    }
}

/// The rows `renderTimelineBar` draws: the bar and its legend, or the line saying there is no bar.
private func timelineBarRows(_ report: SubscriberReport) -> Int {
    report.segments.isEmpty ? 1 : 2
}

/// The bar from the first period's start to as-of with a date at each end, and its legend below.
private func renderTimelineBar(_ report: SubscriberReport, in area: Rect, buffer: inout Buffer, palette: Palette) {
    let y = area.y
    guard let first = report.segments.first?.from, let last = report.segments.last?.to else {
        buffer.set(
            string: "No period started by \(report.asOf.isoDate).", at: Position(x: area.x, y: y), style: palette[.muted],
            maxWidth: area.width)
        return
    }
    let left = first.isoDate + " "
    let right = " " + last.isoDate
    var x = buffer.set(string: left, at: Position(x: area.x, y: y), style: palette[.muted])
    let barWidth = max(0, area.right - x - right.displayWidth)
    let segments = report.segments.map {
        TimelineBar.Segment(start: Double($0.from.milliseconds), end: Double($0.to.milliseconds), role: role(for: $0.kind))
    }
    TimelineBar(range: Double(first.milliseconds)..<Double(max(last.milliseconds, first.milliseconds + 1)), segments: segments)
        .render(in: Rect(x: x, y: y, width: barWidth, height: 1), buffer: &buffer, palette: palette)
    buffer.set(string: right, at: Position(x: x + barWidth, y: y), style: palette[.muted])

    // The legend: the six kinds any bar can show, then the other offer kinds this one shows.
    var entries: [(String, ThemeRole)] = [("trial", .freeTrial), ("paid", .standard)]
    let offers: [(OfferKind, String)] = [
        (.introductory, "intro"), (.promotional, "promo"), (.offerCode, "offer code"),
        (.winBack, "win-back"),
    ]
    for (offer, name) in offers where report.segments.contains(where: { $0.kind == .period(offer) }) {
        entries.append((name, role(for: offer)))
    }
    entries += [("grace", .gracePeriod), ("retry", .billingRetry), ("refund", .refund), ("gap", .gap)]
    x = area.x
    for (name, entryRole) in entries where x < area.right {
        x = buffer.set(
            string: TimelineBar.glyph(for: entryRole, palette: palette), at: Position(x: x, y: y + 1), style: palette[entryRole])
        x = buffer.set(string: " \(name)  ", at: Position(x: x, y: y + 1), style: palette[.muted], maxWidth: area.right - x)
    }
}

// MARK: - Periods and events

/// "  1 month offer, by Apple": the offer's length and who started the period under the cursor,
/// when Apple says (after the list's position).
func periodDetail(_ report: SubscriberReport, row: Int) -> String? {
    guard report.timeline.periods.indices.contains(row) else { return nil }
    let detail = RenewalText.period(report.renewal.periods[report.timeline.periods[row].transactionId])
    return detail.isEmpty ? nil : "  " + clean(detail)
}

/// The periods above the events, both oldest first (as `report subscriber` lists them), each with a title that gives the
/// cursor's position; the focused list gets two thirds of the rows, the other at least one row.
private func renderLists(
    _ pane: SubscriberPane, _ report: SubscriberReport, in area: Rect, buffer: inout Buffer,
    palette: Palette
) {
    guard area.height >= 6 else { return }
    // Each list needs a title and a header row over its rows; the focused one gets the room the
    // other does not need, the other at least a third (and one row of its own) when both overflow.
    let needs = (periods: 2 + report.timeline.periods.count, events: 2 + report.events.count)
    let (focusedNeed, otherNeed) = pane.focus == .periods ? (needs.periods, needs.events) : (needs.events, needs.periods)
    var otherShare = min(otherNeed, max(3, area.height / 3))
    otherShare += max(0, min(otherNeed - otherShare, area.height - otherShare - focusedNeed))
    // Room left over goes below the events, so the events title stays right under the periods.
    let focusedShare = min(focusedNeed, area.height - otherShare)
    let periodsHeight = pane.focus == .periods ? focusedShare : otherShare
    let heights = (periodsHeight, area.height - periodsHeight)
    let periodsArea = Rect(x: area.x, y: area.y, width: area.width, height: heights.0)
    let eventsArea = Rect(x: area.x, y: area.y + heights.0, width: area.width, height: heights.1)

    let periods = report.timeline.periods
    // Wide: the period's number, product, price and what was returned each in a column; from 88
    // columns the price with what was returned of it ("9.99 USD −5.49"); narrower, neither.
    let wide = area.width >= 110
    let priced = !wide && area.width >= 88
    let periodRows = periods.enumerated().map { index, period in
        var cells = [clean(period.transactionId), period.start.isoDate, period.end.isoDate]
        if wide { cells = ["\(index + 1)"] + cells + [clean(period.productId)] }
        cells += [
            period.offerKind.rawValue, period.periodClass.rawValue,
            period.isRefunded
                ? "refund"
                : period.isSharingRevoked
                    ? "revoked"
                    : report.timeline.isFamilyShared ? "family" : (period.isPaid ? "paid" : "free"),
        ]
        let money = report.money[index]
        if wide { cells += [priceText(money), returnedText(money)] }
        if priced {
            cells.append([priceText(money), returnedText(money, signed: true)].filter { !$0.isEmpty }.joined(separator: " "))
        }
        return Table.Row(cells, role: period.isRefunded ? .refund : period.isSharingRevoked ? .warning : nil)
    }
    var periodColumns: [Table.Column] = [
        .init("Transaction", width: .fixed(16)), .init("Start", width: .fixed(10)),
        .init("End", width: .fixed(10)),
    ]
    if wide {
        periodColumns = [.init("#", width: .fixed(3), alignment: .right)] + periodColumns + [.init("Product", width: .fill())]
    }
    periodColumns += [.init("Offer", width: .fixed(12)), .init("Class", width: .fixed(15)), .init("Status", width: .fixed(7))]
    if wide {
        periodColumns += [
            .init("Price", width: .fixed(12), alignment: .right), .init("Returned", width: .fixed(11), alignment: .right),
        ]
    }
    if priced { periodColumns.append(.init("Price, returned", width: .fill(), alignment: .right)) }
    renderList(
        title: "Periods", focused: pane.focus == .periods, cursor: pane.shownPeriodRow, columns: periodColumns,
        rows: periodRows, in: periodsArea, buffer: &buffer, palette: palette,
        note: periodDetail(report, row: pane.shownPeriodRow))

    let eventRows = report.events.map { event in
        Table.Row([
            wide ? event.at.iso8601 : String(event.at.iso8601.prefix(16)).replacingOccurrences(of: "T", with: " "),
            event.type.rawValue, event.expirationReason?.rawValue ?? "", clean(event.productId),
        ])
    }
    let eventColumns: [Table.Column] = [
        .init("At", width: .fixed(wide ? 20 : 16)), .init("Event", width: .fixed(15)),
        .init("Reason", width: .fixed(wide ? 18 : 13)), .init("Product", width: .fill()),
    ]
    renderList(
        title: "Events", focused: pane.focus == .events, cursor: pane.shownEventRow, columns: eventColumns,
        rows: Array(eventRows), in: eventsArea, buffer: &buffer, palette: palette)
}

/// A title row ("▸ Periods 3/7" when focused), then the table scrolled to keep the cursor in view;
/// the cursor is highlighted only in the focused list.
private func renderList(
    title: String, focused: Bool, cursor: Int, columns: [Table.Column], rows: [Table.Row],
    in area: Rect, buffer: inout Buffer, palette: Palette, note: String? = nil
) {
    guard area.height >= 2 else { return }
    let position = rows.isEmpty ? "none" : "\(cursor + 1)/\(rows.count)"
    let x = buffer.set(
        string: (focused ? "▸ " : "  ") + title + " ", at: Position(x: area.x, y: area.y),
        style: palette[focused ? .title : .muted])
    let end = buffer.set(string: position, at: Position(x: x, y: area.y), style: palette[focused ? .accent : .muted])
    if let note {
        _ = buffer.set(string: note, at: Position(x: end, y: area.y), style: palette[.muted], maxWidth: max(0, area.right - end))
    }
    let tableArea = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 1)
    let visible = max(1, tableArea.height - 1)
    let offset = Table.scrollOffset(selected: cursor, offset: 0, visibleRows: visible)
    Table(columns: columns, rows: rows, selected: focused ? cursor : nil, offset: offset)
        .render(in: tableArea, buffer: &buffer, palette: palette)
}

/// A period's price as the Periods list shows it: the amount and currency, "unpriced" for a
/// charged period without a price, "–" for a period that was never charged.
func priceText(_ money: PeriodMoney) -> String {
    if let price = money.price { return MoneyFormat.text(price, money.currency) }
    return money.isCharged ? "unpriced" : "–"
}

/// What was returned of a period (a refund or an upgrade's credit), as `report subscriber`'s
/// "returned" column; `signed`: as "−5.49" after the price.
func returnedText(_ money: PeriodMoney, signed: Bool = false) -> String {
    guard let returned = money.refundAmount ?? money.upgradeCredit else { return "" }
    return signed ? "−" + MoneyFormat.number(returned, currency: money.currency) : MoneyFormat.text(returned, money.currency)
}
