import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// Pane 6's intents: the cursor in the offers and the movement bars, the lists behind them, the
/// order and currency shown, and the charts saved.
func moneyUpdate(_ state: inout AppState, _ intent: MoneyIntent) -> [Effect] {
    switch intent {
    case .move(let delta): moveMoneyRow(&state, delta)
    case .previousMonth: moveMoneyBar(&state, -1)
    case .nextMonth: moveMoneyBar(&state, 1)
    case .open: openMoney(&state)
    case .save: saveMoneyCharts(&state)
    case .cycleOfferOrder: cycleMoneyOrder(&state)
    case .cycleCurrency: cycleMoneyCurrency(&state)
    }
}

/// `enter` on an offer row: pane 1 lists the subscriptions whose use of it started in the pane's months.
private func openOffer(_ state: inout AppState) -> [Effect] {
    guard state.asOf != nil, let population = state.money.selectedPopulation else { return [] }
    return showDrillDown(&state, population)
}

/// `s`: the next order of the offer rows; the cursor stays on its offer.
private func cycleMoneyOrder(_ state: inout AppState) -> [Effect] {
    let pane = state.money
    let selected = pane.offers.indices.contains(pane.row) ? pane.offers[pane.row] : nil
    let all = MoneyOfferOrder.allCases
    state.money.order = all[(all.firstIndex(of: pane.order)! + 1) % all.count]
    if let selected, let index = state.money.offers.firstIndex(of: selected) { state.money.row = index }
    state.notice = "offers by \(state.money.order.title)"
    return []
}

/// `c`: chart revenue in the next currency the figures have.
private func cycleMoneyCurrency(_ state: inout AppState) -> [Effect] {
    guard let figures = state.money.figures, let shown = state.money.shownCurrency else { return [] }
    let all = figures.currencies
    guard all.count > 1 else {
        state.notice = "every amount is in \(shown)"
        return []
    }
    state.money.currency = all[((all.firstIndex(of: shown) ?? 0) + 1) % all.count]
    return []
}

/// MRR now arrived: drawn at once with the sections that came before it; the others fill in as
/// they arrive, while the keys stay live.
func moneyLoaded(_ state: inout AppState, _ loaded: MoneyFigures) -> [Effect] {
    // An answer for an as-of or product the pane no longer shows.
    guard loaded.asOf == state.asOf, loaded.scope == state.scope else { return [] }
    var figures = loaded
    if let shown = state.money.figures, shown.asOf == loaded.asOf, shown.scope == loaded.scope {
        // A refresh: each section stays on screen until its new answer replaces it.
        figures.revenue = shown.revenue
        figures.offers = shown.offers
        figures.movement = shown.movement
    }
    for part in state.money.early { figures.apply(part) }
    state.money.early = []
    state.money.figures = figures
    finishMoneySection(&state)
    return []
}

/// A section of pane 6 arrived (dropped when the pane has moved to another as-of or product; kept
/// aside when MRR now has not come yet).
func moneySectionLoaded(_ state: inout AppState, asOf: Instant, scope: ReportScope, _ part: MoneyFigures.Part) -> [Effect] {
    guard asOf == state.asOf, scope == state.scope, state.money.awaiting.contains(part.section) else { return [] }
    state.money.awaiting.remove(part.section)
    guard var figures = state.money.figures, figures.asOf == asOf, figures.scope == scope else {
        state.money.early.append(part)
        return []
    }
    figures.apply(part)
    state.money.figures = figures
    finishMoneySection(&state)
    return []
}

/// Figures the pane shows took an answer: sections arrive in any order, MRR now among them, and
/// the last to arrive ends the loading.
private func finishMoneySection(_ state: inout AppState) {
    if state.money.awaiting.isEmpty { state.money.loading = false }
    state.money.row = clamp(state.money.row, 0, max(0, state.money.offers.count - 1))
}

/// `h`/`l`: the movement bar to the left or right (the focus goes to the bars).
private func moveMoneyBar(_ state: inout AppState, _ delta: Int) -> [Effect] {
    state.money.focus = .movement
    if state.money.members != nil { return [] }
    guard let current = state.money.shownBar, let count = state.money.figures?.movement?.buckets.count else { return [] }
    state.money.bar = clamp(current + delta, 0, count - 1)
    return []
}

/// `j`/`k`: the open bar's subscriptions, else the offer rows (the focus goes to them).
private func moveMoneyRow(_ state: inout AppState, _ delta: Int) -> [Effect] {
    if let members = state.money.members {
        state.money.memberRow = clamp(state.money.memberRow + delta, 0, max(0, members.members.count - 1))
        return []
    }
    state.money.focus = .offers
    state.money.row = clamp(state.money.row + delta, 0, max(0, state.money.offers.count - 1))
    return []
}

/// `enter`: a subscription of the open bar (its pane 2), the bar under the cursor (its
/// subscriptions by movement), or the offer row's uses (pane 1).
private func openMoney(_ state: inout AppState) -> [Effect] {
    if let members = state.money.members {
        guard members.members.indices.contains(state.money.memberRow) else { return [] }
        return openSubscriber(&state, members.members[state.money.memberRow].originalTransactionId)
    }
    guard state.money.focus == .movement else { return openOffer(&state) }
    guard let row = state.money.selectedMovement, let asOf = state.asOf else { return [] }
    state.money.membersLoading = row.bucket
    state.money.memberRow = 0
    return [.loadMovementMembers(row.bucket, currency: row.currency, asOf: asOf, scope: state.scope)]
}

/// `esc` with a bar's subscriptions open: back to the bars.
func closeMoneyMembers(_ state: inout AppState) -> Bool {
    guard state.money.members != nil || state.money.membersLoading != nil else { return false }
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

/// `ctrl-s`: the charts shown (MRR and its movement, in the shown currency) as SVG,
/// beside the movement's CSV (every currency), both named by as-of.
private func saveMoneyCharts(_ state: inout AppState) -> [Effect] {
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
