import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import Testing

@testable import LifecycleSimulator

/// The seeds' subscriber (see `SubscriberStory`) imported from real v1 and v2 payloads, and its
/// `report subscriber` JSON checked against values worked out by hand from docs/metrics.md.
@Suite struct SubscriberStoryTests {
    static let asOf = Wire.at("2025-09-01T00:00:00Z")

    /// v1 carries no price: the price table gives the story the prices v2 reports (pro 9.99, then
    /// 12.99 after the price increase of 07-29; premium 14.99).
    static func v1Store() throws -> SubscriberAnalytics {
        let (analytics, rejected) = try Wire.store(SubscriberStory.v1Documents, chain: Wire.chain())
        #expect(rejected == [])
        return try priced(analytics)
    }

    static func priced(_ analytics: SubscriberAnalytics) throws -> SubscriberAnalytics {
        try PriceTableStore.replace(
            in: analytics.database,
            with: PriceTableStore.parse(
                """
                productId,storefront,currency,price,validFrom
                \(SubscriberStory.pro),,USD,9.99,2025-01-01
                \(SubscriberStory.premium),,USD,14.99,2025-01-01
                \(SubscriberStory.pro),,USD,12.99,2025-07-29
                """, source: "prices.csv"))
        return analytics
    }

    static func v2Store() throws -> SubscriberAnalytics {
        let chain = try Wire.chain()
        let (analytics, rejected) = try Wire.store(SubscriberStory.v2Documents(try CompactJWS(chain: chain)), chain: chain)
        #expect(rejected == [])
        return analytics
    }

    static func report(
        _ analytics: SubscriberAnalytics, _ id: String = SubscriberStory.original,
        asOf: Instant? = asOf
    ) throws -> SubscriberReport {
        guard case .found(let report) = try analytics.subscriber(id, asOf: asOf) else {
            throw StoryError.notFound(id)
        }
        return report
    }

    enum StoryError: Error { case notFound(String) }

    /// Worked out from docs/metrics.md (instants 2025, UTC):
    ///
    /// Periods (start = purchaseDate, end = min(expiresDate, revocationDate), cut at the next start):
    /// - T1 pro 01-05 10:00 → 01-20 15:30. v1: its cancellation date; v2: cut at T2's start, which
    ///   is 15 d 18.5 h (> 24 h) before its 02-05 10:00 expiry, so it is cut by an upgrade (v1 says
    ///   so with is_upgraded). A revoked period cut by an upgrade is not a refund. `activation`.
    /// - T2 premium 01-20 15:30 → 02-20 09:30: T3 was charged 6 h (≤ 24 h) before T2's 15:30
    ///   expiry, so T2 ends at T3's start and is not an upgrade cut. `productChange` (previous cut
    ///   by an upgrade, and another product).
    /// - T3 premium 02-20 09:30 → 03-20 15:30: same product, no gap, standard after standard: `renewal`.
    /// - T4 pro 03-20 15:30 → 04-20 15:30: the downgrade scheduled on 03-01 is another product: `productChange`.
    /// - T5 pro 04-20 15:30 → 05-20 15:30: T4 has a billing failure at T = 04-20 15:30 whose retry
    ///   end is T + 60 d = 06-19 15:30 (10 d to 04-30, 31 in May, 19 in June); T5 starts before
    ///   it: `billingRecovery` (0 days: the grace recovery kept the billing date).
    /// - T6 pro 05-20 15:30 → 06-20 15:30: `renewal`.
    /// - T7 pro 06-29 15:30 → 07-29 15:30: T6 failed at T = 06-20 15:30; retry end = min(T + 60 d =
    ///   08-19 15:30, first auto-renew-off toggle at or after T = 08-10 20:00) = 08-10 20:00; T7
    ///   starts before it: `billingRecovery`, 9 days after T.
    /// - T8 pro 07-29 15:30 → 08-29 15:30: `renewal`.
    ///
    /// One run (every class joins), ended at T8's end, 08-29 15:30 (no failure there). Reason: not
    /// refunded, no failure at its end; v2: the latest intent about T8 is EXPIRED/VOLUNTARY (and
    /// intent 1) = `voluntary`; v1: the only intents (2) were reported about T4 and T6, whose
    /// failures T5 and T7 recovered, none about T8 (docs/metrics.md), and auto-renew is off at
    /// the end (toggled off 08-10) = `voluntary` too.
    ///
    /// paidPeriods = paid periods from the first paid one, not counting T1 (cut by an upgrade):
    /// T2…T8 = 7. billingFailures = 2. State at 09-01: no period, no retry window: `expired`, by
    /// T8's product. Auto-renew: off since 08-10 20:00. autoRenewProductId: the latest renewal
    /// info says pro. Price increase: consented (v2 ACCEPTED 07-21, v1 price_consent_status "1").
    ///
    /// Events at one instant are listed in the order they happen (docs/metrics.md): the billing
    /// issue at 04-20 15:30 comes before the recovery that started at that same instant.
    ///
    /// Money: T1's upgrade credit is 9.99 × (02-05 10:00 − 01-20 15:30) / 31 days = 9.99 × 15.77 / 31
    /// = 5.082; paid = 9.99 × 5 + 14.99 × 2 + 12.99 − 5.082 = 87.838. Paid service runs from 01-05
    /// 10:00 to 08-29 15:30 except the 9 days T7 recovered after grace had ended: 227 days.
    static let expectedJSON = """
        {"originalTransactionId":"2000000100000001","environment":"Production","ownership":"purchased","userId":null,"email":null,"appAccountToken":"5b7f3e52-93a8-4d55-9b1e-0c1c1f0d2a11","productId":"com.example.pro.monthly","state":"expired","autoRenew":false,"autoRenewProductId":"com.example.pro.monthly","inBillingRetry":false,"gracePeriodExpires":null,"expirationReason":"voluntary","priceIncrease":null,"paidPeriods":7,"billingFailures":2,"accessEnd":{"kind":"expiredOn","at":"2025-08-29T15:30:00Z"},"billingRetry":null,"periods":[\
        {"transactionId":"2000000100000001","productId":"com.example.pro.monthly","start":"2025-01-05T10:00:00Z","end":"2025-01-20T15:30:00Z","offerKind":"standard","class":"activation","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":9.99,"currency":"USD","refundAmount":null,"upgradeCredit":5.082},\
        {"transactionId":"2000000100000002","productId":"com.example.premium.monthly","start":"2025-01-20T15:30:00Z","end":"2025-02-20T09:30:00Z","offerKind":"standard","class":"productChange","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":14.99,"currency":"USD","refundAmount":null,"upgradeCredit":null},\
        {"transactionId":"2000000100000003","productId":"com.example.premium.monthly","start":"2025-02-20T09:30:00Z","end":"2025-03-20T15:30:00Z","offerKind":"standard","class":"renewal","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":14.99,"currency":"USD","refundAmount":null,"upgradeCredit":null},\
        {"transactionId":"2000000100000004","productId":"com.example.pro.monthly","start":"2025-03-20T15:30:00Z","end":"2025-04-20T15:30:00Z","offerKind":"standard","class":"productChange","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":9.99,"currency":"USD","refundAmount":null,"upgradeCredit":null},\
        {"transactionId":"2000000100000005","productId":"com.example.pro.monthly","start":"2025-04-20T15:30:00Z","end":"2025-05-20T15:30:00Z","offerKind":"standard","class":"billingRecovery","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":9.99,"currency":"USD","refundAmount":null,"upgradeCredit":null},\
        {"transactionId":"2000000100000006","productId":"com.example.pro.monthly","start":"2025-05-20T15:30:00Z","end":"2025-06-20T15:30:00Z","offerKind":"standard","class":"renewal","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":9.99,"currency":"USD","refundAmount":null,"upgradeCredit":null},\
        {"transactionId":"2000000100000007","productId":"com.example.pro.monthly","start":"2025-06-29T15:30:00Z","end":"2025-07-29T15:30:00Z","offerKind":"standard","class":"billingRecovery","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":9.99,"currency":"USD","refundAmount":null,"upgradeCredit":null},\
        {"transactionId":"2000000100000008","productId":"com.example.pro.monthly","start":"2025-07-29T15:30:00Z","end":"2025-08-29T15:30:00Z","offerKind":"standard","class":"renewal","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":12.99,"currency":"USD","refundAmount":null,"upgradeCredit":null}],"events":[\
        {"at":"2025-01-05T10:00:00Z","type":"activation","productId":"com.example.pro.monthly","expirationReason":null},\
        {"at":"2025-01-20T15:30:00Z","type":"productChange","productId":"com.example.premium.monthly","expirationReason":null},\
        {"at":"2025-02-20T09:30:00Z","type":"renewal","productId":"com.example.premium.monthly","expirationReason":null},\
        {"at":"2025-03-20T15:30:00Z","type":"productChange","productId":"com.example.pro.monthly","expirationReason":null},\
        {"at":"2025-04-02T12:00:00Z","type":"autoRenewOff","productId":"com.example.pro.monthly","expirationReason":null},\
        {"at":"2025-04-05T18:00:00Z","type":"autoRenewOn","productId":"com.example.pro.monthly","expirationReason":null},\
        {"at":"2025-04-20T15:30:00Z","type":"billingIssue","productId":"com.example.pro.monthly","expirationReason":null},\
        {"at":"2025-04-20T15:30:00Z","type":"billingRecovery","productId":"com.example.pro.monthly","expirationReason":null},\
        {"at":"2025-05-20T15:30:00Z","type":"renewal","productId":"com.example.pro.monthly","expirationReason":null},\
        {"at":"2025-06-20T15:30:00Z","type":"billingIssue","productId":"com.example.pro.monthly","expirationReason":null},\
        {"at":"2025-06-29T15:30:00Z","type":"billingRecovery","productId":"com.example.pro.monthly","expirationReason":null},\
        {"at":"2025-07-29T15:30:00Z","type":"renewal","productId":"com.example.pro.monthly","expirationReason":null},\
        {"at":"2025-08-10T20:00:00Z","type":"autoRenewOff","productId":"com.example.pro.monthly","expirationReason":null},\
        {"at":"2025-08-29T15:30:00Z","type":"expiration","productId":"com.example.pro.monthly","expirationReason":"voluntary"}],"flags":[\
        {"offer":"winBack","at":"2025-08-30T09:00:00Z","note":null}],"paid":{"USD":87.838},"paidServiceDays":227,"commitment":null,"renewalPrice":null,"renewalCurrency":null,"eligibleWinBackOfferIds":[],"appTransactionId":null,"appTransactionSubscriptions":[]}
        """

    static func flagged(_ analytics: SubscriberAnalytics) throws -> SubscriberAnalytics {
        try analytics.database.setFlags(
            OfferFlagWrite(offer: .winBackOffer, ids: [SubscriberStory.original], operatorName: "ann"),
            at: Wire.at("2025-08-30T09:00:00Z"))
        return analytics
    }

    // MARK: - The full JSON

    @Test func v1StoryReportJSONFieldByField() throws {
        let report = try Self.report(try Self.flagged(try Self.v1Store()))
        expectSameJSON(SubscriberOutput(report).json, Self.expectedJSON)
    }

    /// The CSV a spreadsheet opens: one row per period, each as wide as the header, the
    /// subscriber's fields (with what they paid and the paid service days) on every row.
    @Test func storyCSVRowsLineUpWithTheHeader() throws {
        let csv = SubscriberOutput(try Self.report(try Self.flagged(try Self.v2Store()))).csv
        #expect(csv.rows.count == 8)
        for row in csv.rows { #expect(row.count == csv.header.count) }
        let first = Dictionary(uniqueKeysWithValues: zip(csv.header, csv.rows[0]))
        #expect(first["paid"] == "USD 87.838")
        #expect(first["paidServiceDays"] == "227")
        #expect(first["billingFailures"] == "2")
        #expect(first["productId"] == "com.example.pro.monthly")
        #expect(first["upgradeCredit"] != nil)
    }

    @Test func v2StoryReportJSONFieldByField() throws {
        let report = try Self.report(try Self.flagged(try Self.v2Store()))
        expectSameJSON(SubscriberOutput(report).json, Self.expectedJSON)
    }

    /// Without `--as-of` the report is read at the data horizon, and there v1 and v2 legitimately
    /// differ: v1 has no expiry notification, so its horizon is the last thing it reported, the
    /// auto-renew-off toggle of 08-10 20:00; v2's EXPIRED is signed at the expiry, 08-29 15:30.
    @Test func defaultAsOfIsEachFormatsDataHorizon() throws {
        let v2 = try Self.flagged(try Self.v2Store())
        #expect(try v2.dataHorizon() == Wire.at("2025-08-29T15:30:00Z"))
        // At T8's end exactly the period no longer covers (end exclusive) and the run has ended.
        let atHorizon = try Self.report(v2, asOf: nil)
        #expect(atHorizon.asOf == Wire.at("2025-08-29T15:30:00Z"))
        expectSameJSON(SubscriberOutput(atHorizon).json, Self.expectedJSON)

        let v1 = try Self.v1Store()
        #expect(try v1.dataHorizon() == Wire.at("2025-08-10T20:00:00Z"))
        let r = try Self.report(v1, asOf: nil)
        // 08-10 20:00 lies inside T8 [07-29 15:30, 08-29 15:30): still standard, the run open.
        #expect(r.state == .standard)
        #expect(r.autoRenew == false)
        #expect(r.expirationReason == nil)
        #expect(r.paidPeriods == 7)
        #expect(
            r.events.last
                == TimelineEvent(
                    at: Wire.at("2025-08-10T20:00:00Z"), type: .autoRenewOff,
                    productId: SubscriberStory.pro))
    }

    // MARK: - v1 and v2 tell the same life

    /// What docs/metrics.md derives from the two fixture sets is the same, except what each wire format
    /// carries and the other does not:
    /// - v1 reports T1 with its cancellation date (`revocationDate`), v2 never resends T1;
    /// - v1 rows carry no price;
    /// - the data horizon (see `defaultAsOfIsEachFormatsDataHorizon`).
    @Test func v1AndV2GiveTheSameTimeline() throws {
        let v1 = try Self.report(try Self.v1Store()).timeline
        let v2 = try Self.report(try Self.v2Store()).timeline
        func comparable(_ p: Period) -> Period {
            var p = p
            p.revocationDate = nil
            p.price = nil
            p.currency = nil
            p.storefront = nil
            p.revocationType = nil
            return p
        }
        #expect(v1.periods.map(comparable) == v2.periods.map(comparable))
        #expect(v1.periods[0].revocationDate == Wire.at("2025-01-20T15:30:00Z"))
        #expect(v2.periods[0].revocationDate == nil)
        #expect(v1.runs == v2.runs)
        #expect(v1.billingFailures == v2.billingFailures)
        #expect(v1.events == v2.events)
        #expect(v1.stateIntervals == v2.stateIntervals)
        #expect(v1.autoRenewIntervals == v2.autoRenewIntervals)
        #expect(v1.autoRenewProductId == v2.autoRenewProductId)
        #expect(v1.priceIncreaseStatus == v2.priceIncreaseStatus)
        #expect(v1.appAccountToken == v2.appAccountToken)

        // And so is every population figure read from the store (states through the year, events,
        // recovery and cohorts month by month, eligibility), all but the data horizon.
        let v1Reports = try StoreBoundaryTests.everyReport(try Self.v1Store(), subscribers: []).dropLast()
        let v2Reports = try StoreBoundaryTests.everyReport(try Self.v2Store(), subscribers: []).dropLast()
        #expect(v1Reports.count == v2Reports.count)
        for (a, b) in zip(v1Reports, v2Reports) where a != b { #expect(a == b) }
    }

    /// An app that moves its notification URL from v1 to v2 mid-life: v1 documents up to the first
    /// DID_FAIL_TO_RENEW (T4 failing), v2 from the same failure on. Same life, same report.
    @Test func switchingFromV1ToV2MidwayGivesTheSameReport() throws {
        let chain = try Wire.chain()
        let v1 = Array(SubscriberStory.v1Documents.prefix(9))
        let v2 = Array(SubscriberStory.v2Documents(try CompactJWS(chain: chain)).dropFirst(7))
        let (analytics, rejected) = try Wire.store(v1 + v2, chain: chain)
        #expect(rejected == [])
        expectSameJSON(
            SubscriberOutput(try Self.report(try Self.flagged(try Self.priced(analytics)))).json, Self.expectedJSON)
    }

    // MARK: - Reading the story at instants

    /// Both formats, at instants chosen on and around the story's boundaries.
    @Test(arguments: ["v1", "v2"]) func stateAcrossTheStory(format: String) throws {
        let analytics = format == "v1" ? try Self.v1Store() : try Self.v2Store()
        func at(_ iso: String) throws -> SubscriberReport { try Self.report(analytics, asOf: Wire.at(iso)) }

        // Before the first purchase: never started.
        #expect(try at("2025-01-05T09:59:59Z").state == nil)
        // The first period's start is inclusive.
        #expect(try at("2025-01-05T10:00:00Z").state == .standard)
        #expect(try at("2025-01-05T10:00:00Z").productId == SubscriberStory.pro)
        // The upgrade moves the product at its instant.
        #expect(try at("2025-01-20T15:29:59Z").productId == SubscriberStory.pro)
        #expect(try at("2025-01-20T15:30:00Z").productId == SubscriberStory.premium)
        // Auto-renew off [04-02 12:00, 04-05 18:00).
        #expect(try at("2025-04-02T11:59:59Z").autoRenew == true)
        #expect(try at("2025-04-02T12:00:00Z").autoRenew == false)
        #expect(try at("2025-04-05T17:59:59Z").autoRenew == false)
        #expect(try at("2025-04-05T18:00:00Z").autoRenew == true)
        // The first failure was recovered inside grace keeping the billing date: T5 covers T, so
        // the subscriber is never shown in grace (the recovery is known, whatever the as-of).
        let firstFailure = try at("2025-04-21T00:00:00Z")
        #expect(firstFailure.state == .standard)
        #expect(firstFailure.inBillingRetry == false)
        #expect(firstFailure.billingFailures == 1)
        // Second failure: grace [06-20 15:30, 06-23 15:30), then billing retry to the recovery.
        #expect(try at("2025-06-20T15:29:59Z").state == .standard)
        let inGrace = try at("2025-06-20T15:30:00Z")
        #expect(inGrace.state == .gracePeriod)
        #expect(inGrace.inBillingRetry)
        #expect(inGrace.gracePeriodExpires == Wire.at("2025-06-23T15:30:00Z"))
        #expect(inGrace.expirationReason == nil)
        #expect(inGrace.paidPeriods == 5)  // T2…T6
        let inRetry = try at("2025-06-23T15:30:00Z")
        #expect(inRetry.state == .billingRetry)
        #expect(inRetry.inBillingRetry)
        #expect(inRetry.gracePeriodExpires == nil)
        #expect(inRetry.expirationReason == nil)
        #expect(try at("2025-06-29T15:29:59Z").state == .billingRetry)
        let recovered = try at("2025-06-29T15:30:00Z")
        #expect(recovered.state == .standard)
        #expect(recovered.inBillingRetry == false)
        #expect(recovered.paidPeriods == 6)
        // The last period's end is exclusive.
        #expect(try at("2025-08-29T15:29:59Z").state == .standard)
        #expect(try at("2025-08-29T15:29:59Z").expirationReason == nil)
        #expect(try at("2025-08-29T15:30:00Z").state == .expired)
        #expect(try at("2025-08-29T15:30:00Z").expirationReason == .voluntary)
    }

    /// `autoRenewProductId` and `priceIncrease` are read at as-of like every other field
    /// (docs/metrics.md): the latest renewal info at or before it.
    @Test func renewalPreferenceAndPriceIncreaseAtAsOf() throws {
        let v2 = try Self.v2Store()
        func at(_ iso: String) throws -> SubscriberReport { try Self.report(v2, asOf: Wire.at(iso)) }
        // The downgrade is scheduled 03-01 08:00 and takes effect at the 03-20 renewal.
        #expect(try at("2025-03-01T07:59:59Z").autoRenewProductId == SubscriberStory.premium)
        #expect(try at("2025-03-01T08:00:00Z").autoRenewProductId == SubscriberStory.pro)
        #expect(try at("2025-03-01T08:00:00Z").productId == SubscriberStory.premium)
        // PRICE_INCREASE/PENDING 07-19 10:00, ACCEPTED 07-21 08:00.
        #expect(try at("2025-07-19T09:59:59Z").priceIncrease == nil)
        #expect(try at("2025-07-19T10:00:00Z").priceIncrease == "pending")
        #expect(try at("2025-07-21T08:00:00Z").priceIncrease == "accepted")

        // v1 documents speak at their latest row's purchase (docs/metrics.md, "Fact instants"), so v1
        // knows of the downgrade from T3's purchase, 02-20 09:30, where the DID_RENEW of T3
        // (renewing to premium) speaks too; of two v1 values at one instant the greater id is
        // read (docs/metrics.md), here pro. The consent request is known from T7's purchase.
        let v1 = try Self.v1Store()
        func v1At(_ iso: String) throws -> SubscriberReport { try Self.report(v1, asOf: Wire.at(iso)) }
        #expect(try v1At("2025-02-20T09:29:59Z").autoRenewProductId == SubscriberStory.premium)
        #expect(try v1At("2025-02-20T09:30:00Z").autoRenewProductId == SubscriberStory.pro)
        #expect(try v1At("2025-06-29T15:29:59Z").priceIncrease == nil)
        #expect(try v1At("2025-06-29T15:30:00Z").priceIncrease == "pending")
        #expect(try v1At("2025-07-29T15:30:00Z").priceIncrease == "accepted")
    }

    /// The two billing failures through `report recovery`: recovered after 0 and 9 days.
    @Test(arguments: ["v1", "v2"]) func recoveryReportOfTheStory(format: String) throws {
        let analytics = format == "v1" ? try Self.v1Store() : try Self.v2Store()
        let r = try analytics.recovery(
            from: Wire.at("2025-01-01T00:00:00Z"), to: Wire.at("2026-01-01T00:00:00Z"),
            asOf: Self.asOf)
        // Days: (04-20 15:30 − 04-20 15:30) = 0; (06-29 15:30 − 06-20 15:30) = 9. Cumulative:
        // ≤ 3: 1, ≤ 7: 1, ≤ 16: 2, ≤ 30: 2, ≤ 60: 2.
        #expect(
            RecoveryOutput(r).json == """
                {"from":"2025-01-01T00:00:00Z","to":"2026-01-01T00:00:00Z","asOf":"2025-09-01T00:00:00Z",\
                "failures":2,"recovered":2,"expired":0,"pending":0,\
                "recoveredWithinDays":{"3":1,"7":1,"16":2,"30":2,"60":2}}
                """)
        // Read inside the second retry window, that failure is still pending.
        let during = try analytics.recovery(
            from: Wire.at("2025-06-01T00:00:00Z"), to: Wire.at("2025-07-01T00:00:00Z"),
            asOf: Wire.at("2025-06-25T00:00:00Z"))
        #expect(during.failures == 1)
        #expect(during.pending == 1)
        #expect(during.recovered == 0)
    }

    /// `--product`: period-start events by their period's product; billing issues, toggles and
    /// the expiration by the product of the latest period started at or before them. Premium has
    /// T2 (productChange 01-20) and T3 (renewal 02-20) and nothing else; everything else is pro:
    /// activation T1; productChange T4; billingRecovery T5, T7; renewal T6, T8; billingIssue
    /// 04-20 (T5 started that instant) and 06-20 (T6); autoRenewOff 04-02 (T4) and 08-10 (T8);
    /// autoRenewOn 04-05 (T4); expiration 08-29 (T8), voluntary.
    @Test(arguments: ["v1", "v2"]) func eventsAndStatesByProduct(format: String) throws {
        let analytics = format == "v1" ? try Self.v1Store() : try Self.v2Store()
        let from = Wire.at("2025-01-01T00:00:00Z")
        let to = Wire.at("2026-01-01T00:00:00Z")
        func counts(_ product: String?) throws -> [EventType: Int] {
            try analytics.events(from: from, to: to, asOf: Self.asOf, scope: ReportScope(productId: product)).counts
                .filter { $0.value > 0 }
        }
        #expect(try counts(SubscriberStory.premium) == [.productChange: 1, .renewal: 1])
        #expect(
            try counts(SubscriberStory.pro) == [
                .activation: 1, .productChange: 1, .billingRecovery: 2, .renewal: 2,
                .billingIssue: 2, .autoRenewOff: 2, .autoRenewOn: 1, .expiration: 1,
            ])
        #expect(
            try counts(nil) == [
                .activation: 1, .productChange: 2, .billingRecovery: 2, .renewal: 3,
                .billingIssue: 2, .autoRenewOff: 2, .autoRenewOn: 1, .expiration: 1,
            ])
        #expect(try analytics.events(from: from, to: to, asOf: Self.asOf).expirationReasons == [.voluntary: 1])

        let february = Wire.at("2025-02-25T00:00:00Z")
        #expect(
            try analytics.states(asOf: february, scope: ReportScope(productId: SubscriberStory.premium)).counts
                == [.standard: 1])
        #expect(try analytics.states(asOf: february, scope: ReportScope(productId: SubscriberStory.pro)).total == 0)
        // In grace the subscription counts under the failed period's product.
        #expect(
            try analytics.states(asOf: Wire.at("2025-06-21T00:00:00Z"), scope: ReportScope(productId: SubscriberStory.pro))
                .counts == [.gracePeriod: 1])
    }

    /// Offer suggestions on the story. At 08-15: active on T8 (31 days) with auto-renew off and
    /// 7 paid periods, 2 billing failures in the last 365 days: retention, upgrade (≥ 6 paid
    /// periods on a period under 60 days) and service; not loyalty (< 12). At 09-01: ended
    /// voluntary on 08-29 (within 180 days), nothing open: winBack, and still service.
    @Test(arguments: ["v1", "v2"]) func offerEligibilityAlongTheStory(format: String) throws {
        let analytics = format == "v1" ? try Self.v1Store() : try Self.v2Store()
        func offers(_ iso: String) throws -> [String] {
            try analytics.eligibility(asOf: Wire.at(iso)).map { "\($0.offer.rawValue): \($0.detail)" }
        }
        #expect(
            try offers("2025-08-15T00:00:00Z") == [
                "retention: auto-renew off, standard",
                "upgrade: 7 paid periods of 31 days",
                "service: 2 billing failures in 365 days",
            ])
        #expect(
            try offers("2025-09-01T00:00:00Z") == [
                "winBack: ended voluntary 2025-08-29",
                "service: 2 billing failures in 365 days",
            ])
        // In grace on 06-21: service because of the grace period itself.
        #expect(try offers("2025-06-21T00:00:00Z") == ["service: in gracePeriod"])
    }

    /// "Within the last N days" is the half-open window [event, event + N d): win-back from the end
    /// (08-29 15:30) until 180 days later, 2026-02-25 15:30 (2 d to 08-31, +30 +31 +30 +31 +31 =
    /// 155 to 01-31, +25), excluded; service while both failures (04-20 15:30, 06-20 15:30) are
    /// within 365 days: until 2026-04-20 15:30, excluded.
    @Test func offerWindowsAreHalfOpen() throws {
        let analytics = try Self.v2Store()
        func offers(_ asOf: Instant) throws -> [OfferFlagKind] { try analytics.eligibility(asOf: asOf).map(\.offer) }
        let winBackEnds = Wire.at("2026-02-25T15:30:00Z")
        #expect(try offers(winBackEnds.adding(milliseconds: -1)) == [.winBackOffer, .service])
        #expect(try offers(winBackEnds) == [.service])
        let serviceEnds = Wire.at("2026-04-20T15:30:00Z")
        #expect(try offers(serviceEnds.adding(milliseconds: -1)) == [.service])
        #expect(try offers(serviceEnds) == [])
    }

    /// The story is one cohort member: its first paid period is T1 (January), and it counts T2…T8
    /// (T1 was cut by the upgrade: not a renewal; the two recoveries continue the run), so
    /// paidPeriods = 7 and retained[k] = 1 while 7 ≥ k + 1, i.e. k = 1…6; the run has ended by
    /// 09-01 with exactly 7 paid periods: ended[7] = 1, so the rate falls to 0 at P7 and stays 0.
    @Test(arguments: ["v1", "v2"]) func cohortOfTheStory(format: String) throws {
        let analytics = format == "v1" ? try Self.v1Store() : try Self.v2Store()
        let ended = try analytics.cohorts(asOf: Self.asOf, periods: 8, to: Month(year: 2025, month: 1))
        #expect(
            CohortsOutput(ended, store: "test.sqlite").json == """
                {"asOf":"2025-09-01T00:00:00Z","periods":8,"cohorts":[{"month":"2025-01","started":1,\
                "retained":[1,1,1,1,1,1,0,0],"ended":[0,0,0,0,0,0,1,0],"rate":[1,1,1,1,1,1,0,0]}],\
                "average":{"retained":[1,1,1,1,1,1,0,0],"ended":[0,0,0,0,0,0,1,0],"rate":[1,1,1,1,1,1,0,0]}}
                """)
        // On 06-25 (in billing retry, the run open): T2…T6 = 5 paid periods; the later cells are
        // not known yet (censored): eligible 0, rate null.
        let open = try analytics.cohorts(asOf: Wire.at("2025-06-25T00:00:00Z"), periods: 8, to: Month(year: 2025, month: 1))
        #expect(
            CohortsOutput(open, store: "test.sqlite").json == """
                {"asOf":"2025-06-25T00:00:00Z","periods":8,"cohorts":[{"month":"2025-01","started":1,\
                "retained":[1,1,1,1,0,0,0,0],"ended":[0,0,0,0,0,0,0,0],"rate":[1,1,1,1,null,null,null,null]}],\
                "average":{"retained":[1,1,1,1,0,0,0,0],"ended":[0,0,0,0,0,0,0,0],"rate":[1,1,1,1,null,null,null,null]}}
                """)
    }

    /// Every id of the story finds it: a later transactionId, the appAccountToken, a webOrderLineItemId.
    @Test func anyIdFindsTheStory() throws {
        let analytics = try Self.v2Store()
        #expect(try Self.report(analytics, "2000000100000005").originalTransactionId == SubscriberStory.original)
        #expect(try Self.report(analytics, SubscriberStory.token).originalTransactionId == SubscriberStory.original)
        #expect(try Self.report(analytics, "2000000090000003").originalTransactionId == SubscriberStory.original)
        #expect(try Self.report(try Self.v1Store(), "2000000090000001").originalTransactionId == SubscriberStory.original)
    }
}
