import SubscriberStore
import Testing

@testable import StoreImport

@Suite struct TouchedSubscriptionsTests {
    @Test func countsEachIdOnceWhateverItIsMadeOf() {
        var touched = TouchedSubscriptions()
        touched.formUnion(["2000000000014000", "1", "01", "abc", "9999999999999999999", "99999999999999999999"])
        touched.formUnion(["2000000000014000", "1", "01", "abc", "0", "-1", "+1", ""])
        // Six, then four more: "01" and "1" are two ids, so are "+1", "-1" and "1", and "" is one.
        #expect(touched.count == 10)
        #expect(SubscriptionIdList.number("2000000000014000") == 2_000_000_000_014_000)
        #expect(SubscriptionIdList.number("01") == nil)
        #expect(SubscriptionIdList.number("0") == 0)
        #expect(SubscriptionIdList.number("99999999999999999999") == nil)
    }
}
