import ReportOutputs
import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// What `enter` acts on in pane 6.
public enum MoneyFocus: Equatable, Sendable {
    /// The MRR movement bar under the cursor (`h`/`l`).
    case movement
    /// The offer row under the cursor (`j`/`k`).
    case offers
}

extension MoneyPane {
    /// The bar under the cursor: the chosen month, else the latest.
    public var shownBar: Int? {
        guard let buckets = figures?.movement?.buckets, !buckets.isEmpty else { return nil }
        return clamp(bar ?? buckets.count - 1, 0, buckets.count - 1)
    }

    /// The movement bridge of the bar under the cursor in the shown currency (nil: no MRR in it in these months).
    public var selectedMovement: MRRMovement.Row? {
        guard let movement = figures?.movement, let bar = shownBar, let currency = shownCurrency else { return nil }
        let bucket = movement.buckets[bar]
        return movement.rows.first { $0.bucket == bucket && $0.currency == currency }
    }

    /// MRR at each shown month's end (as-of for the last) in the shown currency, as a line.
    func mrrLineModel(store: String) -> ChartModel? {
        guard let figures, let currency = shownCurrency, let monthly = figures.mrrMonthly else { return nil }
        let months = figures.shownMonths
        return ChartModel(
            title: "MRR at each month's end, \(currency)", labels: months.map(\.description),
            incomplete: [months.count - 1],
            series: [
                ChartModel.Series(
                    name: "MRR", kind: .line, values: monthly.map { Double(MoneyFigures.amount($0, currency)) / 1000 },
                    role: .accent)
            ], unit: currency, decimals: 2,
            caption: ReportCharts.caption(asOf: figures.asOf, store: store, command: "dashboard · Money"))
    }

    /// The movement bars in the shown currency: the chart `report movement --format svg` draws.
    func movementModel(store: String) -> ChartModel? {
        guard let movement = figures?.movement, let currency = shownCurrency else { return nil }
        return ReportCharts.movement(movement, store: store).first { $0.unit == currency }
    }
}

/// `h`/`l` on pane 6: the movement bar to the left or right (the focus goes to the bars).
func moveMoneyBar(_ state: inout AppState, _ delta: Int) -> [Effect] {
    state.money.focus = .movement
    if state.money.members != nil { return [] }
    guard let current = state.money.shownBar, let count = state.money.figures?.movement?.buckets.count else { return [] }
    state.money.bar = clamp(current + delta, 0, count - 1)
    return []
}

/// `j`/`k` on pane 6: the open bar's subscriptions, else the offer rows (the focus goes to them).
func moveMoneyRow(_ state: inout AppState, _ delta: Int) -> [Effect] {
    if let members = state.money.members {
        state.money.memberRow = clamp(state.money.memberRow + delta, 0, max(0, members.members.count - 1))
        return []
    }
    state.money.focus = .offers
    state.money.row = clamp(state.money.row + delta, 0, max(0, state.money.offers.count - 1))
    return []
}

/// `enter` on pane 6: a subscription of the open bar (its pane 2), the bar under the cursor (its
/// subscriptions by movement), or the offer row's uses (pane 1).
func openMoney(_ state: inout AppState) -> [Effect] {
    if let members = state.money.members {
        guard members.members.indices.contains(state.money.memberRow) else { return [] }
        return openSubscriber(&state, members.members[state.money.memberRow].originalTransactionId)
    }
    guard state.money.focus == .movement else { return drillDown(&state) }
    guard let row = state.money.selectedMovement, let asOf = state.asOf else { return [] }
    state.money.membersLoading = row.bucket
    state.money.memberRow = 0
    return [.loadMovementMembers(row.bucket, currency: row.currency, asOf: asOf, scope: state.scope)]
}

/// `esc` on pane 6 with a bar's subscriptions open: back to the bars.
func closeMoneyMembers(_ state: inout AppState) -> Bool {
    guard state.pane == .money, state.money.members != nil || state.money.membersLoading != nil else { return false }
    state.money.members = nil
    state.money.membersLoading = nil
    return true
}

/// A bar's subscriptions arrived (dropped when the pane has moved on).
func movementMembersLoaded(_ state: inout AppState, _ members: MovementMembers, asOf: Instant, scope: ReportScope) -> [Effect] {
    guard asOf == state.asOf, scope == state.scope, state.money.membersLoading == members.bucket else { return [] }
    state.money.membersLoading = nil
    state.money.members = members
    state.money.memberRow = 0
    return []
}

/// `ctrl-s` on pane 6: the charts shown (MRR and its movement, in the shown currency) as SVG,
/// beside the movement's CSV (every currency), both named by as-of.
func saveMoneyCharts(_ state: inout AppState) -> [Effect] {
    let store = state.storeLabel ?? "store"
    guard let figures = state.money.figures, let movement = figures.movement,
        let bars = state.money.movementModel(store: store)
    else {
        state.notice = "nothing to save yet: the movement is still loading"
        return []
    }
    let charts = [state.money.mrrLineModel(store: store), bars].compactMap { $0 }
    state.notice = "saving…"
    state.exporting = true
    return [
        .saveChart(
            stem: "money-\(bars.unit ?? "all")-\(figures.asOf.isoDate)",
            csv: MovementOutput(movement, store: store).csv.text + "\n",
            svg: ChartSVG.render(charts))
    ]
}
