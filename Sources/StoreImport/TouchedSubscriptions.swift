import SubscriberStore

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
        if let number = SubscriptionIdList.number(id) {
            numbers.insert(number)
        } else {
            others.insert(id)
        }
    }
}
