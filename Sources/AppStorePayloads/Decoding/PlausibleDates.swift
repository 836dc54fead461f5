import Foundation
import SubscriptionModel

/// The dates a document may hold. A date outside is a forgery or a bug, and it would stretch every
/// report to its span (the data horizon is the latest purchase, cancellation or signature
/// imported), so the document is rejected with the field named (docs/security.md, "What a
/// stranger can and cannot change").
///
/// Two kinds of dates, two limits ahead of the receiving machine's clock:
/// - what has **happened** when Apple says it (`signedDate`, `purchaseDate`, `revocationDate`, a
///   toggle's date; v1 `purchase_date_ms`, `cancellation_date_ms`, …) may run ahead of this
///   clock by ``happenedLeewayDays`` only (clocks disagree; nothing more), whoever signed it;
/// - what is **scheduled** (`expiresDate`, `gracePeriodExpiresDate`, v1 `expires_date_ms`) may lie
///   up to ``yearsAhead`` years ahead.
public enum PlausibleDates {
    public enum Kind: Sendable {
        /// An instant that has passed when the document is signed or sent.
        case happened
        /// An instant the App Store schedules (an expiry, a grace period's end).
        case scheduled
    }

    /// The App Store opened on 10 July 2008; nothing it signed is older than this.
    public static let earliest = UTCCalendar.instant(year: 2008, month: 7, day: 1)
    /// A yearly subscription renewed today expires a year from now; offer codes and grace
    /// periods stay within months of that. Five years leaves room for clocks and sandboxes.
    public static let yearsAhead: Int64 = 5
    /// How far ahead of this machine's clock a date that has happened may be: a day covers any
    /// clock that keeps time at all.
    public static let happenedLeewayDays: Int64 = 1

    /// The accepted range for a kind of date, read against the clock now (a receiver runs for
    /// weeks: a range fixed when it started would close on genuine notifications).
    public static func range(_ kind: Kind, now: Instant = Instant(Date())) -> ClosedRange<Instant> {
        switch kind {
        case .happened: return earliest...now.adding(days: happenedLeewayDays)
        case .scheduled: return earliest...now.adding(days: yearsAhead * 366)
        }
    }

    /// The range of scheduled dates (the wider one).
    public static var range: ClosedRange<Instant> { range(.scheduled) }

    /// When this process started: a date no later than a day after it is plausible of either kind
    /// without reading the clock (which only moves forward), so the clock is read only for the
    /// rare date close to now or after it, not for each of the millions of dates of an import.
    private static let processStart = Instant(Date())

    /// The reason `instant` is not a plausible date of `kind` for the field at `path`, or nil.
    /// `now` defaults to this machine's clock.
    static func rejection(_ path: String, _ instant: Instant, _ kind: Kind, now: Instant? = nil) -> String? {
        if now == nil, instant >= earliest, instant <= processStart.adding(days: happenedLeewayDays) { return nil }
        let now = now ?? Instant(Date())
        let range = range(kind, now: now)
        if range.contains(instant) { return nil }
        if kind == .happened, instant > range.upperBound, instant <= Self.range(.scheduled, now: now).upperBound {
            return "\(path): \(instant.milliseconds) ms is \(instant.iso8601), more than a day ahead of this machine's "
                + "clock (\(now.iso8601)): a purchase, cancellation or signature cannot lie in the future"
        }
        return "\(path): \(instant.milliseconds) ms is \(describe(instant)), "
            + "outside the plausible range \(range.lowerBound.isoDate) to \(range.upperBound.isoDate)"
    }

    /// "in 1970", "in the year 3139155": how far off a date is, for a rejection message.
    static func describe(_ instant: Instant) -> String {
        let year = 1970 + Double(instant.milliseconds) / (365.2425 * Double(Instant.millisecondsPerDay))
        return year < 1970 ? "before 1970" : "in the year \(Int(year.rounded(.down)))"
    }
}
