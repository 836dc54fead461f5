import Foundation
import SubscriptionModel

/// A signed offer handed out (by `subdash offer sign` or `listen --offers`) and what the store
/// knows of its subscription: what a simulated redemption of it is built from.
public struct ServedOfferSubject: Sendable, Equatable {
    public var originalTransactionId: String
    /// The catalogue's kind: `promotional`, `winBack` or `offerCode`.
    public var offerKind: String
    public var offerIdentifier: String
    public var servedAt: Instant
    public var productId: String
    public var subscriptionGroupIdentifier: String?
    public var bundleId: String
    public var appAppleId: Int64?
    public var environment: String
    public var appAccountToken: String?
    public var appTransactionId: String?
    /// The latest transaction: its start and end give the length of a period.
    public var latestPurchase: Instant
    public var latestExpires: Instant?
    public var originalPurchaseDate: Instant?

    public init(
        originalTransactionId: String, offerKind: String, offerIdentifier: String, servedAt: Instant, productId: String,
        subscriptionGroupIdentifier: String?, bundleId: String, appAppleId: Int64?, environment: String,
        appAccountToken: String?, appTransactionId: String?, latestPurchase: Instant, latestExpires: Instant?,
        originalPurchaseDate: Instant?
    ) {
        self.originalTransactionId = originalTransactionId
        self.offerKind = offerKind
        self.offerIdentifier = offerIdentifier
        self.servedAt = servedAt
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
        self.appAccountToken = appAccountToken
        self.appTransactionId = appTransactionId
        self.latestPurchase = latestPurchase
        self.latestExpires = latestExpires
        self.originalPurchaseDate = originalPurchaseDate
    }

    /// `offerType` of the redeeming transaction: 2 promotional, 3 offer code, 4 win-back.
    var offerType: Int? {
        switch offerKind {
        case "promotional": 2
        case "offerCode": 3
        case "winBack": 4
        default: nil
        }
    }
}

/// What `subdash generate-redemptions` decides and writes (README, "Offers that reach the customer").
public struct RedemptionSummary: Sendable, Equatable {
    /// One per redeemed offer: the subscription, the offer and when it was redeemed.
    public struct Redemption: Sendable, Equatable {
        public var originalTransactionId: String
        public var offerIdentifier: String
        public var offerType: Int
        public var at: Instant
        /// Paid periods written after the offer's period.
        public var paidPeriods: Int
    }

    /// Subscriptions with a served offer considered (one each: its latest served offer).
    public var considered = 0
    public var redemptions: [Redemption] = []
    public var documents = 0
}

/// Redeems a deterministic share of served offers: for each chosen one, a v2 notification whose
/// signed transaction carries `offerType` 2, 3 or 4 and the served `offerIdentifier`, dated after
/// the offer was served; for a share of those, the paid renewals that follow the offer's period.
/// Nothing is dated after `until`. Signed with a test chain from `seed`, as `generate` signs.
public struct ServedOfferRedemptions: Sendable {
    public var seed: UInt64
    /// The share of served offers redeemed, 0…1.
    public var share: Double
    /// The share of redemptions followed by paid periods, 0…1.
    public var convertedShare: Double
    public var until: Instant

    public init(seed: UInt64, share: Double, convertedShare: Double, until: Instant) {
        self.seed = seed
        self.share = share
        self.convertedShare = convertedShare
        self.until = until
    }

    /// A uniform number in [0, 1) from the seed, the subscription and a purpose: the same inputs
    /// always decide the same way, whatever else is served.
    func draw(_ id: String, _ purpose: UInt64) -> Double {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed &* 0x9E37_79B9_7F4A_7C15 ^ purpose
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        // SplitMix64's finaliser spreads the FNV hash over every bit.
        hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
        hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
        hash ^= hash >> 31
        return Double(hash >> 11) / Double(UInt64(1) << 53)
    }

    /// The redemptions `served` leads to: one decision per subscription, on its latest served offer.
    public func plan(_ served: [ServedOfferSubject]) -> (
        considered: Int, chosen: [(ServedOfferSubject, RedemptionSummary.Redemption)]
    ) {
        var latest: [String: ServedOfferSubject] = [:]
        var order: [String] = []
        for s in served where s.offerType != nil {
            if latest[s.originalTransactionId] == nil { order.append(s.originalTransactionId) }
            if latest[s.originalTransactionId].map({ $0.servedAt <= s.servedAt }) ?? true { latest[s.originalTransactionId] = s }
        }
        var chosen: [(ServedOfferSubject, RedemptionSummary.Redemption)] = []
        for id in order.sorted() {
            guard let s = latest[id], let type = s.offerType, draw(id, 1) < share, s.servedAt <= until else { continue }
            // Redeemed between five minutes and a day after it was served (an offer is valid 24 hours).
            let delay = 300_000 + Int64(draw(id, 2) * 82_800_000)
            let at = Instant(milliseconds: min(s.servedAt.milliseconds + delay, until.milliseconds))
            let length = periodLength(s)
            var paid = 0
            if draw(id, 3) < convertedShare {
                while paid < 12, at.milliseconds + Int64(paid + 1) * length <= until.milliseconds { paid += 1 }
            }
            chosen.append(
                (
                    s,
                    .init(
                        originalTransactionId: id, offerIdentifier: s.offerIdentifier, offerType: type, at: at, paidPeriods: paid)
                ))
        }
        return (order.count, chosen)
    }

    /// The latest transaction's length, else a month.
    func periodLength(_ s: ServedOfferSubject) -> Int64 {
        let month: Int64 = 30 * 86_400_000
        guard let expires = s.latestExpires, expires > s.latestPurchase else { return month }
        return expires.milliseconds - s.latestPurchase.milliseconds
    }

    /// Writes `DIR/v2/notifications-0001.ndjson` and `DIR/test-root.pem` (`directory` must not
    /// already hold them).
    @discardableResult
    public func write(_ served: [ServedOfferSubject], into directory: URL) throws -> RedemptionSummary {
        let fm = FileManager.default
        try fm.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in ["v2", "test-root.pem"] where fm.fileExists(atPath: directory.appendingPathComponent(name).path) {
            throw SimulationError("\(directory.path) already holds generated output (\(name)); choose an empty directory")
        }
        let (considered, chosen) = plan(served)
        let earliest = served.map(\.latestPurchase).min() ?? until
        let chain = try TestCertificateChain(
            seed: seed, validFrom: min(earliest, until).adding(days: -365), validUntil: until.adding(days: 5 * 365))
        let jws = try CompactJWS(chain: chain)
        try Data(chain.rootPEM().utf8 + [0x0A]).write(to: directory.appendingPathComponent("test-root.pem"))
        var summary = RedemptionSummary(considered: considered)
        var lines: [UInt8] = []
        for (subject, redemption) in chosen {
            let length = periodLength(subject)
            let active = subject.latestExpires.map { $0 > redemption.at } ?? false
            // An offer redeemed on an active subscription, or one that brings a lapsed customer back.
            lines += notification(
                jws, subject, type: "OFFER_REDEEMED", subtype: active ? nil : "RESUBSCRIBE", index: 0,
                start: redemption.at, length: length, offer: redemption.offerType, renewal: false)
            summary.documents += 1
            for period in 0..<redemption.paidPeriods {
                let start = redemption.at.adding(milliseconds: Int64(period + 1) * length)
                lines += notification(
                    jws, subject, type: "DID_RENEW", subtype: nil, index: period + 1, start: start, length: length, offer: nil,
                    renewal: true)
                summary.documents += 1
            }
            summary.redemptions.append(redemption)
        }
        let writer = NotificationFileWriter(
            directory: directory.appendingPathComponent("v2"), gzip: false, maxFileBytes: Int.max)
        try writer.append(raw: lines, segment: nil)
        try writer.finish()
        // The documents carry the store's customers' appAccountTokens: readable by the owner only.
        for name in writer.fileNames {
            try fm.setAttributes(
                [.posixPermissions: 0o600], ofItemAtPath: directory.appendingPathComponent("v2/" + name).path)
        }
        return summary
    }

    /// One NDJSON line: `{"signedPayload":…}` for a period `[start, start + length)` of the subject.
    private func notification(
        _ jws: CompactJWS, _ s: ServedOfferSubject, type: String, subtype: String?, index: Int, start: Instant, length: Int64,
        offer: Int?, renewal: Bool
    ) -> [UInt8] {
        let expires = start.adding(milliseconds: length)
        let transactionId =
            "88" + String(format: "%013llu", UInt64(draw(s.originalTransactionId, 4) * 1e13)) + String(format: "%02d", index)
        var t = JSONBuffer(capacity: 1024)
        t.beginObject()
        t.field("transactionId", transactionId)
        t.field("originalTransactionId", s.originalTransactionId)
        t.field("webOrderLineItemId", "99" + transactionId.dropFirst(2))
        t.field("bundleId", s.bundleId)
        t.field("productId", s.productId)
        if let group = s.subscriptionGroupIdentifier { t.field("subscriptionGroupIdentifier", group) }
        t.field("purchaseDate", start.milliseconds)
        if let original = s.originalPurchaseDate { t.field("originalPurchaseDate", original.milliseconds) }
        t.field("expiresDate", expires.milliseconds)
        t.field("quantity", 1)
        t.field("type", "Auto-Renewable Subscription")
        if let token = s.appAccountToken { t.field("appAccountToken", token) }
        t.field("inAppOwnershipType", "PURCHASED")
        t.field("signedDate", start.milliseconds)
        if let offer {
            t.field("offerType", offer)
            t.field("offerIdentifier", s.offerIdentifier)
        }
        t.field("environment", s.environment)
        t.field("transactionReason", renewal ? "RENEWAL" : "PURCHASE")
        if let app = s.appTransactionId { t.field("appTransactionId", app) }
        t.endObject()

        var r = JSONBuffer(capacity: 512)
        r.beginObject()
        r.field("originalTransactionId", s.originalTransactionId)
        r.field("autoRenewProductId", s.productId)
        r.field("productId", s.productId)
        r.field("autoRenewStatus", 1)
        r.field("signedDate", start.milliseconds)
        r.field("environment", s.environment)
        r.field("renewalDate", expires.milliseconds)
        if let token = s.appAccountToken { r.field("appAccountToken", token) }
        if let app = s.appTransactionId { r.field("appTransactionId", app) }
        r.endObject()

        var payload = JSONBuffer(capacity: 4096)
        payload.beginObject()
        payload.field("notificationType", type)
        if let subtype { payload.field("subtype", subtype) }
        payload.field("notificationUUID", uuid(s.originalTransactionId, index))
        payload.beginObject("data")
        if let app = s.appAppleId { payload.field("appAppleId", app) }
        payload.field("bundleId", s.bundleId)
        payload.field("environment", s.environment)
        payload.key("signedTransactionInfo")
        payload.rawString(jws.sign(t.bytes))
        payload.key("signedRenewalInfo")
        payload.rawString(jws.sign(r.bytes))
        payload.field("status", 1)
        payload.endObject()
        payload.field("version", "2.0")
        payload.field("signedDate", start.milliseconds)
        payload.endObject()

        var body = JSONBuffer(capacity: 8192)
        body.beginObject()
        body.key("signedPayload")
        body.rawString(jws.sign(payload.bytes))
        body.endObject()
        return body.bytes + [0x0A]
    }

    /// A version-4-shaped UUID drawn from the subscription and the document's index.
    private func uuid(_ id: String, _ index: Int) -> String {
        let a = UInt64(draw(id, 10 + UInt64(index)) * 0x1p52)
        let b = UInt64(draw(id, 100 + UInt64(index)) * 0x1p52)
        let hex = String(format: "%013llx%013llx", a, b)
        let c = Array(hex)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-4" + String(c[12..<15]) + "-8" + String(c[15..<18]) + "-"
            + String(c[18..<26]) + "0000"
    }
}
