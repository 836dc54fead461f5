import SubscriptionModel

@testable import LifecycleSimulator

/// The one subscriber the seeds follow through its life (WWDC 2019 "In-App Purchases and Using
/// Server-to-Server Notifications", and "Engineering Subscriptions"), told twice: as the v1
/// notifications Apple sent for it and as the v2 notifications. Both tell the same life:
///
/// | when (2025, UTC) | what happens | v1 | v2 |
/// |---|---|---|---|
/// | 01-05 10:00 | buys pro.monthly (T1) | INITIAL_BUY | SUBSCRIBED/INITIAL_BUY |
/// | 01-20 15:30 | upgrades to premium.monthly (T2), T1 cut short | CANCEL + INTERACTIVE_RENEWAL | DID_CHANGE_RENEWAL_PREF/UPGRADE |
/// | 02-20 09:30 | renews (T3), charged 6 h before T2's 15:30 expiry | DID_RENEW | DID_RENEW |
/// | 03-01 08:00 | schedules a downgrade to pro.monthly | DID_CHANGE_RENEWAL_PREF | DID_CHANGE_RENEWAL_PREF/DOWNGRADE |
/// | 03-20 15:30 | the downgrade takes effect at the renewal (T4) | DID_RENEW | DID_RENEW |
/// | 04-02 12:00 | turns auto-renew off | DID_CHANGE_RENEWAL_STATUS | …/AUTO_RENEW_DISABLED |
/// | 04-05 18:00 | turns it on again | DID_CHANGE_RENEWAL_STATUS | …/AUTO_RENEW_ENABLED |
/// | 04-20 15:30 | renewal fails; 3-day grace period to 04-23 15:30 | DID_FAIL_TO_RENEW | DID_FAIL_TO_RENEW/GRACE_PERIOD |
/// | 04-22 11:00 | recovered inside grace: T5 keeps the billing date (starts 04-20 15:30) | DID_RECOVER | DID_RENEW/BILLING_RECOVERY |
/// | 05-20 15:30 | renews (T6) | DID_RENEW | DID_RENEW |
/// | 06-20 15:30 | renewal fails; grace to 06-23 15:30 | DID_FAIL_TO_RENEW | DID_FAIL_TO_RENEW/GRACE_PERIOD |
/// | 06-23 15:30 | grace ends, billing retry goes on | — | GRACE_PERIOD_EXPIRED |
/// | 06-29 15:30 | recovered after 9 days: T7 starts a new anniversary | DID_RECOVER | DID_RENEW/BILLING_RECOVERY |
/// | 07-19 10:00 | price increase needs consent | PRICE_INCREASE_CONSENT | PRICE_INCREASE/PENDING |
/// | 07-21 08:00 | consents | (seen in the next document) | PRICE_INCREASE/ACCEPTED |
/// | 07-29 15:30 | renews at the new price (T8) | DID_RENEW | DID_RENEW |
/// | 08-10 20:00 | turns auto-renew off | DID_CHANGE_RENEWAL_STATUS | …/AUTO_RENEW_DISABLED |
/// | 08-29 15:30 | expires, voluntarily | — (v1 has no expiry notification) | EXPIRED/VOLUNTARY |
///
/// While in billing retry Apple reports the expiration intent 2 (billing error) in the renewal
/// info, as it does for any period that failed to renew; both failures are recovered, so that
/// intent says nothing about how the subscription finally ends.
///
/// The grace period is 3 days (App Store Connect offers 3, 16 or 28): long enough to recover
/// inside it the first time, short enough that the 9-day recovery comes in billing retry.
enum SubscriberStory {
    static let original = "2000000100000001"
    static let token = "5b7f3e52-93a8-4d55-9b1e-0c1c1f0d2a11"
    static let pro = "com.example.pro.monthly"
    static let premium = "com.example.premium.monthly"

    static func t(_ n: Int, _ product: String, _ start: String, _ expires: String, price: Int64) -> WireTransaction {
        WireTransaction(
            transactionId: "200000010000000\(n)", originalTransactionId: original,
            webOrderLineItemId: "200000009000000\(n)", productId: product, purchaseDate: Wire.at(start),
            originalPurchaseDate: Wire.at("2025-01-05T10:00:00Z"), expiresDate: Wire.at(expires), price: price,
            appAccountToken: token, isRenewal: n != 1 && n != 2)
    }

    static let t1 = t(1, pro, "2025-01-05T10:00:00Z", "2025-02-05T10:00:00Z", price: 9990)
    static let t2 = t(2, premium, "2025-01-20T15:30:00Z", "2025-02-20T15:30:00Z", price: 14990)
    static let t3 = t(3, premium, "2025-02-20T09:30:00Z", "2025-03-20T15:30:00Z", price: 14990)
    static let t4 = t(4, pro, "2025-03-20T15:30:00Z", "2025-04-20T15:30:00Z", price: 9990)
    static let t5 = t(5, pro, "2025-04-20T15:30:00Z", "2025-05-20T15:30:00Z", price: 9990)
    static let t6 = t(6, pro, "2025-05-20T15:30:00Z", "2025-06-20T15:30:00Z", price: 9990)
    static let t7 = t(7, pro, "2025-06-29T15:30:00Z", "2025-07-29T15:30:00Z", price: 9990)
    static let t8 = t(8, pro, "2025-07-29T15:30:00Z", "2025-08-29T15:30:00Z", price: 12990)

    /// T1 as v1 reports it once the upgrade cancelled it: `is_upgraded` and the cancellation date.
    static var t1Upgraded: WireTransaction {
        var t = t1
        t.isUpgraded = true
        t.revocationDate = Wire.at("2025-01-20T15:30:00Z")
        return t
    }

    static func renewal(
        _ product: String, next: String? = nil, on: Bool = true, retry: Bool? = nil, grace: String? = nil,
        consent: Int? = nil, intent: Int? = nil
    ) -> WireRenewal {
        WireRenewal(
            productId: product, autoRenewProductId: next ?? product, autoRenewStatus: on, isInBillingRetryPeriod: retry,
            gracePeriodExpiresDate: grace.map(Wire.at), priceIncreaseStatus: consent, expirationIntent: intent)
    }

    // MARK: - v1

    /// The v1 notifications, in the order Apple sent them. Each carries every row so far
    /// (`latest_receipt_info` holds the latest 100 transactions).
    static var v1Documents: [String] {
        let o = original
        let upToT2 = [t1Upgraded, t2]
        return [
            Wire.v1("INITIAL_BUY", original: o, rows: [t1], renewal: renewal(pro)),
            Wire.v1("CANCEL", original: o, rows: upToT2, renewal: renewal(premium)),
            Wire.v1("INTERACTIVE_RENEWAL", original: o, rows: upToT2, renewal: renewal(premium)),
            Wire.v1("DID_RENEW", original: o, rows: upToT2 + [t3], renewal: renewal(premium)),
            Wire.v1("DID_CHANGE_RENEWAL_PREF", original: o, rows: upToT2 + [t3], renewal: renewal(premium, next: pro)),
            Wire.v1("DID_RENEW", original: o, rows: upToT2 + [t3, t4], renewal: renewal(pro)),
            Wire.v1(
                "DID_CHANGE_RENEWAL_STATUS", original: o, rows: upToT2 + [t3, t4], renewal: renewal(pro, on: false),
                autoRenewChangeDate: Wire.at("2025-04-02T12:00:00Z")),
            Wire.v1(
                "DID_CHANGE_RENEWAL_STATUS", original: o, rows: upToT2 + [t3, t4], renewal: renewal(pro),
                autoRenewChangeDate: Wire.at("2025-04-05T18:00:00Z")),
            Wire.v1(
                "DID_FAIL_TO_RENEW", original: o, rows: upToT2 + [t3, t4],
                renewal: renewal(pro, retry: true, grace: "2025-04-23T15:30:00Z", intent: 2)),
            Wire.v1("DID_RECOVER", original: o, rows: upToT2 + [t3, t4, t5], renewal: renewal(pro, retry: false)),
            Wire.v1("DID_RENEW", original: o, rows: upToT2 + [t3, t4, t5, t6], renewal: renewal(pro)),
            Wire.v1(
                "DID_FAIL_TO_RENEW", original: o, rows: upToT2 + [t3, t4, t5, t6],
                renewal: renewal(pro, retry: true, grace: "2025-06-23T15:30:00Z", intent: 2)),
            Wire.v1("DID_RECOVER", original: o, rows: upToT2 + [t3, t4, t5, t6, t7], renewal: renewal(pro, retry: false)),
            Wire.v1(
                "PRICE_INCREASE_CONSENT", original: o, rows: upToT2 + [t3, t4, t5, t6, t7],
                renewal: renewal(pro, consent: 0)),
            Wire.v1("DID_RENEW", original: o, rows: upToT2 + [t3, t4, t5, t6, t7, t8], renewal: renewal(pro, consent: 1)),
            Wire.v1(
                "DID_CHANGE_RENEWAL_STATUS", original: o, rows: upToT2 + [t3, t4, t5, t6, t7, t8],
                renewal: renewal(pro, on: false, consent: 1), autoRenewChangeDate: Wire.at("2025-08-10T20:00:00Z")),
        ]
    }

    // MARK: - v2

    /// The v2 notifications, in the order Apple sent them. v2 never resends T1 after the upgrade.
    static func v2Documents(_ jws: CompactJWS) -> [String] {
        var n = 0
        func note(
            _ type: String, _ subtype: String?, _ at: String, status: Int = 1, _ t: WireTransaction,
            _ r: WireRenewal
        ) -> String {
            n += 1
            return Wire.v2(
                type, subtype, uuid: "6f1d0c2e-0000-4000-8000-0000000000\(n < 10 ? "0" : "")\(n)",
                signedDate: Wire.at(at), status: status, transaction: t, renewal: r, jws: jws)
        }
        return [
            note("SUBSCRIBED", "INITIAL_BUY", "2025-01-05T10:00:00Z", t1, renewal(pro)),
            note("DID_CHANGE_RENEWAL_PREF", "UPGRADE", "2025-01-20T15:30:00Z", t2, renewal(premium)),
            note("DID_RENEW", nil, "2025-02-20T09:30:00Z", t3, renewal(premium)),
            note("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", "2025-03-01T08:00:00Z", t3, renewal(premium, next: pro)),
            note("DID_RENEW", nil, "2025-03-20T15:30:00Z", t4, renewal(pro)),
            note("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", "2025-04-02T12:00:00Z", t4, renewal(pro, on: false)),
            note("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", "2025-04-05T18:00:00Z", t4, renewal(pro)),
            note(
                "DID_FAIL_TO_RENEW", "GRACE_PERIOD", "2025-04-20T15:30:00Z", status: 4, t4,
                renewal(pro, retry: true, grace: "2025-04-23T15:30:00Z", intent: 2)),
            note("DID_RENEW", "BILLING_RECOVERY", "2025-04-22T11:00:00Z", t5, renewal(pro, retry: false)),
            note("DID_RENEW", nil, "2025-05-20T15:30:00Z", t6, renewal(pro)),
            note(
                "DID_FAIL_TO_RENEW", "GRACE_PERIOD", "2025-06-20T15:30:00Z", status: 4, t6,
                renewal(pro, retry: true, grace: "2025-06-23T15:30:00Z", intent: 2)),
            note(
                "GRACE_PERIOD_EXPIRED", nil, "2025-06-23T15:30:00Z", status: 3, t6,
                renewal(pro, retry: true, grace: "2025-06-23T15:30:00Z", intent: 2)),
            note("DID_RENEW", "BILLING_RECOVERY", "2025-06-29T15:30:00Z", t7, renewal(pro, retry: false)),
            note("PRICE_INCREASE", "PENDING", "2025-07-19T10:00:00Z", t7, renewal(pro, consent: 0)),
            note("PRICE_INCREASE", "ACCEPTED", "2025-07-21T08:00:00Z", t7, renewal(pro, consent: 1)),
            note("DID_RENEW", nil, "2025-07-29T15:30:00Z", t8, renewal(pro, consent: 1)),
            note(
                "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", "2025-08-10T20:00:00Z", t8,
                renewal(pro, on: false, consent: 1)),
            note(
                "EXPIRED", "VOLUNTARY", "2025-08-29T15:30:00Z", status: 2, t8,
                renewal(pro, on: false, consent: 1, intent: 1)),
        ]
    }
}
