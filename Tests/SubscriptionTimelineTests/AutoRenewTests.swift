import SubscriptionModel
import Testing

@testable import SubscriptionTimeline

@Suite struct AutoRenewTests {
    @Test func togglesAreEventsOnlyWhenTheyChangeTheStatus() {
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01")],
            renewals: [renewal("2024-01-18", tx: "a", autoRenew: false)],
            notes: [
                toggle(true, "2024-01-05"),  // already on: no event
                toggle(false, "2024-01-10"),
                toggle(false, "2024-01-12"),  // already off: no event
                toggle(true, "2024-01-15"),
                toggle(false, "2024-01-18"),  // the renewal fact at the same instant is not "before"
                toggle(true, "2024-01-28"),
            ])
        #expect(
            tl.eventList().filter { $0.contains("autoRenew") } == [
                "2024-01-10T00:00:00Z autoRenewOff", "2024-01-15T00:00:00Z autoRenewOn",
                "2024-01-18T00:00:00Z autoRenewOff", "2024-01-28T00:00:00Z autoRenewOn",
            ])
        #expect(tl.autoRenew(at: t("2023-12-31")) == nil)
        #expect(tl.autoRenew(at: t("2024-01-09T23:59:59Z")) == true)
        #expect(tl.autoRenew(at: t("2024-01-10")) == false)
        #expect(tl.autoRenew(at: t("2024-01-20")) == false)
        #expect(tl.autoRenew(at: t("2024-01-28")) == true)
        #expect(
            tl.autoRenewIntervals == [
                AutoRenewInterval(from: t("2024-01-01"), to: t("2024-01-10"), isOn: true),
                AutoRenewInterval(from: t("2024-01-10"), to: t("2024-01-15"), isOn: false),
                AutoRenewInterval(from: t("2024-01-15"), to: t("2024-01-18"), isOn: true),
                AutoRenewInterval(from: t("2024-01-18"), to: t("2024-01-28"), isOn: false),
                AutoRenewInterval(from: t("2024-01-28"), to: nil, isOn: true),
            ])
    }

    @Test func v2RenewalFactsSetTheStatusButAreNotEvents() {
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01")],
            renewals: [renewal("2024-01-10", tx: "a", autoRenew: false)],
            notes: [toggle(false, "2024-01-12")])
        #expect(tl.autoRenew(at: t("2024-01-10")) == false)
        #expect(!tl.events.contains { $0.type == .autoRenewOff })
        #expect(tl.runs[0].expirationReason == .voluntary)
    }

    @Test func v1DocumentsOtherThanTogglesDoNotChangeTheStatus() {
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01")],
            renewals: [renewal("2024-01-01", tx: "a", autoRenew: false, v1: true)],
            notes: [toggle(false, "2024-01-20", v1: true)])
        #expect(tl.autoRenew(at: t("2024-01-19")) == true)
        #expect(tl.autoRenew(at: t("2024-01-20")) == false)
        #expect(tl.eventList().contains("2024-01-20T00:00:00Z autoRenewOff"))
    }

    @Test func reactivationStartsANewRunWithAutoRenewOnAgain() {
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-03-01", "2024-04-01")],
            notes: [toggle(false, "2024-01-20")])
        #expect(tl.classes() == [.activation, .reactivation])
        #expect(tl.runs.count == 2)
        #expect(tl.runs[0].endedAt == t("2024-02-01"))
        #expect(tl.runs[0].expirationReason == .voluntary)
        #expect(tl.autoRenew(at: t("2024-02-15")) == false)
        #expect(tl.autoRenew(at: t("2024-03-01")) == true)
        #expect(tl.runIndex(at: t("2024-02-15")) == 0)
        #expect(tl.runIndex(at: t("2024-03-01")) == 1)
        #expect(tl.latestRun(asOf: t("2024-03-05"))?.start == t("2024-03-01"))
        #expect(tl.expirationReason(asOf: t("2024-02-15")) == .voluntary)
        #expect(tl.expirationReason(asOf: t("2024-03-05")) == nil)
        #expect(
            tl.autoRenewIntervals == [
                AutoRenewInterval(from: t("2024-01-01"), to: t("2024-01-20"), isOn: true),
                AutoRenewInterval(from: t("2024-01-20"), to: t("2024-03-01"), isOn: false),
                AutoRenewInterval(from: t("2024-03-01"), to: nil, isOn: true),
            ])
        #expect(
            tl.eventList() == [
                "2024-01-01T00:00:00Z activation", "2024-01-20T00:00:00Z autoRenewOff",
                "2024-02-01T00:00:00Z expiration voluntary", "2024-03-01T00:00:00Z reactivation",
                "2024-04-01T00:00:00Z expiration other",
            ])
    }

    @Test func toggleOnAtTheReactivationInstantIsNoEvent() {
        // v1 sends DID_CHANGE_RENEWAL_STATUS when an expired subscriber resubscribes.
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-03-01", "2024-04-01")],
            notes: [toggle(false, "2024-01-20", v1: true), toggle(true, "2024-03-01", v1: true)])
        #expect(tl.eventList().filter { $0.contains("autoRenew") } == ["2024-01-20T00:00:00Z autoRenewOff"])
        #expect(tl.runs[0].expirationReason == .voluntary)
    }

    @Test func toggleAtAPeriodBoundaryInsideARunApplies() {
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01"), tx("b", "2024-02-01", "2024-03-01")],
            notes: [toggle(false, "2024-02-01")])
        #expect(tl.autoRenew(at: t("2024-01-31T23:59:59Z")) == true)
        #expect(tl.autoRenew(at: t("2024-02-01")) == false)
        #expect(tl.runs[0].expirationReason == .voluntary)
    }

    @Test func latestRenewalInformation() {
        let tl = derive(
            [tx("a", "2024-01-01", "2024-02-01", token: "6F1E0C9A-0000-4000-8000-000000000001")],
            renewals: [
                renewal("2024-01-10", tx: "a", priceIncrease: 0, renewsTo: "premium"),
                renewal("2024-01-05", tx: "a", priceIncrease: 1, renewsTo: "basic"),
            ],
            notes: [note("PRICE_INCREASE", "ACCEPTED", "2024-01-12", tx: "a", status: 1)])
        #expect(tl.autoRenewProductId == "premium")
        #expect(tl.priceIncreaseStatus == 1)
        #expect(tl.appAccountToken == "6F1E0C9A-0000-4000-8000-000000000001")
        #expect(tl.dataHorizon == t("2024-01-12"))
    }
}
