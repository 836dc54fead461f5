import SubscriptionModel

/// The instant a `YYYY-MM-DD` (or `YYYY-MM-DDTHH:MM:SSZ`) text names; traps on a typo, which is
/// the test's to fix.
public func day(_ text: String) -> Instant {
    guard let instant = Instant(parsing: text) else { preconditionFailure("not a date: \(text)") }
    return instant
}

/// `UTCCalendar.instant` with a shorter name.
public func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Instant {
    UTCCalendar.instant(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
}
