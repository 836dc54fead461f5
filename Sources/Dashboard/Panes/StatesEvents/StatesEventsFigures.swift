import SubscriberAnalytics
import SubscriptionModel
import SubscriptionTimeline

/// What pane 4 shows: states at as-of beside 30 days earlier, a month's events beside the month
/// before, and a daily series behind each row. All from ``SubscriberAnalytics``.
public struct StatesEventsFigures: Equatable, Sendable {
    /// The states are compared with this many days before as-of.
    public static let comparisonDays = 30

    public var states: StateCounts
    /// The states `comparisonDays` before as-of.
    public var statesBefore: StateCounts
    /// One sample a day from `comparisonDays` before as-of to as-of (`comparisonDays + 1` values).
    public var dailyStates: [SubscriptionState: [Int]]
    public var month: Month
    /// Events per type in `month` (up to as-of) and in the month before: the sums of ``dailyEvents``.
    public var events: [EventType: Int]
    public var previousEvents: [EventType: Int]
    /// One value per day of `month` (days after as-of stay 0).
    public var dailyEvents: [EventType: [Int]]

    public init(
        states: StateCounts, statesBefore: StateCounts, dailyStates: [SubscriptionState: [Int]], month: Month,
        events: [EventType: Int], previousEvents: [EventType: Int], dailyEvents: [EventType: [Int]]
    ) {
        self.states = states
        self.statesBefore = statesBefore
        self.dailyStates = dailyStates
        self.month = month
        self.events = events
        self.previousEvents = previousEvents
        self.dailyEvents = dailyEvents
    }

    public static func load(_ analytics: SubscriberAnalytics, asOf: Instant, month: Month, scope: ReportScope) throws -> Self {
        // Both months' events in one pass, day by day (the covering event index answers it); the
        // month totals are the sums of the days, as the tests check against `events(from:to:)`.
        let before = month.previous.dayCount
        let twoMonths = try analytics.dailyEvents(
            from: month.previous.start, days: before + month.dayCount, asOf: asOf, scope: scope)
        let previousMonth = twoMonths.mapValues { Array($0.prefix(before)) }
        let thisMonth = twoMonths.mapValues { Array($0.dropFirst(before)) }
        // The daily series starts at the comparison day and ends at as-of: its ends are the two
        // state counts, each sample counted as `states(asOf:)` counts it (per-day counts, then the
        // few segments between the nearer day boundary and the sample).
        let daily = try analytics.dailyStates(endingAt: asOf, days: comparisonDays + 1, scope: scope)
        func counts(at instant: Instant, _ pick: ([Int]) -> Int?) -> StateCounts {
            StateCounts(asOf: instant, counts: daily.compactMapValues { series in pick(series).flatMap { $0 > 0 ? $0 : nil } })
        }
        return StatesEventsFigures(
            states: counts(at: asOf, \.last),
            statesBefore: counts(at: asOf.adding(days: -Int64(comparisonDays)), \.first),
            dailyStates: daily,
            month: month,
            events: thisMonth.mapValues { $0.reduce(0, +) },
            previousEvents: previousMonth.mapValues { $0.reduce(0, +) },
            dailyEvents: thisMonth)
    }

    /// The daily series of one state, zeros when it never occurs.
    public func series(_ state: SubscriptionState) -> [Int] {
        dailyStates[state] ?? Array(repeating: 0, count: Self.comparisonDays + 1)
    }

    /// The daily series of the states `include` picks, summed (the active and total rows).
    public func series(summing include: (SubscriptionState) -> Bool) -> [Int] {
        SubscriptionState.allCases.filter(include).map(series).reduce(Array(repeating: 0, count: Self.comparisonDays + 1)) {
            zip($0, $1).map(+)
        }
    }

    public func series(_ type: EventType) -> [Int] { dailyEvents[type] ?? Array(repeating: 0, count: month.dayCount) }

    public func count(_ type: EventType) -> Int { events[type] ?? 0 }
    public func previousCount(_ type: EventType) -> Int { previousEvents[type] ?? 0 }
}

extension StatesEventsPane {
    /// The month whose events are shown: the chosen one, else the month of as-of.
    public func shownMonth(asOf: Instant) -> Month { min(month ?? lastMonth(asOf: asOf), lastMonth(asOf: asOf)) }
}
