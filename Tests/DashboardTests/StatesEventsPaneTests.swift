import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI
import Testing

@testable import Dashboard

@Suite struct StatesEventsPaneTests {
    @Test func dailyStatesAreTheStatesOfEachDay() throws {
        let analytics = SubscriberAnalytics(database: try SampleStore.database())
        let asOf = SampleStore.asOf.adding(hours: 7)
        let daily = try analytics.dailyStates(endingAt: asOf, days: 31)
        #expect(daily.values.allSatisfy { $0.count == 31 })
        for day in 0..<31 {
            let states = try analytics.states(asOf: asOf.adding(days: Int64(day - 30)))
            for state in SubscriptionState.allCases {
                #expect((daily[state]?[day] ?? 0) == states[state], "\(state) on day \(day)")
            }
        }
        #expect(daily[.expired]?.last ?? 0 > 0)
    }

    @Test func figuresCompareWithThirtyDaysAndThePreviousMonth() throws {
        let runner = try SampleStore.runner()
        var state = AppState(asOf: SampleStore.asOf)
        try keys("4", state: &state, runner: runner)
        let figures = try #require(state.statesEvents.figures)
        let analytics = runner.analytics
        #expect(figures.month == Month(year: 2025, month: 6))
        #expect(figures.states == (try analytics.states(asOf: SampleStore.asOf)))
        #expect(figures.statesBefore == (try analytics.states(asOf: SampleStore.asOf.adding(days: -30))))
        #expect(figures.series(summing: { _ in true }).last == figures.states.total)
        #expect(figures.series(summing: { _ in true }).first == figures.statesBefore.total)
        #expect(figures.dailyEvents.values.allSatisfy { $0.count == 30 })
        #expect(figures.series(.renewal).reduce(0, +) == figures.count(.renewal))
        let june = try analytics.events(from: figures.month.start, to: figures.month.end, asOf: SampleStore.asOf)
        let may = try analytics.events(from: figures.month.previous.start, to: figures.month.start, asOf: SampleStore.asOf)
        for type in EventType.allCases {
            #expect(figures.count(type) == june[type], "\(type) in June")
            #expect(figures.previousCount(type) == may[type], "\(type) in May")
        }
        #expect(
            EventType.allCases.contains { figures.count($0) > 0 } && EventType.allCases.contains { figures.previousCount($0) > 0 }
        )

        try keys("l", state: &state, runner: runner)
        #expect(state.statesEvents.figures?.month == Month(year: 2025, month: 6), "no month after as-of's")
        try keys("h", "h", state: &state, runner: runner)
        let april = try #require(state.statesEvents.figures)
        #expect(april.month == Month(year: 2025, month: 4))
        let aprilEvents = try analytics.events(
            from: Month(year: 2025, month: 4).start, to: Month(year: 2025, month: 5).start,
            asOf: SampleStore.asOf)
        let marchEvents = try analytics.events(
            from: Month(year: 2025, month: 3).start, to: Month(year: 2025, month: 4).start,
            asOf: SampleStore.asOf)
        for type in EventType.allCases {
            #expect(april.count(type) == aprilEvents[type] && april.previousCount(type) == marchEvents[type], "\(type)")
        }
        #expect(april.dailyEvents.values.allSatisfy { $0.count == 30 })
        #expect(april.states == figures.states, "states stay at as-of")
    }

    @Test func sparklinesSpanTheWholeSeriesAtAnyWidth() {
        let series = Array(1...31)
        let six = (0..<6).map { b in (b * 31 / 6, (b + 1) * 31 / 6) }
        #expect(six.first! == (0, 5) && six.last! == (25, 31))
        let resampled = SparkTable.resample(series, width: 6)
        #expect(resampled.count == 6)
        #expect(resampled.first == 3 && resampled.last == 28.5)
        #expect(SparkTable.resample(series, width: 40).count == 31)
    }
}
