import SubscriberAnalytics
import SubscriptionModel
import TestSupport
import Testing

/// What `subdash extend` and pane 2's `x` say before sending when Apple would refuse to extend
/// (README, "Support actions"): the story's subscriber read at instants inside its grace period,
/// its billing retry, a paid period, and after it expired.
@Suite struct ExtensionEligibilityTests {
    static func refusal(at iso: String, counted: [Instant] = []) throws -> String? {
        let report = try SubscriberStoryTests.report(try SubscriberStoryTests.v2Store(), asOf: Wire.at(iso))
        return ExtensionEligibility.refusal(report, counted: counted, now: Wire.at(iso))
    }

    @Test func aSubscriptionInItsGracePeriodIsRefused() throws {
        #expect(
            try Self.refusal(at: "2025-06-21T00:00:00Z")
                == "\(SubscriberStory.original) is in a billing grace period (its paid period has ended): "
                + "Apple does not extend it")
    }

    @Test func aSubscriptionInBillingRetryIsRefusedWithTheRetrysStart() throws {
        #expect(
            try Self.refusal(at: "2025-06-24T00:00:00Z")
                == "\(SubscriberStory.original) is in billing retry since 2025-06-20T15:30:00Z: "
                + "Apple does not extend it until a payment succeeds")
    }

    @Test func aPaidPeriodMayBeExtendedUnlessTwiceInTheLastYear() throws {
        #expect(try Self.refusal(at: "2025-05-10T00:00:00Z") == nil)
        let twice = [Wire.at("2024-09-01T00:00:00Z"), Wire.at("2025-03-01T00:00:00Z")]
        #expect(
            try Self.refusal(at: "2025-05-10T00:00:00Z", counted: twice)
                == "\(SubscriberStory.original) was already extended twice in the last 365 days "
                + "(2024-09-01T00:00:00Z and 2025-03-01T00:00:00Z): Apple allows two extensions per 365 days; "
                + "the next is possible from 2025-09-01T00:00:00Z")
    }

    @Test func anExpiredSubscriptionIsRefusedWithItsEnd() throws {
        #expect(
            try Self.refusal(at: "2025-09-01T00:00:00Z")
                == "\(SubscriberStory.original) expired on 2025-08-29T15:30:00Z: "
                + "Apple extends only a subscription that is active")
    }

    @Test func outOfRangeDaysAreRefused() {
        #expect(ExtensionEligibility.daysRefusal(0) == "0 days: Apple extends by 1 to 90 days")
        #expect(ExtensionEligibility.daysRefusal(91) == "91 days: Apple extends by 1 to 90 days")
        #expect(ExtensionEligibility.daysRefusal(90) == nil)
        #expect(ExtensionEligibility.daysRefusal(1) == nil)
    }
}
