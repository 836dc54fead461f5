import GRDB

/// A list of subscription ids held in 8 bytes each when they are App Store ids: the rebuild's
/// pending ids at a million subscriptions were about 100 MB as strings (a 16-digit id is one byte
/// more than a Swift string keeps inline, so each was an allocation of its own), and are 8 MB
/// here. Ids that are not plain numbers (tests, hand-made data) are kept as strings.
///
/// The list keeps the ids it was given, in order: numbers first, then the others.
public struct SubscriptionIdList: Sendable {
    private var numbers: [UInt64] = []
    private var others: [String] = []

    init() {}

    /// The pending subscriptions when this is called, in id order (a snapshot: subscriptions
    /// marked pending afterwards, say by another import, are that import's to rebuild).
    static func pending(_ db: Database) throws -> SubscriptionIdList {
        var list = SubscriptionIdList()
        let ids = try String.fetchCursor(db, sql: "SELECT originalTransactionId FROM pendingSubscription ORDER BY 1")
        while let id = try ids.next() { list.append(id) }
        return list
    }

    var count: Int { numbers.count + others.count }
    var isEmpty: Bool { count == 0 }

    mutating func append(_ id: String) {
        if let number = Self.number(id) {
            numbers.append(number)
        } else {
            others.append(id)
        }
    }

    /// The ids from `range` of the list, as strings.
    subscript(range: Range<Int>) -> [String] {
        range.map { $0 < numbers.count ? String(numbers[$0]) : others[$0 - numbers.count] }
    }

    /// The list in slices of at most `size` ids, each made into strings only when asked for.
    func chunks(of size: Int) -> [Range<Int>] {
        precondition(size > 0)
        return stride(from: 0, to: count, by: size).map { $0..<min($0 + size, count) }
    }

    /// The id as a number when it is one to the letter: ASCII digits only, no leading zero (so
    /// `"01"` and `"1"` stay two ids), at most 19 of them (always inside `UInt64`); `String(n)`
    /// gives the id back.
    public static func number(_ id: String) -> UInt64? {
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
