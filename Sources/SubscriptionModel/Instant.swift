import Foundation

/// A UTC instant with millisecond precision, the unit Apple uses on the wire.
///
/// Fractional milliseconds (Xcode-signed JWS) are truncated toward negative infinity on decode.
public struct Instant: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }
    public init(seconds: Int64) { self.milliseconds = seconds * 1000 }
    public init(_ date: Date) { self.milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    public static func < (a: Instant, b: Instant) -> Bool { a.milliseconds < b.milliseconds }

    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    public static let millisecondsPerDay: Int64 = 86_400_000
    public static let millisecondsPerHour: Int64 = 3_600_000

    public func adding(milliseconds ms: Int64) -> Instant { Instant(milliseconds: milliseconds + ms) }
    public func adding(days: Int64) -> Instant { adding(milliseconds: days * Instant.millisecondsPerDay) }
    public func adding(hours: Int64) -> Instant { adding(milliseconds: hours * Instant.millisecondsPerHour) }

    /// `YYYY-MM-DDTHH:MM:SSZ`, the form every JSON output uses.
    public var iso8601: String {
        let c = UTCCalendar.components(of: self)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", c.year, c.month, c.day, c.hour, c.minute, c.second)
    }

    /// `YYYY-MM-DD`.
    public var isoDate: String {
        let c = UTCCalendar.components(of: self)
        return String(format: "%04d-%02d-%02d", c.year, c.month, c.day)
    }

    /// `YYYY-MM-DD HH:MM UTC` (with `:SS` when the seconds are not zero): how an as-of is shown to a
    /// person, so that a date-only as-of reads as the midnight it is and nobody expects that day included.
    public var asOfText: String {
        let c = UTCCalendar.components(of: self)
        let seconds = c.second == 0 ? "" : String(format: ":%02d", c.second)
        return String(format: "%04d-%02d-%02d %02d:%02d", c.year, c.month, c.day, c.hour, c.minute) + seconds + " UTC"
    }

    public var month: Month {
        let c = UTCCalendar.components(of: self)
        return Month(year: c.year, month: c.month)
    }

    public var description: String { iso8601 }

    /// Parses `YYYY-MM-DD` (midnight UTC) or a full ISO 8601 instant (`Z` or an offset,
    /// optional fractional seconds). Returns nil for anything else.
    public init?(parsing text: String) {
        let s = text.trimmingCharacters(in: .whitespaces)
        if s.count == 10, let day = UTCCalendar.parseDate(s) {
            self = day
            return
        }
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        if let d = f.date(from: s) {
            self.init(d)
            return
        }
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: s) {
            self.init(d)
            return
        }
        return nil
    }
}

/// Calendar arithmetic in UTC without Foundation's Calendar (fast and thread-safe).
public enum UTCCalendar {
    public struct Components: Equatable, Sendable {
        public var year, month, day, hour, minute, second: Int
    }

    /// Days since 1970-01-01 for a civil date (Howard Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    public static func civilFromDays(_ z0: Int64) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(m <= 2 ? y + 1 : y), Int(m), Int(d))
    }

    public static func components(of instant: Instant) -> Components {
        let ms = instant.milliseconds
        var days = ms / Instant.millisecondsPerDay
        var rem = ms % Instant.millisecondsPerDay
        if rem < 0 {
            rem += Instant.millisecondsPerDay
            days -= 1
        }
        let (y, m, d) = civilFromDays(days)
        let secs = Int(rem / 1000)
        return Components(year: y, month: m, day: d, hour: secs / 3600, minute: secs / 60 % 60, second: secs % 60)
    }

    public static func instant(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Instant {
        let days = daysFromCivil(year: year, month: month, day: day)
        return Instant(milliseconds: (days * 86_400 + Int64(hour * 3600 + minute * 60 + second)) * 1000)
    }

    /// `YYYY-MM-DD` → midnight UTC, validating the day of month.
    public static func parseDate(_ s: String) -> Instant? {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            (1...12).contains(m), d >= 1, d <= Month(year: y, month: m).dayCount
        else { return nil }
        return instant(year: y, month: m, day: d)
    }
}

/// A UTC calendar month.
public struct Month: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var year: Int
    public var month: Int

    public init(year: Int, month: Int) {
        self.year = year
        self.month = month
    }

    /// Parses `YYYY-MM`.
    public init?(parsing s: String) {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2,
            let y = Int(parts[0]), let m = Int(parts[1]), (1...12).contains(m)
        else { return nil }
        self.init(year: y, month: m)
    }

    public static func < (a: Month, b: Month) -> Bool { (a.year, a.month) < (b.year, b.month) }

    /// Months since 1970-01, a compact integer key for SQL.
    public var index: Int { (year - 1970) * 12 + (month - 1) }
    public init(index: Int) {
        let y = index >= 0 ? index / 12 : (index - 11) / 12
        self.init(year: 1970 + y, month: index - y * 12 + 1)
    }

    public var start: Instant { UTCCalendar.instant(year: year, month: month, day: 1) }
    public var next: Month { Month(index: index + 1) }
    public var previous: Month { Month(index: index - 1) }
    public var end: Instant { next.start }

    public var dayCount: Int {
        Int(
            UTCCalendar.daysFromCivil(year: next.year, month: next.month, day: 1)
                - UTCCalendar.daysFromCivil(year: year, month: month, day: 1))
    }

    public func adding(months n: Int) -> Month { Month(index: index + n) }

    public var description: String { String(format: "%04d-%02d", year, month) }
}
