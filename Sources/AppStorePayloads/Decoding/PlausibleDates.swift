import Foundation
import SubscriptionModel

/// The dates a document may hold: from the day the App Store opened (2008-07-01) to
/// ``yearsAhead`` years after the import. A date outside is a forgery or a bug, and it would
/// stretch every report to its span (the data horizon is the latest date imported), so the
/// document is rejected with the field named.
public enum PlausibleDates {
    /// The App Store opened on 10 July 2008; nothing it signed is older than this.
    public static let earliest = UTCCalendar.instant(year: 2008, month: 7, day: 1)
    /// A yearly subscription renewed today expires a year from now; offer codes and grace
    /// periods stay within months of that. Five years leaves room for clocks and sandboxes.
    public static let yearsAhead: Int64 = 5

    /// The accepted range, computed once per process from the clock.
    public static let range: ClosedRange<Instant> = earliest...Instant(Date()).adding(days: yearsAhead * 366)

    /// "in 1970", "in the year 3139155": how far off a date is, for a rejection message.
    static func describe(_ instant: Instant) -> String {
        let year = 1970 + Double(instant.milliseconds) / (365.2425 * Double(Instant.millisecondsPerDay))
        return year < 1970 ? "before 1970" : "in the year \(Int(year.rounded(.down)))"
    }
}
