import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

/// How pane 6 orders its offer rows (`s` steps through them).
public enum MoneyOfferOrder: String, CaseIterable, Equatable, Sendable {
    /// By offer kind, then identifier, as `report offers` lists them.
    case offer
    /// Highest conversion first (unknown last).
    case conversion
    /// Highest P6 retention of the converted first (unknown last).
    case retention6

    public var title: String {
        switch self {
        case .offer: "offer"
        case .conversion: "conversion"
        case .retention6: "P6 retention"
        }
    }
}

/// What the keys ask of pane 6: its own intents, handled in MoneyUpdate.swift.
public enum MoneyIntent: Equatable, Sendable {
    /// `j` / `k` and the other row keys: the open bar's subscriptions, else the offer rows.
    case move(Int)
    /// `h`: the movement of the month before.
    case previousMonth
    /// `l`: the movement of the month after.
    case nextMonth
    /// `enter`: a bar's subscriptions by movement, one of them on pane 2, or an offer's uses on pane 1.
    case open
    /// `ctrl-s`: the charts shown as SVG beside the movement's CSV.
    case save
    /// `s`: the next order of the offer rows.
    case cycleOfferOrder
    /// `c`: revenue in the next currency.
    case cycleCurrency
}

/// Pane 6: MRR, its movement, revenue and the offers' uses.
public struct MoneyPane: Equatable, Sendable {
    /// MRR now first, then each section as it arrives.
    public var figures: MoneyFigures?
    /// Sections are still on their way (the status line's spinner).
    public var loading = false
    /// The sections asked for and not yet answered (they arrive in any order).
    public var awaiting: Set<MoneySection> = []
    /// Sections that arrived before MRR now (all are asked for at once): applied when it comes.
    public var early: [MoneyFigures.Part] = []
    /// The cursor in the offer rows (as shown, sorted).
    public var row = 0
    public var order = MoneyOfferOrder.offer
    /// The currency revenue is charted in (`c` cycles); nil: the figures' leading currency.
    public var currency: String?
    /// What `enter` acts on: the movement bar under the cursor (`h`/`l` move it) or the offer row
    /// (`j`/`k`).
    public var focus = MoneyFocus.movement
    /// The movement bar under the cursor, a month of ``MoneyFigures/shownMonths``; nil: the latest.
    public var bar: Int?
    /// `enter` on a bar: its subscriptions grouped by movement, shown in place of the bars until
    /// `esc`; nil while none is open.
    public var members: MovementMembers?
    /// The bar whose subscriptions are on their way (the box says so until they arrive).
    public var membersLoading: ReportBucket?
    /// The cursor in ``members``.
    public var memberRow = 0

    /// The currency revenue is charted in: the chosen one while the figures have it.
    public var shownCurrency: String? {
        guard let figures else { return nil }
        if let currency, figures.currencies.contains(currency) { return currency }
        return figures.leadingCurrency
    }

    /// The offer rows in the chosen order; ties keep the report's order.
    public var offers: [OfferConversionReport.Row] {
        let rows = figures?.offers?.offers ?? []
        let key: (OfferConversionReport.Row) -> Double? =
            switch order {
            case .offer: { _ in nil }
            case .conversion: \.rate
            case .retention6: \.retention6
            }
        guard order != .offer else { return rows }
        return rows.enumerated().sorted { a, b in
            switch (key(a.element), key(b.element)) {
            case (let x?, let y?) where x != y: x > y
            case (.some, nil): true
            case (nil, .some): false
            default: a.offset < b.offset
            }
        }.map(\.element)
    }

    /// The population behind the cursor's offer row: its uses started in the pane's months.
    public var selectedPopulation: SubscriberPopulation? {
        guard let report = figures?.offers, offers.indices.contains(row) else { return nil }
        let offer = offers[row]
        return .offerUses(offer.offerKind, identifier: offer.offerIdentifier, from: report.from, to: report.to)
    }
}

extension MoneyPane: DashboardPane {
    static let title = "Money"
    static var loadingFlag: WritableKeyPath<AppState, Bool> { \.money.loading }

    static func rows(_ delta: Int) -> Action? { .money(.move(delta)) }

    static func isEmpty(_ state: AppState) -> Bool { state.money.figures == nil }

    static func load(_ state: inout AppState, asOf: Instant) -> [Effect] {
        state.money.loading = true
        return refresh(&state, asOf: asOf)
    }

    /// MRR now and every section asked for at once, read side by side: MRR now is drawn first
    /// when it comes first, as it usually does (one short read), and the sections no longer wait
    /// for it. The cursor and the order are kept; the rows are the new figures'.
    static func refresh(_ state: inout AppState, asOf: Instant) -> [Effect] {
        state.money.awaiting = Set(MoneySection.allCases)
        state.money.early = []
        return [.loadMoney(asOf: asOf, scope: state.scope)]
            + MoneySection.allCases.map { .loadMoneySection($0, asOf: asOf, scope: state.scope) }
    }

    static func invalidate(_ state: inout AppState) {
        state.money.figures = nil
        state.money.members = nil
        state.money.membersLoading = nil
    }

    /// `esc` with a bar's subscriptions open: back to the bars.
    static func back(_ state: inout AppState) -> Bool { closeMoneyMembers(&state) }

    static func render(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
        renderMoney(state, in: area, buffer: &buffer, palette: palette)
    }
}
