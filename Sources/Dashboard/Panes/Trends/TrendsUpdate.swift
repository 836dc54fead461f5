import SubscriberAnalytics
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

/// Pane 7's intents: each changes the pane's choices (and asks for the series again) or acts on
/// the point under the cursor.
func trendsUpdate(_ state: inout AppState, _ intent: TrendsIntent) -> [Effect] {
    var pane = state.trends
    switch intent {
    case .cycleMetric(let delta):
        let all = TrendsPane.metrics
        let index = all.firstIndex(of: pane.metric) ?? 0
        return choose(&state) { $0.metric = all[((index + delta) % all.count + all.count) % all.count] }
    case .setMetric(let metric):
        return choose(&state) { $0.metric = metric }
    case .stepRange(let delta):
        let next = pane.range.stepped(delta)
        guard next != pane.range else {
            state.notice = delta > 0 ? "the range is everything already" : "the range is the shortest already"
            return []
        }
        return choose(&state) { $0.range = next }
    case .setRange(let range):
        return choose(&state) { $0.range = range }
    case .cycleBucket:
        let all = BucketSize.allCases
        return choose(&state) { $0.bucket = all[(all.firstIndex(of: pane.bucket)! + 1) % all.count] }
    case .moveCursor(let delta):
        pane.cursor = clamp(pane.shownCursor + delta, 0, max(0, (pane.data?.shownCount ?? 1) - 1))
        state.trends = pane
        return []
    case .cycleCurrency:
        guard let data = pane.data, let line = pane.shownLine else { return [] }
        let currencies = data.series.lines.compactMap(\.currency)
        guard currencies.count > 1 else {
            state.notice =
                data.series.metric.isMoney
                ? "every amount is in \(currencies.first ?? "one currency")" : "counts have no currency"
            return []
        }
        pane.currency = currencies[(line + 1) % currencies.count]
        state.trends = pane
        return []
    case .open:
        return openTrendsPoint(&state)
    case .save:
        guard let data = pane.data, let line = pane.shownLine, let model = data.chart(line: line) else {
            return ChartExport.save(&state, stem: "", models: [], header: [], rows: [])
        }
        let csv = data.csv(line: line)
        var stem = "trends-\(data.series.metric.name)-\(data.query.range)-by-\(data.query.bucket.rawValue)"
        if let currency = data.series.lines[line].currency { stem += "-\(currency)" }
        stem += "-\(data.query.asOf.isoDate)"
        return ChartExport.save(&state, stem: stem, models: [model], header: csv.header, rows: csv.rows)
    }
}

/// A new metric, range or bucket: the cursor goes back to the latest point and the series is read
/// again (the chart shown stays until it arrives).
private func choose(_ state: inout AppState, _ change: (inout TrendsPane) -> Void) -> [Effect] {
    var pane = state.trends
    change(&pane)
    guard pane != state.trends else { return [] }
    pane.cursor = nil
    state.trends = pane
    state.notice = "\(pane.metric.name) · \(pane.range) · by \(pane.bucket.rawValue)"
    return loadTrends(&state)
}

/// The query for the pane's choices, unless its answer is shown already.
func loadTrends(_ state: inout AppState) -> [Effect] {
    guard let asOf = state.asOf else { return [] }
    let query = state.trends.query(asOf: asOf, scope: state.scope)
    state.trends.loading = true
    return [.loadTrends(query)]
}

/// The series arrived: shown unless the pane has moved on to other choices (or another as-of).
func trendsLoaded(_ state: inout AppState, _ data: TrendsData) {
    guard let asOf = state.asOf, data.query == state.trends.query(asOf: asOf, scope: state.scope) else { return }
    state.trends.data = data
    state.trends.loading = false
    if let cursor = state.trends.cursor { state.trends.cursor = clamp(cursor, 0, max(0, data.shownCount - 1)) }
}

/// The subscriptions behind a point: of a state or active, those in it at the bucket's end; of
/// MRR or committed revenue, those paying at its end (an active state other than a free trial);
/// of an event type, those whose event falls in the bucket.
func trendsPopulation(_ metric: SeriesMetric, _ bucket: ReportBucket) -> SubscriberPopulation {
    switch metric {
    case .state(let s): .statesAt([s], at: bucket.end)
    case .active: .statesAt(SubscriptionState.allCases.filter(\.isActive), at: bucket.end)
    case .mrr, .committed: .statesAt(SubscriptionState.allCases.filter { $0.isActive && $0 != .freeTrial }, at: bucket.end)
    case .event(let type): .events(type, from: bucket.start, to: bucket.end)
    }
}

/// `enter`: pane 1 lists the subscriptions behind the point under the cursor (of the ownership
/// the series counts); `esc` comes back here.
private func openTrendsPoint(_ state: inout AppState) -> [Effect] {
    guard let data = state.trends.data, data.shownCount > 0 else { return [] }
    let bucket = data.series.buckets[data.first + state.trends.shownCursor]
    let population = trendsPopulation(data.series.metric, bucket)
    pushLocation(&state)
    state.pane = .subscribers
    var list = SubscriberListView(population: population, sort: state.subscribers.view.sort, ownership: state.scope.ownership)
    list.origin = .trends
    showList(&state, list)
    return load(&state, .subscribers)
}

/// `:metric` and `:range`: pane 7 shows the choice, opened from another pane if need be (one
/// query, for the new choice).
func showTrends(_ state: inout AppState, _ intent: TrendsIntent) -> [Effect] {
    let switched = update(&state, .switchPane(.trends))
    let changed = trendsUpdate(&state, intent)
    guard !changed.isEmpty else { return switched }
    return switched.filter { if case .loadTrends = $0 { false } else { true } } + changed
}
