import SubscriptionModel

/// v1's three spellings of an instant: `*_date_ms` ("1606292762000"), `*_date`
/// ("2020-11-25 08:26:02 Etc/GMT") and `*_date_pst` (the same in America/Los_Angeles).
enum WireDate {
    /// `YYYY-MM-DD HH:MM:SS Etc/GMT`.
    static func gmt(_ instant: Instant, into out: inout [UInt8]) {
        appendCivil(instant, into: &out)
        out.append(contentsOf: Array(" Etc/GMT".utf8))
    }

    /// `YYYY-MM-DD HH:MM:SS America/Los_Angeles`, with US daylight saving time.
    static func pacific(_ instant: Instant, into out: inout [UInt8]) {
        appendCivil(instant.adding(hours: isPacificDaylightTime(instant) ? -7 : -8), into: &out)
        out.append(contentsOf: Array(" America/Los_Angeles".utf8))
    }

    /// Since 2007: from the second Sunday of March, 02:00 PST (10:00 UTC), to the first Sunday
    /// of November, 02:00 PDT (09:00 UTC).
    static func isPacificDaylightTime(_ instant: Instant) -> Bool {
        let year = UTCCalendar.components(of: instant).year
        func sunday(month: Int, nth: Int) -> Int {
            let first = UTCCalendar.daysFromCivil(year: year, month: month, day: 1)
            let weekday = Int((first + 4) % 7)  // 1970-01-01 was a Thursday; 0 = Sunday
            return 1 + (7 - weekday) % 7 + 7 * (nth - 1)
        }
        let begins = UTCCalendar.instant(year: year, month: 3, day: sunday(month: 3, nth: 2), hour: 10)
        let ends = UTCCalendar.instant(year: year, month: 11, day: sunday(month: 11, nth: 1), hour: 9)
        return instant >= begins && instant < ends
    }

    private static func appendCivil(_ instant: Instant, into out: inout [UInt8]) {
        let c = UTCCalendar.components(of: instant)
        func two(_ v: Int) {
            out.append(UInt8(ascii: "0") + UInt8(v / 10))
            out.append(UInt8(ascii: "0") + UInt8(v % 10))
        }
        two(c.year / 100)
        two(c.year % 100)
        out.append(UInt8(ascii: "-"))
        two(c.month)
        out.append(UInt8(ascii: "-"))
        two(c.day)
        out.append(UInt8(ascii: " "))
        two(c.hour)
        out.append(UInt8(ascii: ":"))
        two(c.minute)
        out.append(UInt8(ascii: ":"))
        two(c.second)
    }
}

extension JSONBuffer {
    /// The v1 triple `<name>`, `<name>_ms`, `<name>_pst`; `name` is e.g. `purchase_date`.
    mutating func v1Date(_ gmt: StaticString, _ ms: StaticString, _ pst: StaticString, _ instant: Instant) {
        key(gmt)
        var text: [UInt8] = []
        text.reserveCapacity(40)
        WireDate.gmt(instant, into: &text)
        rawString(text)
        key(ms)
        decimalString(instant.milliseconds)
        key(pst)
        text.removeAll(keepingCapacity: true)
        WireDate.pacific(instant, into: &text)
        rawString(text)
    }
}
