import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import Testing

@testable import LifecycleSimulator

/// States, events, refunds and delivery order through the store: signed v2 payloads imported by
/// `Importer.appStore`, then the SQL reports over the rows import materialised.
///
/// Three subscribers (2025, UTC), all `com.example.pro.monthly`:
/// - **X**: X1 02-15 → 03-15; the renewal fails at 03-15 with no grace period; Apple gives up
///   with EXPIRED/BILLING_RETRY at 04-10 06:00. Retry end = min(03-15 + 60 d, 04-10 06:00) =
///   04-10 06:00. billingRetry [03-15, 04-10 06:00), expired after; the run ends there, `billing`.
/// - **R**: R1 03-01 → 04-01; fails at 04-01 with a 16-day grace period to 04-17; grace expires,
///   never recovered, nothing more is sent. Retry end = 04-01 + 60 d = 05-31 (29 days to 04-30,
///   31 in May). gracePeriod [04-01, 04-17), billingRetry [04-17, 05-31), expired after; `billing`.
/// - **F**: F1 03-10 → 04-10, renews F2 04-10 → 05-10, F2 refunded at 04-20 12:00. F2's end =
///   min(05-10, 04-20 12:00) = 04-20 12:00; it is refunded (revoked, no upgrade), so not paid.
///   The run ends at 04-20 12:00, `refund`.
/// - **G**: G1 05-01 → 06-01 00:00, renewed 12 h late: G2 06-01 12:00 → 07-01 12:00. A gap of at
///   most 24 h: `renewal`, one run; `expired` during the gap, but no expiration event.
@Suite struct StoreBoundaryTests {
    static let pro = "com.example.pro.monthly"
    static let asOf = Wire.at("2025-07-01T00:00:00Z")

    static func transaction(
        _ id: String, original: String, _ start: String, _ expires: String,
        revokedAt: String? = nil
    ) -> WireTransaction {
        WireTransaction(
            transactionId: id, originalTransactionId: original, webOrderLineItemId: "9" + id.dropFirst(),
            productId: pro, purchaseDate: Wire.at(start), originalPurchaseDate: Wire.at(start),
            expiresDate: Wire.at(expires), price: 9990, revocationDate: revokedAt.map(Wire.at),
            revocationReason: revokedAt == nil ? nil : 1, isRenewal: id != original)
    }

    static func documents(_ jws: CompactJWS) -> [String] {
        var n = 0
        func note(
            _ type: String, _ subtype: String?, _ at: String, status: Int = 1, _ t: WireTransaction,
            retry: Bool? = nil, grace: String? = nil, intent: Int? = nil
        ) -> String {
            n += 1
            let renewal = WireRenewal(
                productId: pro, autoRenewProductId: pro, isInBillingRetryPeriod: retry,
                gracePeriodExpiresDate: grace.map(Wire.at), expirationIntent: intent)
            return Wire.v2(
                type, subtype, uuid: "0b5e7d10-0000-4000-8000-0000000001\(n < 10 ? "0" : "")\(n)",
                signedDate: Wire.at(at), status: status, transaction: t, renewal: renewal, jws: jws)
        }
        let x1 = transaction("3000000000000002", original: "3000000000000002", "2025-02-15T00:00:00Z", "2025-03-15T00:00:00Z")
        let r1 = transaction("3000000000000001", original: "3000000000000001", "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z")
        let f1 = transaction("3000000000000003", original: "3000000000000003", "2025-03-10T00:00:00Z", "2025-04-10T00:00:00Z")
        let f2 = transaction("3000000000000013", original: "3000000000000003", "2025-04-10T00:00:00Z", "2025-05-10T00:00:00Z")
        let f2Refunded = transaction(
            "3000000000000013", original: "3000000000000003", "2025-04-10T00:00:00Z",
            "2025-05-10T00:00:00Z", revokedAt: "2025-04-20T12:00:00Z")
        let g1 = transaction("3000000000000005", original: "3000000000000005", "2025-05-01T00:00:00Z", "2025-06-01T00:00:00Z")
        let g2 = transaction("3000000000000015", original: "3000000000000005", "2025-06-01T12:00:00Z", "2025-07-01T12:00:00Z")
        return [
            note("SUBSCRIBED", "INITIAL_BUY", "2025-02-15T00:00:00Z", x1),
            note("DID_FAIL_TO_RENEW", nil, "2025-03-15T00:00:00Z", status: 3, x1, retry: true),
            note("EXPIRED", "BILLING_RETRY", "2025-04-10T06:00:00Z", status: 2, x1, retry: false, intent: 2),
            note("SUBSCRIBED", "INITIAL_BUY", "2025-03-01T00:00:00Z", r1),
            note(
                "DID_FAIL_TO_RENEW", "GRACE_PERIOD", "2025-04-01T00:00:00Z", status: 4, r1, retry: true,
                grace: "2025-04-17T00:00:00Z"),
            note("GRACE_PERIOD_EXPIRED", nil, "2025-04-17T00:00:00Z", status: 3, r1, retry: true, grace: "2025-04-17T00:00:00Z"),
            note("SUBSCRIBED", "INITIAL_BUY", "2025-03-10T00:00:00Z", f1),
            note("DID_RENEW", nil, "2025-04-10T00:00:00Z", f2),
            note("REFUND", nil, "2025-04-20T12:00:00Z", status: 5, f2Refunded),
            note("SUBSCRIBED", "INITIAL_BUY", "2025-05-01T00:00:00Z", g1),
            note("DID_RENEW", nil, "2025-06-01T12:00:00Z", g2),
        ]
    }

    static func store() throws -> SubscriberAnalytics {
        let chain = try Wire.chain()
        let (analytics, rejected) = try Wire.store(documents(try CompactJWS(chain: chain)), chain: chain)
        #expect(rejected == [])
        return analytics
    }

    // MARK: - States on boundaries

    /// `report states` at instants on and next to every boundary. Periods are [start, end): the
    /// start instant is in the period, the end instant is not. One millisecond before is the
    /// last instant of the previous state.
    @Test(arguments: [
        // (instant, standard, gracePeriod, billingRetry, expired)
        ("2025-02-14T23:59:59.999Z", 0, 0, 0, 0),  // nobody started yet
        ("2025-02-15T00:00:00Z", 1, 0, 0, 0),  // X1 starts (inclusive)
        ("2025-03-01T00:00:00Z", 2, 0, 0, 0),  // R1 starts
        ("2025-03-14T23:59:59.999Z", 3, 0, 0, 0),  // X, R, F all standard
        ("2025-03-15T00:00:00Z", 2, 0, 1, 0),  // X1 ends (exclusive): X fails, no grace → billingRetry
        ("2025-04-01T00:00:00Z", 1, 1, 1, 0),  // R1 ends: R in grace; X in retry; F standard
        ("2025-04-10T00:00:00Z", 1, 1, 1, 0),  // F1 → F2 with no gap: F standard throughout
        ("2025-04-10T05:59:59.999Z", 1, 1, 1, 0),  // X still in retry
        ("2025-04-10T06:00:00Z", 1, 1, 0, 1),  // EXPIRED/BILLING_RETRY: X expired
        ("2025-04-16T23:59:59.999Z", 1, 1, 0, 1),  // R: last instant of grace
        ("2025-04-17T00:00:00Z", 1, 0, 1, 1),  // R: grace over, billing retry goes on
        ("2025-04-20T11:59:59.999Z", 1, 0, 1, 1),  // F2 still covers
        ("2025-04-20T12:00:00Z", 0, 0, 1, 2),  // F2 refunded: its end is the revocation
        ("2025-04-30T23:59:59.999Z", 0, 0, 1, 2),
        ("2025-05-01T00:00:00Z", 1, 0, 1, 2),  // G1 starts
        ("2025-05-30T23:59:59.999Z", 1, 0, 1, 2),  // R: last instant of retry
        ("2025-05-31T00:00:00Z", 1, 0, 0, 3),  // R: retry end = T + 60 d
        ("2025-06-01T00:00:00Z", 0, 0, 0, 4),  // G1 ends: G in the ≤ 24 h gap is expired
        ("2025-06-01T11:59:59.999Z", 0, 0, 0, 4),
        ("2025-06-01T12:00:00Z", 1, 0, 0, 3),  // G2 starts
        ("2025-07-01T12:00:00Z", 0, 0, 0, 4),  // G2 ends
    ])
    func statesOnBoundaries(instant: String, standard: Int, grace: Int, retry: Int, expired: Int) throws {
        let analytics = try Self.store()
        let at = Wire.at(instant)
        let states = try analytics.states(asOf: at)
        let active = standard + grace
        #expect(
            StatesOutput(states).json == """
                {"asOf":"\(at.iso8601)","counts":{"standard":\(standard),"freeTrial":0,"introductory":0,"promotional":0,\
                "offerCode":0,"winBack":0,"gracePeriod":\(grace),"billingRetry":\(retry),"expired":\(expired)},"active":\(active)}
                """)
        // The per-subscriber reading (Swift) agrees with the population one (SQL).
        var fromSubscribers: [SubscriptionState: Int] = [:]
        for id in ["3000000000000001", "3000000000000002", "3000000000000003", "3000000000000005"] {
            guard case .found(let r) = try analytics.subscriber(id, asOf: at) else {
                Issue.record("\(id) not found")
                continue
            }
            if let s = r.state { fromSubscribers[s, default: 0] += 1 }
        }
        #expect(fromSubscribers == states.counts.filter { $0.value > 0 })
    }

    @Test func subscriberFiguresInGraceAndRetry() throws {
        let analytics = try Self.store()
        guard case .found(let grace) = try analytics.subscriber("3000000000000001", asOf: Wire.at("2025-04-05T00:00:00Z")),
            case .found(let retry) = try analytics.subscriber("3000000000000001", asOf: Wire.at("2025-04-17T00:00:00Z")),
            case .found(let after) = try analytics.subscriber("3000000000000001", asOf: Wire.at("2025-05-31T00:00:00Z"))
        else {
            Issue.record("R not found")
            return
        }
        #expect(grace.state == .gracePeriod)
        #expect(grace.inBillingRetry && grace.gracePeriodExpires == Wire.at("2025-04-17T00:00:00Z"))
        #expect(grace.expirationReason == nil)
        #expect(retry.state == .billingRetry)
        #expect(retry.inBillingRetry && retry.gracePeriodExpires == nil)
        #expect(retry.expirationReason == nil)
        #expect(after.state == .expired)
        #expect(!after.inBillingRetry)
        #expect(after.expirationReason == .billing)
    }

    // MARK: - Events in half-open ranges

    /// Events (hand-listed): X activation 02-15, billingIssue 03-15, expiration(billing) 04-10 06:00;
    /// R activation 03-01, billingIssue 04-01, expiration(billing) 05-31; F activation 03-10,
    /// renewal 04-10, refund 04-20 12:00, expiration(refund) 04-20 12:00; G activation 05-01,
    /// renewal 06-01 12:00 and no expiration for the gap before it (its run ends 07-01 12:00).
    @Test func eventsInHalfOpenRanges() throws {
        let analytics = try Self.store()
        func json(_ from: String, _ to: String, asOf: Instant = Self.asOf) throws -> String {
            EventsOutput(try analytics.events(from: Wire.at(from), to: Wire.at(to), asOf: asOf)).json
        }
        func expected(
            _ from: String, _ to: String, activation: Int = 0, renewal: Int = 0, billingIssue: Int = 0,
            refund: Int = 0, billing: Int = 0, byRefund: Int = 0
        ) -> String {
            """
            {"from":"\(from)","to":"\(to)","counts":{"activation":\(activation),"reactivation":0,"renewal":\(renewal),\
            "conversion":0,"billingRecovery":0,"productChange":0,"billingIssue":\(billingIssue),"autoRenewOff":0,\
            "autoRenewOn":0,"refund":\(refund),"expiration":\(billing + byRefund)},"expirationReasons":{"voluntary":0,\
            "billing":\(billing),"priceIncrease":0,"productUnavailable":0,"refund":\(byRefund),"sharingRevoked":0,"other":0}}
            """
        }
        // R's activation at 03-01 00:00 belongs to the range that starts there, not the one that ends there.
        #expect(
            try json("2025-02-01T00:00:00Z", "2025-03-01T00:00:00Z")
                == expected("2025-02-01T00:00:00Z", "2025-03-01T00:00:00Z", activation: 1))
        // R's billing issue at 04-01 00:00 is left out of [03-01, 04-01).
        #expect(
            try json("2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z")
                == expected("2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z", activation: 2, billingIssue: 1))
        // The refund at 04-20 12:00 is left out of a range ending at 04-20 12:00.
        #expect(
            try json("2025-04-01T00:00:00Z", "2025-04-20T12:00:00Z")
                == expected("2025-04-01T00:00:00Z", "2025-04-20T12:00:00Z", renewal: 1, billingIssue: 1, billing: 1))
        #expect(
            try json("2025-04-20T12:00:00Z", "2025-05-31T00:00:00Z")
                == expected("2025-04-20T12:00:00Z", "2025-05-31T00:00:00Z", activation: 1, refund: 1, byRefund: 1))
        #expect(
            try json("2025-05-31T00:00:00Z", "2025-06-01T00:00:00Z")
                == expected("2025-05-31T00:00:00Z", "2025-06-01T00:00:00Z", billing: 1))
        // G's gap [06-01 00:00, 06-01 12:00) has no event; the renewal closes it.
        #expect(
            try json("2025-06-01T00:00:00Z", "2025-06-01T12:00:00Z")
                == expected("2025-06-01T00:00:00Z", "2025-06-01T12:00:00Z"))
        #expect(
            try json("2025-06-01T12:00:00Z", "2025-07-01T00:00:00Z")
                == expected("2025-06-01T12:00:00Z", "2025-07-01T00:00:00Z", renewal: 1))
        // The seven ranges above are consecutive; together they are the whole.
        #expect(
            try json("2025-02-01T00:00:00Z", "2025-07-01T00:00:00Z")
                == expected(
                    "2025-02-01T00:00:00Z", "2025-07-01T00:00:00Z", activation: 4, renewal: 2, billingIssue: 2,
                    refund: 1, billing: 2, byRefund: 1))
        // An event exactly at as-of counts; one millisecond earlier it does not (G's activation
        // on 05-01 counts in both).
        #expect(
            try json("2025-05-01T00:00:00Z", "2025-06-01T00:00:00Z", asOf: Wire.at("2025-05-31T00:00:00Z"))
                == expected("2025-05-01T00:00:00Z", "2025-06-01T00:00:00Z", activation: 1, billing: 1))
        #expect(
            try json("2025-05-01T00:00:00Z", "2025-06-01T00:00:00Z", asOf: Wire.at("2025-05-30T23:59:59.999Z"))
                == expected("2025-05-01T00:00:00Z", "2025-06-01T00:00:00Z", activation: 1))
        // An empty range and a range after as-of are honest zeros.
        #expect(
            try json("2025-04-01T00:00:00Z", "2025-04-01T00:00:00Z")
                == expected("2025-04-01T00:00:00Z", "2025-04-01T00:00:00Z"))
        #expect(
            try json("2025-08-01T00:00:00Z", "2025-09-01T00:00:00Z")
                == expected("2025-08-01T00:00:00Z", "2025-09-01T00:00:00Z"))
    }

    /// `report recovery` of X (T 03-15, retry end 04-10 06:00) and R (T 04-01, retry end 05-31):
    /// pending until the retry end, expired from it; never recovered.
    @Test(arguments: [
        // (as-of, failures, expired, pending)
        ("2025-03-14T23:59:59.999Z", 0, 0, 0),  // T ≤ as-of: X's failure has not happened yet
        ("2025-03-15T00:00:00Z", 1, 0, 1),
        ("2025-04-10T05:59:59.999Z", 2, 0, 2),
        ("2025-04-10T06:00:00Z", 2, 1, 1),  // X: retry end ≤ as-of
        ("2025-05-30T23:59:59.999Z", 2, 1, 1),
        ("2025-05-31T00:00:00Z", 2, 2, 0),  // R: T + 60 d
    ])
    func recoveryOnBoundaries(asOf: String, failures: Int, expired: Int, pending: Int) throws {
        let r = try Self.store().recovery(
            from: Wire.at("2025-03-01T00:00:00Z"), to: Wire.at("2025-05-01T00:00:00Z"),
            asOf: Wire.at(asOf))
        #expect(r.failures == failures && r.expired == expired && r.pending == pending && r.recovered == 0)
        #expect(r.recoveredWithinDays.values.allSatisfy { $0 == 0 })
    }

    // MARK: - Refunds

    /// F: the refunded renewal is a period (refunded, not paid), ends at the revocation, and ends
    /// the run with reason `refund`.
    @Test func refundedPeriod() throws {
        let analytics = try Self.store()
        guard case .found(let f) = try analytics.subscriber("3000000000000003", asOf: Self.asOf) else {
            Issue.record("F not found")
            return
        }
        #expect(
            SubscriberOutput(f).json == """
                {"originalTransactionId":"3000000000000003","environment":"Production","ownership":"purchased","userId":null,"email":null,"appAccountToken":null,\
                "productId":"com.example.pro.monthly","state":"expired","autoRenew":true,\
                "autoRenewProductId":"com.example.pro.monthly","inBillingRetry":false,"gracePeriodExpires":null,\
                "expirationReason":"refund","priceIncrease":null,"paidPeriods":1,"billingFailures":0,"accessEnd":{"kind":"expiredOn","at":"2025-04-20T12:00:00Z"},"billingRetry":null,"periods":[\
                {"transactionId":"3000000000000003","productId":"com.example.pro.monthly","start":"2025-03-10T00:00:00Z","end":"2025-04-10T00:00:00Z","offerKind":"standard","class":"activation","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":9.99,"currency":"USD","refundAmount":null,"upgradeCredit":null},\
                {"transactionId":"3000000000000013","productId":"com.example.pro.monthly","start":"2025-04-10T00:00:00Z","end":"2025-04-20T12:00:00Z","offerKind":"standard","class":"renewal","refunded":true,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":9.99,"currency":"USD","refundAmount":9.99,"upgradeCredit":null}],\
                "events":[{"at":"2025-03-10T00:00:00Z","type":"activation","productId":"com.example.pro.monthly","expirationReason":null},{"at":"2025-04-10T00:00:00Z","type":"renewal","productId":"com.example.pro.monthly","expirationReason":null},\
                {"at":"2025-04-20T12:00:00Z","type":"refund","productId":"com.example.pro.monthly","expirationReason":null},{"at":"2025-04-20T12:00:00Z","type":"expiration","productId":"com.example.pro.monthly","expirationReason":"refund"}],"flags":[],"paid":{"USD":9.99},"paidServiceDays":31,"commitment":null,"renewalPrice":null,"renewalCurrency":null,"eligibleWinBackOfferIds":[],"appTransactionId":null,"appTransactionSubscriptions":[]}
                """)
        // Before the refund was made, F2 was paid: the refund is dated, and as-of reads it then.
        guard case .found(let before) = try analytics.subscriber("3000000000000003", asOf: Wire.at("2025-04-15T00:00:00Z")) else {
            Issue.record("F not found")
            return
        }
        // paidPeriods counts F1 only: F2 is refunded, and a refund stored now changes the past
        // figures it belongs to ("--as-of moves the reading instant, not what is known").
        #expect(before.paidPeriods == 1)
        #expect(before.state == .standard)
    }

    /// Two more ways out of a grace period (2025, grace 06-01 00:00 → 06-17 00:00 for both):
    /// - **K** is charged inside grace on 06-03 06:00; the recovered K2 keeps the anniversary
    ///   (expires 07-01) but starts at the charge: grace [06-01, 06-03 06:00), then standard;
    ///   recovered after 2.25 days (≤ 3).
    /// - **L** turns auto-renew off in grace on 06-05 09:00: Apple stops retrying, so the retry
    ///   ends there (the first auto-renew-off toggle after T): grace to 06-05 09:00, then
    ///   expired; the run ends at 06-05 09:00, `billing` (a failure at its end, even though the
    ///   subscriber then turned auto-renew off). At that instant the toggle comes before the
    ///   expiration it caused.
    @Test func leavingGraceByARecoveryOrByCancelling() throws {
        let chain = try Wire.chain()
        let jws = try CompactJWS(chain: chain)
        var n = 400
        func note(
            _ type: String, _ subtype: String?, _ at: String, status: Int = 1, _ t: WireTransaction,
            on: Bool = true, retry: Bool? = nil
        ) -> String {
            n += 1
            let renewal = WireRenewal(
                productId: Self.pro, autoRenewProductId: Self.pro, autoRenewStatus: on,
                isInBillingRetryPeriod: retry,
                gracePeriodExpiresDate: retry == true ? Wire.at("2025-06-17T00:00:00Z") : nil)
            return Wire.v2(
                type, subtype, uuid: "0b5e7d10-0000-4000-8000-000000000\(n)", signedDate: Wire.at(at),
                status: status, transaction: t, renewal: renewal, jws: jws)
        }
        let k1 = Self.transaction(
            "3000000000000007", original: "3000000000000007", "2025-05-01T00:00:00Z", "2025-06-01T00:00:00Z")
        let k2 = Self.transaction(
            "3000000000000017", original: "3000000000000007", "2025-06-03T06:00:00Z", "2025-07-01T00:00:00Z")
        let l1 = Self.transaction(
            "3000000000000008", original: "3000000000000008", "2025-05-01T00:00:00Z", "2025-06-01T00:00:00Z")
        let documents = [
            note("SUBSCRIBED", "INITIAL_BUY", "2025-05-01T00:00:00Z", k1),
            note("DID_FAIL_TO_RENEW", "GRACE_PERIOD", "2025-06-01T00:00:00Z", status: 4, k1, retry: true),
            note("DID_RENEW", "BILLING_RECOVERY", "2025-06-03T06:00:00Z", k2, retry: false),
            note("SUBSCRIBED", "INITIAL_BUY", "2025-05-01T00:00:00Z", l1),
            note("DID_FAIL_TO_RENEW", "GRACE_PERIOD", "2025-06-01T00:00:00Z", status: 4, l1, retry: true),
            note(
                "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", "2025-06-05T09:00:00Z", status: 4, l1, on: false,
                retry: true),
        ]
        let (analytics, rejected) = try Wire.store(documents, chain: chain)
        #expect(rejected == [])
        func states(_ iso: String) throws -> [SubscriptionState: Int] {
            try analytics.states(asOf: Wire.at(iso)).counts.filter { $0.value > 0 }
        }
        #expect(try states("2025-05-31T23:59:59.999Z") == [.standard: 2])
        #expect(try states("2025-06-01T00:00:00Z") == [.gracePeriod: 2])
        #expect(try states("2025-06-03T05:59:59.999Z") == [.gracePeriod: 2])
        #expect(try states("2025-06-03T06:00:00Z") == [.standard: 1, .gracePeriod: 1])
        #expect(try states("2025-06-05T08:59:59.999Z") == [.standard: 1, .gracePeriod: 1])
        #expect(try states("2025-06-05T09:00:00Z") == [.standard: 1, .expired: 1])

        let recovery = try analytics.recovery(
            from: Wire.at("2025-06-01T00:00:00Z"), to: Wire.at("2025-07-01T00:00:00Z"),
            asOf: Wire.at("2025-06-20T00:00:00Z"))
        #expect(
            RecoveryOutput(recovery).json == """
                {"from":"2025-06-01T00:00:00Z","to":"2025-07-01T00:00:00Z","asOf":"2025-06-20T00:00:00Z","failures":2,\
                "recovered":1,"expired":1,"pending":0,"recoveredWithinDays":{"3":1,"7":1,"16":1,"30":1,"60":1}}
                """)

        guard case .found(let l) = try analytics.subscriber("3000000000000008", asOf: Wire.at("2025-06-20T00:00:00Z")) else {
            Issue.record("L not found")
            return
        }
        #expect(l.expirationReason == .billing)
        #expect(
            l.events.map { "\($0.at.iso8601) \($0.type.rawValue)" } == [
                "2025-05-01T00:00:00Z activation", "2025-06-01T00:00:00Z billingIssue", "2025-06-05T09:00:00Z autoRenewOff",
                "2025-06-05T09:00:00Z expiration",
            ])
    }

    /// A refund of a period that had already ended: H1 (03-01 → 04-01) renewed into H2 on 04-01,
    /// and H1 was refunded on 04-15, while H2 ran. H1 is refunded (not paid), the refund is an
    /// event at 04-15, but the subscriber never lost access: H2 is a `renewal` of the same run,
    /// not a reactivation after an expiration dated 04-01, before the refund that would have
    /// caused it (docs/metrics.md).
    @Test func refundOfAnEndedPeriodDoesNotEndTheRun() throws {
        let chain = try Wire.chain()
        let jws = try CompactJWS(chain: chain)
        let original = "3000000000000006"
        let h1 = Self.transaction(original, original: original, "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z")
        let h2 = Self.transaction("3000000000000016", original: original, "2025-04-01T00:00:00Z", "2025-05-01T00:00:00Z")
        let h1Refunded = Self.transaction(
            original, original: original, "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z",
            revokedAt: "2025-04-15T00:00:00Z")
        let renewal = WireRenewal(productId: Self.pro, autoRenewProductId: Self.pro)
        let documents = [
            Wire.v2(
                "SUBSCRIBED", "INITIAL_BUY", uuid: "0b5e7d10-0000-4000-8000-000000000301",
                signedDate: Wire.at("2025-03-01T00:00:00Z"), status: 1, transaction: h1, renewal: renewal, jws: jws),
            Wire.v2(
                "DID_RENEW", nil, uuid: "0b5e7d10-0000-4000-8000-000000000302",
                signedDate: Wire.at("2025-04-01T00:00:00Z"), status: 1, transaction: h2, renewal: renewal, jws: jws),
            Wire.v2(
                "REFUND", nil, uuid: "0b5e7d10-0000-4000-8000-000000000303",
                signedDate: Wire.at("2025-04-15T00:00:00Z"), status: 1, transaction: h1Refunded, renewal: renewal, jws: jws),
        ]
        let (analytics, rejected) = try Wire.store(documents, chain: chain)
        #expect(rejected == [])
        guard case .found(let r) = try analytics.subscriber(original, asOf: Wire.at("2025-04-20T00:00:00Z")) else {
            Issue.record("not found")
            return
        }
        expectSameJSON(
            SubscriberOutput(r).json,
            """
            {"originalTransactionId":"3000000000000006","environment":"Production","ownership":"purchased","userId":null,"email":null,"appAccountToken":null,\
            "productId":"com.example.pro.monthly","state":"standard","autoRenew":true,\
            "autoRenewProductId":"com.example.pro.monthly","inBillingRetry":false,"gracePeriodExpires":null,\
            "expirationReason":null,"priceIncrease":null,"paidPeriods":1,"billingFailures":0,"accessEnd":{"kind":"renewsOn","at":"2025-05-01T00:00:00Z"},"billingRetry":null,"periods":[\
            {"transactionId":"3000000000000006","productId":"com.example.pro.monthly","start":"2025-03-01T00:00:00Z","end":"2025-04-01T00:00:00Z","offerKind":"standard","class":"activation","refunded":true,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":9.99,"currency":"USD","refundAmount":9.99,"upgradeCredit":null},\
            {"transactionId":"3000000000000016","productId":"com.example.pro.monthly","start":"2025-04-01T00:00:00Z","end":"2025-05-01T00:00:00Z","offerKind":"standard","class":"renewal","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":9.99,"currency":"USD","refundAmount":null,"upgradeCredit":null}],\
            "events":[{"at":"2025-03-01T00:00:00Z","type":"activation","productId":"com.example.pro.monthly","expirationReason":null},{"at":"2025-04-01T00:00:00Z","type":"renewal","productId":"com.example.pro.monthly","expirationReason":null},\
            {"at":"2025-04-15T00:00:00Z","type":"refund","productId":"com.example.pro.monthly","expirationReason":null}],"flags":[],"paid":{"USD":9.99},"paidServiceDays":19,"commitment":null,"renewalPrice":null,"renewalCurrency":null,"eligibleWinBackOfferIds":[],"appTransactionId":null,"appTransactionSubscriptions":[]}
            """)
        // Through the store: no expiration anywhere in March–April, one refund; the cohort member
        // starts with H2 (H1 is not paid), in April.
        let events = try analytics.events(
            from: Wire.at("2025-03-01T00:00:00Z"), to: Wire.at("2025-05-01T00:00:00Z"),
            asOf: Wire.at("2025-04-20T00:00:00Z"))
        #expect(events.counts.filter { $0.value > 0 } == [.activation: 1, .renewal: 1, .refund: 1])
        let grid = try analytics.cohorts(asOf: Wire.at("2025-04-20T00:00:00Z"), periods: 1)
        #expect(grid.cohorts.map(\.month.description) == ["2025-04"])
        #expect(grid.cohorts.map(\.started) == [1])
    }

    /// The same refund told in v1 (Apple's table: "AppleCare refunded a subscription: CANCEL,
    /// DID_CHANGE_RENEWAL_STATUS"): the cancelled row has `cancellation_date_ms` and no
    /// `is_upgraded`, so it is a refund. The system turns auto-renew off 5 s after the refund,
    /// after the run ended: still a toggle that changes the status, so an `autoRenewOff` event.
    @Test func v1RefundThroughCancel() throws {
        let original = "3000000000000004"
        let v1 = Self.transaction(original, original: original, "2025-03-10T00:00:00Z", "2025-04-10T00:00:00Z")
        let v2 = Self.transaction("3000000000000014", original: original, "2025-04-10T00:00:00Z", "2025-05-10T00:00:00Z")
        let v2Refunded = Self.transaction(
            "3000000000000014", original: original, "2025-04-10T00:00:00Z",
            "2025-05-10T00:00:00Z", revokedAt: "2025-04-20T12:00:00Z")
        let renewing = WireRenewal(productId: Self.pro, autoRenewProductId: Self.pro)
        var off = renewing
        off.autoRenewStatus = false
        let documents = [
            Wire.v1("INITIAL_BUY", original: original, rows: [v1], renewal: renewing),
            Wire.v1("DID_RENEW", original: original, rows: [v1, v2], renewal: renewing),
            Wire.v1("CANCEL", original: original, rows: [v1, v2Refunded], renewal: renewing),
            Wire.v1(
                "DID_CHANGE_RENEWAL_STATUS", original: original, rows: [v1, v2Refunded], renewal: off,
                autoRenewChangeDate: Wire.at("2025-04-20T12:00:05Z")),
        ]
        let (analytics, rejected) = try Wire.store(documents, chain: try Wire.chain())
        #expect(rejected == [])
        guard case .found(let r) = try analytics.subscriber(original, asOf: Self.asOf) else {
            Issue.record("not found")
            return
        }
        expectSameJSON(
            SubscriberOutput(r).json,
            """
            {"originalTransactionId":"3000000000000004","environment":"Production","ownership":"purchased","userId":null,"email":null,"appAccountToken":null,\
            "productId":"com.example.pro.monthly","state":"expired","autoRenew":false,\
            "autoRenewProductId":"com.example.pro.monthly","inBillingRetry":false,"gracePeriodExpires":null,\
            "expirationReason":"refund","priceIncrease":null,"paidPeriods":1,"billingFailures":0,"accessEnd":{"kind":"expiredOn","at":"2025-04-20T12:00:00Z"},"billingRetry":null,"periods":[\
            {"transactionId":"3000000000000004","productId":"com.example.pro.monthly","start":"2025-03-10T00:00:00Z","end":"2025-04-10T00:00:00Z","offerKind":"standard","class":"activation","refunded":false,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":null,"currency":null,"refundAmount":null,"upgradeCredit":null},\
            {"transactionId":"3000000000000014","productId":"com.example.pro.monthly","start":"2025-04-10T00:00:00Z","end":"2025-04-20T12:00:00Z","offerKind":"standard","class":"renewal","refunded":true,"billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"price":null,"currency":null,"refundAmount":null,"upgradeCredit":null}],\
            "events":[{"at":"2025-03-10T00:00:00Z","type":"activation","productId":"com.example.pro.monthly","expirationReason":null},{"at":"2025-04-10T00:00:00Z","type":"renewal","productId":"com.example.pro.monthly","expirationReason":null},\
            {"at":"2025-04-20T12:00:00Z","type":"refund","productId":"com.example.pro.monthly","expirationReason":null},{"at":"2025-04-20T12:00:00Z","type":"expiration","productId":"com.example.pro.monthly","expirationReason":"refund"},\
            {"at":"2025-04-20T12:00:05Z","type":"autoRenewOff","productId":"com.example.pro.monthly","expirationReason":null}],"flags":[],"paid":{},"paidServiceDays":31,"commitment":null,"renewalPrice":null,"renewalCurrency":null,"eligibleWinBackOfferIds":[],"appTransactionId":null,"appTransactionSubscriptions":[]}
            """)
        // The data horizon is the toggle's own date (the latest fact instant).
        #expect(try analytics.dataHorizon() == Wire.at("2025-04-20T12:00:05Z"))
    }

    /// v2 notifications up to the 08-10 toggle of the story, then a `/verifyReceipt` response
    /// (v1 shape) showing T8 refunded on 08-15 10:00. The v1 copy of T8 is dated by its
    /// cancellation, after every v2 copy (signed 07-29 and 08-10, none revoked): it is the latest
    /// word on T8, and the refund must not be lost because the older copies are v2.
    @Test func laterRefundInAV1CopyBeatsOlderV2Copies() throws {
        let chain = try Wire.chain()
        let v2 = Array(SubscriberStory.v2Documents(try CompactJWS(chain: chain)).dropLast())  // no EXPIRED
        var t8 = SubscriberStory.t8
        t8.revocationDate = Wire.at("2025-08-15T10:00:00Z")
        t8.revocationReason = 0
        let s = SubscriberStory.self
        let receipt = Wire.verifyReceipt(
            original: s.original, rows: [s.t1Upgraded, s.t2, s.t3, s.t4, s.t5, s.t6, s.t7, t8],
            renewal: WireRenewal(productId: s.pro, autoRenewProductId: s.pro, autoRenewStatus: false))
        let (analytics, rejected) = try Wire.store(v2 + [receipt], chain: chain)
        #expect(rejected == [])
        guard case .found(let r) = try analytics.subscriber(s.original, asOf: Wire.at("2025-09-01T00:00:00Z")) else {
            Issue.record("not found")
            return
        }
        // T8 [07-29 15:30, min(08-29 15:30, 08-15 10:00)) refunded: not paid (T2…T7 = 6), the run
        // ends at the revocation with reason refund.
        #expect(r.timeline.periods.last?.end == Wire.at("2025-08-15T10:00:00Z"))
        #expect(r.timeline.periods.last?.isRefunded == true)
        #expect(r.paidPeriods == 6)
        #expect(r.expirationReason == .refund)
        #expect(r.events.suffix(3).map(\.type) == [.autoRenewOff, .refund, .expiration])
        // The same documents in the other order give the same timeline.
        let (reversed, _) = try Wire.store([receipt] + v2.reversed(), chain: chain)
        guard case .found(let r2) = try reversed.subscriber(s.original, asOf: Wire.at("2025-09-01T00:00:00Z")) else {
            Issue.record("not found")
            return
        }
        #expect(r2.timeline == r.timeline)
    }

    /// Cohorts at 07-01, two periods: X (February) and R, F (March) each have one paid period and
    /// an ended run (F2 is refunded, so not a second paid period): retained 0, ended[1] = started,
    /// rate 0 from P1 on (and 0 stays 0). G (May) has G1 and G2 (the late renewal continues the
    /// run): retained[1] = 1; its run is open at 07-01 with 2 paid periods, so its fate at P2 is not
    /// known yet (censored): rate 1, then null. Average: retained [0+0+1, 0], ended [1+2+0, 0]:
    /// 1/4, then nobody's fate at P2 is known: null.
    @Test func refundIsNotRetention() throws {
        let grid = try Self.store().cohorts(asOf: Self.asOf, periods: 2)
        #expect(
            CohortsOutput(grid, store: "test.sqlite").json == """
                {"asOf":"2025-07-01T00:00:00Z","periods":2,"cohorts":[\
                {"month":"2025-02","started":1,"retained":[0,0],"ended":[1,0],"rate":[0,0]},\
                {"month":"2025-03","started":2,"retained":[0,0],"ended":[2,0],"rate":[0,0]},\
                {"month":"2025-04","started":0,"retained":[0,0],"ended":[0,0],"rate":[null,null]},\
                {"month":"2025-05","started":1,"retained":[1,0],"ended":[0,0],"rate":[1,null]},\
                {"month":"2025-06","started":0,"retained":[0,0],"ended":[0,0],"rate":[null,null]},\
                {"month":"2025-07","started":0,"retained":[0,0],"ended":[0,0],"rate":[null,null]}],\
                "average":{"retained":[1,0],"ended":[3,0],"rate":[0.25,null]}}
                """)
    }

    // MARK: - Delivery order and duplicates

    /// Every report this suite reads, as JSON, for one store.
    static func everyReport(_ analytics: SubscriberAnalytics, subscribers: [String]) throws -> [String] {
        var out: [String] = []
        for day in stride(from: 0, to: 240, by: 3) {
            let at = Wire.at("2025-01-01T00:00:00Z").adding(days: Int64(day)).adding(hours: Int64(day % 24))
            out.append(StatesOutput(try analytics.states(asOf: at)).json)
        }
        for m in 1...9 {
            let from = Wire.at(String(format: "2025-%02d-01T00:00:00Z", m))
            let to = Wire.at(String(format: "2025-%02d-01T00:00:00Z", m + 1))
            out.append(EventsOutput(try analytics.events(from: from, to: to, asOf: Wire.at("2025-12-31T00:00:00Z"))).json)
            out.append(RecoveryOutput(try analytics.recovery(from: from, to: to, asOf: Wire.at("2025-12-31T00:00:00Z"))).json)
        }
        out.append(
            CohortsOutput(try analytics.cohorts(asOf: Wire.at("2025-12-31T00:00:00Z"), periods: 12), store: "test.sqlite").json)
        out.append(
            EligibilityOutput(
                try analytics.eligibility(asOf: Wire.at("2025-09-15T00:00:00Z")),
                asOf: Wire.at("2025-09-15T00:00:00Z")
            ).json)
        for id in subscribers {
            for asOf in [nil, Wire.at("2025-04-10T03:00:00Z"), Wire.at("2025-12-31T00:00:00Z")] {
                guard case .found(let r) = try analytics.subscriber(id, asOf: asOf) else {
                    Issue.record("\(id) not found")
                    continue
                }
                out.append(SubscriberOutput(r).json)
            }
        }
        out.append(try analytics.dataHorizon()?.iso8601 ?? "no horizon")
        return out
    }

    /// The same documents delivered in reverse, every one twice, and split over two imports (the
    /// refund before the renewal it refunds, the expiry before the failure) give byte-identical
    /// reports to the clean, in-order delivery.
    @Test func outOfOrderAndDuplicatedDeliveriesChangeNothing() throws {
        let chain = try Wire.chain()
        let jws = try CompactJWS(chain: chain)
        let documents = Self.documents(jws) + SubscriberStory.v2Documents(jws)
        let subscribers = [
            "3000000000000001", "3000000000000002", "3000000000000003", "3000000000000005",
            SubscriberStory.original,
        ]

        let (clean, cleanRejected) = try Wire.store(documents, chain: chain)
        #expect(cleanRejected == [])
        let expected = try Self.everyReport(clean, subscribers: subscribers)

        let messyDB = try AppDatabase.inMemory()
        var rng = SplitMix64(state: 7)
        var shuffled = documents + documents
        shuffled.shuffle(using: &rng)
        #expect(
            try Wire.importDocuments(
                Array(documents.reversed().prefix(documents.count / 2)), into: messyDB,
                chain: chain) == [])
        #expect(try Wire.importDocuments(shuffled, into: messyDB, chain: chain) == [])
        let messy = try Self.everyReport(SubscriberAnalytics(database: messyDB), subscribers: subscribers)
        #expect(messy.count == expected.count)
        for (m, e) in zip(messy, expected) where m != e { #expect(m == e) }
    }

    /// The same for the v1 story: v1 documents have no date of their own, so the order they are
    /// read in must matter even less.
    @Test func outOfOrderV1DeliveriesChangeNothing() throws {
        let chain = try Wire.chain()
        let documents = SubscriberStory.v1Documents
        let (clean, _) = try Wire.store(documents, chain: chain)
        let expected = try Self.everyReport(clean, subscribers: [SubscriberStory.original])
        // A redelivery of a v1 body that differs only in bytes that carry no fact (a new
        // base64 receipt) is a new document with the same facts.
        let redelivered = documents[8].replacingOccurrences(
            of: "MIIUGAYJKoZIhvcNAQcCoIIUCTCCFAUCAQExCzAJBgUrDgMCGgUAMIIDuQ",
            with: "MIIUGAYJKoZIhvcNAQcCoIIUCTCCFAUCAQExCzAJBgUrDgMCGgUAMIIDvQ")
        #expect(redelivered != documents[8])
        let (messy, rejected) = try Wire.store(documents.reversed() + documents + [redelivered], chain: chain)
        #expect(rejected == [])
        let got = try Self.everyReport(messy, subscribers: [SubscriberStory.original])
        for (m, e) in zip(got, expected) where m != e { #expect(m == e) }
    }
}
