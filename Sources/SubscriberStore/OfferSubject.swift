import GRDB
import SubscriptionModel

/// What signing an offer for one subscription needs from the store: its current product, the
/// transaction id StoreKit 2's JWS names, its ownership and environment, and whether the customer
/// already had an introductory offer in the subscription group.
public struct OfferSubject: Sendable, Equatable {
    public var originalTransactionId: String
    /// The product of the latest transaction (by purchase date).
    public var productId: String
    public var subscriptionGroupIdentifier: String?
    /// The latest transaction's id.
    public var latestTransactionId: String
    /// The app download behind the subscription (docs/metrics.md, "Renewal details from Apple"):
    /// from the latest renewal info carrying it, else the latest transaction carrying it; nil
    /// before Apple sent one.
    public var appTransactionId: String?
    public var appAccountToken: String?
    /// `PURCHASED`, `FAMILY_SHARED` or nil (v1 data).
    public var ownership: String?
    public var environment: String
    /// An introductory offer (`offerType` 1: free trial or introductory price) in the same
    /// subscription group, on this subscription or another with the same appAccountToken.
    public var hadIntroductoryOffer: Bool
    /// The latest transaction's expiry and revocation.
    public var latestExpires: Instant?
    public var latestRevoked: Bool

    /// Active at `now` by its latest transaction: not revoked and not expired.
    public func isActive(at now: Instant) -> Bool {
        !latestRevoked && (latestExpires.map { $0 > now } ?? false)
    }

    public var isFamilyShared: Bool { ownership == "FAMILY_SHARED" }

    /// The `transactionId` claim of StoreKit 2's promotional offer JWS: the `appTransactionId`
    /// when known (it names the customer whatever they bought), else the latest transaction's id.
    public var signingTransactionId: String { appTransactionId ?? latestTransactionId }
}

extension AppDatabase {
    /// The subject of an offer, or nil when the store has no transaction of the subscription.
    public func offerSubject(originalTransactionId: String) throws -> OfferSubject? {
        try writer.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT transactionId, productId, subscriptionGroupIdentifier, inAppOwnershipType, environment,
                            (SELECT appAccountToken FROM "transaction" a WHERE a.originalTransactionId = t.originalTransactionId
                                AND a.appAccountToken IS NOT NULL ORDER BY a.purchaseDate DESC LIMIT 1),
                            expiresDate, revocationDate,
                            COALESCE(
                                (SELECT appTransactionId FROM renewalFact r WHERE r.originalTransactionId = t.originalTransactionId
                                    AND r.appTransactionId IS NOT NULL AND r.unverified = 0 ORDER BY r.instant DESC LIMIT 1),
                                (SELECT appTransactionId FROM "transaction" a WHERE a.originalTransactionId = t.originalTransactionId
                                    AND a.appTransactionId IS NOT NULL AND a.unverified = 0
                                    ORDER BY a.purchaseDate DESC, a.transactionId DESC LIMIT 1))
                        FROM "transaction" t WHERE originalTransactionId = ?
                        ORDER BY purchaseDate DESC, transactionId DESC LIMIT 1
                        """, arguments: [originalTransactionId])
            else { return nil }
            let group: String? = row[2]
            let token: String? = row[5]
            let intro = try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM "transaction" WHERE offerType = 1
                        AND (originalTransactionId = ?1 OR (?2 IS NOT NULL AND appAccountToken = ?2))
                        AND (subscriptionGroupIdentifier IS ?3 OR originalTransactionId = ?1))
                    """, arguments: [originalTransactionId, token, group])
            return OfferSubject(
                originalTransactionId: originalTransactionId, productId: row[1], subscriptionGroupIdentifier: group,
                latestTransactionId: row[0], appTransactionId: row[8], appAccountToken: token, ownership: row[3],
                environment: row[4],
                hadIntroductoryOffer: intro ?? false, latestExpires: (row[6] as Int64?).map(Instant.init(milliseconds:)),
                latestRevoked: (row[7] as Int64?) != nil)
        }
    }
}

extension AppDatabase {
    /// How many stored transactions redeemed each offer: `offerType` → `offerIdentifier` → count.
    public func offerRedemptionCounts() throws -> [Int: [String: Int]] {
        try writer.read { db in
            var counts: [Int: [String: Int]] = [:]
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT offerType, offerIdentifier, COUNT(*) FROM "transaction"
                    WHERE offerType IN (2, 3, 4) AND offerIdentifier IS NOT NULL GROUP BY 1, 2
                    """)
            for row in rows { counts[row[0], default: [:]][row[1]] = row[2] }
            return counts
        }
    }
}

extension AppDatabase {
    /// The subscriptions an app's backend can name: by originalTransactionId or appAccountToken only.
    public func subscriptions(originalTransactionIdOrToken id: String) throws -> [String] {
        try writer.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT originalTransactionId FROM "transaction" WHERE originalTransactionId = ?1
                    UNION SELECT originalTransactionId FROM "transaction" WHERE appAccountToken = ?1
                    ORDER BY 1
                    """, arguments: [id])
        }
    }

    /// Whether the subscription has a transaction with `offerType` and `offerIdentifier` bought at
    /// or after `since`.
    public func redeemed(originalTransactionId: String, offerType: Int, offerIdentifier: String, since: Instant) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM "transaction" WHERE originalTransactionId = ? AND offerType = ?
                        AND offerIdentifier = ? AND purchaseDate >= ?)
                    """, arguments: [originalTransactionId, offerType, offerIdentifier, since.milliseconds]) ?? false
        }
    }
}
