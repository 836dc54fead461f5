/// The distinct subscriptions an import touched, for its summary line's count.
///
/// An import of 1,000,000 subscribers touches all of them, and a set of their ids as strings took
/// about 100 MB: App Store ids are 16 digits, one more byte than a Swift string keeps inline, so
/// each was an allocation of its own. An id of digits alone is kept as the number it spells
/// (8 bytes), any other id as the string; either way the count is exact.
struct TouchedSubscriptions {
    private var numbers = Set<UInt64>()
    private var others = Set<String>()

    var count: Int { numbers.count + others.count }

    mutating func formUnion(_ ids: Set<String>) {
        for id in ids { insert(id) }
    }

    mutating func insert(_ id: String) {
        if let number = Self.number(id) {
            numbers.insert(number)
        } else {
            others.insert(id)
        }
    }

    /// The id as a number when it is one to the letter: ASCII digits only, no leading zero (so
    /// `"01"` and `"1"` stay two ids), at most 19 of them (always inside `UInt64`).
    static func number(_ id: String) -> UInt64? {
        let utf8 = id.utf8
        guard (1...19).contains(utf8.count), utf8.first != UInt8(ascii: "0") || utf8.count == 1 else { return nil }
        var value: UInt64 = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
