import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

/// What the keys ask of pane 3: its own intents, handled in CohortsUpdate.swift.
public enum CohortsIntent: Equatable, Sendable {
    /// `j` / `k` and the other row keys: the cursor `delta` cohorts down or up.
    case move(Int)
    /// `h` / `l`: the paid period to the left or right.
    case moveColumn(Int)
    /// `enter`: pane 1 lists the cohort's subscribers retained at the cell's paid period.
    case openRetained
    /// `c`: pane 1 lists the cohort's subscribers who ended by the cell's paid period.
    case openEnded
    /// `d`: the next billing duration (every duration, then each one the store has).
    case cycleDuration
    /// `t`: the selected column's rate across cohorts as a line, or the grid again.
    case toggleTrend
}

/// Pane 3: retention by paid periods, one cohort a row.
public struct CohortsPane: Equatable, Sendable {
    /// A cohort cell whose rate rests on fewer members than this is dimmed.
    public static let fewMembers = 10

    public var grid: CohortGrid?
    public var loading = false
    public var row = 0
    public var column = 0
    /// The billing duration shown (`d` cycles it); nil: every duration.
    public var duration: BillingDuration?
    /// Whether `duration` is settled: until the first grid arrives, the store's most common
    /// billing duration is asked for; `d` settles it too.
    public var durationChosen = false
    /// `duration` is the store's most common one, chosen as the default (the title says so).
    public var durationIsDefault = false
    /// The billing durations of the store's products, shortest first: what `d` cycles through.
    public var durations: [BillingDuration] = []

    /// `t`: the selected column's rate across cohorts as a line instead of the grid.
    public var trend = false

    /// The durations `d` steps through: every duration, then each the store has.
    public var durationChoices: [BillingDuration?] { [nil] + durations.map(Optional.some) }
}

extension CohortsPane: DashboardPane {
    static let title = "Cohorts"
    static var loadingFlag: WritableKeyPath<AppState, Bool> { \.cohorts.loading }

    static func rows(_ delta: Int) -> Action? { .cohorts(.move(delta)) }

    static func isEmpty(_ state: AppState) -> Bool { state.cohorts.grid == nil }

    static func load(_ state: inout AppState, asOf: Instant) -> [Effect] {
        state.cohorts.loading = true
        return refresh(&state, asOf: asOf)
    }

    static func refresh(_ state: inout AppState, asOf: Instant) -> [Effect] {
        [
            .loadCohorts(
                asOf: asOf, scope: state.scope, duration: state.cohorts.duration, mostCommon: !state.cohorts.durationChosen)
        ]
    }

    static func invalidate(_ state: inout AppState) { state.cohorts.grid = nil }

    static func render(_ state: AppState, in area: Rect, buffer: inout Buffer, palette: Palette) {
        renderCohorts(state, in: area, buffer: &buffer, palette: palette)
    }
}
