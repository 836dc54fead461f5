import Foundation
import SubscriptionModel
import Testing

/// Calendar arithmetic every figure depends on: UTC months, days, leap years, instants before 1970.
@Suite struct InstantTests {
    @Test func epochAndKnownInstants() {
        #expect(Instant(milliseconds: 0).iso8601 == "1970-01-01T00:00:00Z")
        // 2025-06-14 04:01:07 UTC, as Apple's v1 `purchase_date_ms` would give it.
        let instant = Instant(milliseconds: 1_749_873_667_000)
        #expect(instant.iso8601 == "2025-06-14T04:01:07Z")
        #expect(instant.isoDate == "2025-06-14")
        #expect(instant.month == Month(year: 2025, month: 6))
    }

    @Test func negativeInstantsRoundTowardsThePast() {
        // One millisecond before the epoch is still 1969-12-31 23:59:59, not 1970-01-01.
        #expect(Instant(milliseconds: -1).iso8601 == "1969-12-31T23:59:59Z")
        #expect(Instant(milliseconds: -Instant.millisecondsPerDay).iso8601 == "1969-12-31T00:00:00Z")
        #expect(Instant(milliseconds: -Instant.millisecondsPerDay - 1).isoDate == "1969-12-30")
        #expect(Instant(milliseconds: -1).month == Month(year: 1969, month: 12))
    }

    @Test func parsingDatesAndInstants() {
        #expect(Instant(parsing: "2025-06-30") == UTCCalendar.instant(year: 2025, month: 6, day: 30))
        #expect(Instant(parsing: "2025-06-30")?.iso8601 == "2025-06-30T00:00:00Z")
        #expect(Instant(parsing: "2025-06-30T12:34:56Z")?.iso8601 == "2025-06-30T12:34:56Z")
        #expect(
            Instant(parsing: "2025-06-30T12:34:56.789Z")?.milliseconds == Instant(parsing: "2025-06-30T12:34:56Z")!.milliseconds
                + 789)
        #expect(Instant(parsing: "2025-06-30T14:34:56+02:00")?.iso8601 == "2025-06-30T12:34:56Z")
        #expect(Instant(parsing: " 2024-02-29 ")?.isoDate == "2024-02-29")
        for bad in [
            "2025-02-29", "2023-02-29", "2025-13-01", "2025-00-10", "2025-6-30", "30/06/2025", "", "2025-04-31", "yesterday",
        ] {
            #expect(Instant(parsing: bad) == nil, "\(bad) should not parse")
        }
    }

    @Test func leapDays() {
        #expect(Instant(parsing: "2024-02-29") != nil)
        #expect(Instant(parsing: "2000-02-29") != nil, "2000 is a leap year (divisible by 400)")
        #expect(Instant(parsing: "1900-02-29") == nil, "1900 is not (divisible by 100)")
        let leapDay = UTCCalendar.instant(year: 2024, month: 2, day: 29)
        #expect(leapDay.adding(days: 1).isoDate == "2024-03-01")
        #expect(UTCCalendar.instant(year: 2024, month: 3, day: 1).adding(days: -1).isoDate == "2024-02-29")
        #expect(UTCCalendar.instant(year: 2023, month: 3, day: 1).adding(days: -1).isoDate == "2023-02-28")
    }

    @Test func civilDaysRoundTripOverFourCenturies() {
        // Every day from 1800 to 2200 (both sides of the epoch) maps back to itself.
        let first = UTCCalendar.daysFromCivil(year: 1800, month: 1, day: 1)
        let last = UTCCalendar.daysFromCivil(year: 2200, month: 1, day: 1)
        #expect(last - first == 146_097, "400 Gregorian years are 146,097 days")
        var previous: (year: Int, month: Int, day: Int)? = nil
        var wrong: [Int64] = []
        for day in first..<last {
            let civil = UTCCalendar.civilFromDays(day)
            if UTCCalendar.daysFromCivil(year: civil.year, month: civil.month, day: civil.day) != day { wrong.append(day) }
            if let p = previous, p.month == civil.month, civil.day != p.day + 1 { wrong.append(day) }
            previous = civil
        }
        #expect(wrong.isEmpty, "days that do not round-trip: \(wrong.prefix(5))")
    }

    @Test func addingHoursAndDays() {
        let start = UTCCalendar.instant(year: 2025, month: 12, day: 31, hour: 23)
        #expect(start.adding(hours: 1).iso8601 == "2026-01-01T00:00:00Z")
        #expect(start.adding(days: 1).isoDate == "2026-01-01")
        #expect(start.adding(milliseconds: -1).iso8601 == "2025-12-31T22:59:59Z")
    }
}

@Suite struct MonthTests {
    @Test func arithmeticAcrossYearEnds() {
        let december = Month(year: 2024, month: 12)
        #expect(december.next == Month(year: 2025, month: 1))
        #expect(Month(year: 2025, month: 1).previous == december)
        #expect(december.adding(months: 13) == Month(year: 2026, month: 1))
        #expect(december.adding(months: -12) == Month(year: 2023, month: 12))
        #expect(december.adding(months: -24).description == "2022-12")
        #expect(december.end == UTCCalendar.instant(year: 2025, month: 1, day: 1))
    }

    @Test func monthsBeforeTheEpochHaveTheirIndex() {
        #expect(Month(year: 1970, month: 1).index == 0)
        #expect(Month(year: 1969, month: 12).index == -1)
        #expect(Month(index: -1) == Month(year: 1969, month: 12))
        #expect(Month(index: -13) == Month(year: 1968, month: 12))
        #expect(Month(index: -12) == Month(year: 1969, month: 1))
        for index in -30...30 { #expect(Month(index: index).index == index) }
    }

    @Test func dayCounts() {
        #expect(Month(year: 2024, month: 2).dayCount == 29)
        #expect(Month(year: 2025, month: 2).dayCount == 28)
        #expect(Month(year: 1900, month: 2).dayCount == 28)
        #expect(Month(year: 2000, month: 2).dayCount == 29)
        #expect(Month(year: 2025, month: 4).dayCount == 30)
        #expect(Month(year: 2025, month: 12).dayCount == 31)
        #expect(Month(year: 2025, month: 1).start.adding(days: 31) == Month(year: 2025, month: 2).start)
    }

    @Test func parsing() {
        #expect(Month(parsing: "2025-01") == Month(year: 2025, month: 1))
        #expect(Month(parsing: "2025-12")?.description == "2025-12")
        for bad in ["2025-13", "2025-00", "2025-1", "25-01", "2025/01", "2025-01-01", ""] {
            #expect(Month(parsing: bad) == nil, "\(bad) should not parse")
        }
        #expect(Month(year: 2024, month: 12) < Month(year: 2025, month: 1))
    }

    @Test func instantsKnowTheirMonth() {
        #expect(Month(year: 2025, month: 3).start.adding(milliseconds: -1).month == Month(year: 2025, month: 2))
        #expect(Month(year: 2025, month: 3).start.month == Month(year: 2025, month: 3))
    }
}
