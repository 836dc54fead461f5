import GRDB
import SubscriberStore
import SubscriptionModel

/// One subscriber suggested for an offer (DESIGN §3 "Offer eligibility"; operators decide).
public struct EligibleSubscriber: Sendable, Equatable, Hashable {
    public var offer: OfferFlagKind
    public var originalTransactionId: String
    public var productId: String
    /// Why, in a few words: "ended voluntary 2025-03-02", "auto-renew off", "14 paid periods"…
    public var detail: String
}

extension SubscriberAnalytics {
    /// Subscribers eligible for `offer` (or every offer) at `asOf`, sorted by offer then id.
    public func eligibility(asOf: Instant, offer: OfferFlagKind? = nil, scope: ReportScope = ReportScope(),
                            limit: Int? = nil) throws -> [EligibleSubscriber] {
        let kinds = offer.map { [$0] } ?? OfferFlagKind.allCases
        return try database.writer.read { db in
            var result: [EligibleSubscriber] = []
            for kind in kinds {
                var sql = Self.eligibilitySQL(kind, environment: scope.environment.sql)
                var arguments: StatementArguments = [asOf.milliseconds]
                if let product = scope.productId { sql = "SELECT * FROM (\(sql)) WHERE productId = ?2"; arguments += [product] }
                sql += " ORDER BY 1"
                if let limit { sql += " LIMIT \(limit)" }
                for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
                    result.append(EligibleSubscriber(offer: kind, originalTransactionId: row[0], productId: row[1],
                                                     detail: row[2]))
                }
            }
            return result
        }
    }

    static let activeStates = "('standard', 'freeTrial', 'introductory', 'promotional', 'offerCode', 'winBack', 'gracePeriod')"

    /// Each query selects (originalTransactionId, productId, detail) with ?1 = as-of.
    static func eligibilitySQL(_ offer: OfferFlagKind, environment: String) -> String {
        let now = "s.\(environment) AND s.\"end\" > ?1 AND s.start <= ?1"
        switch offer {
        case .winBack:
            return """
                SELECT s.originalTransactionId, s.productId,
                       'ended ' || r.expirationReason || ' ' || strftime('%Y-%m-%d', r.endedAt / 1000, 'unixepoch')
                FROM segment s JOIN run r ON r.originalTransactionId = s.originalTransactionId AND r.runIndex = s.runIndex
                WHERE \(now) AND s.state = 'expired' AND r.endedAt <= ?1 AND r.endedAt > ?1 - 180 * 86400000
                  AND r.expirationReason IN ('voluntary', 'priceIncrease')
                """
        case .retention:
            return """
                SELECT s.originalTransactionId, s.productId, 'auto-renew off, ' || s.state
                FROM segment s WHERE \(now) AND s.state IN \(activeStates) AND s.autoRenew = 0
                """
        case .upgrade:
            return """
                SELECT s.originalTransactionId, s.productId, s.paidPeriods || ' paid periods of ' || CAST(ROUND(s.periodDays) AS INTEGER) || ' days'
                FROM segment s WHERE \(now) AND s.state IN \(activeStates) AND s.periodDays < 60 AND s.paidPeriods >= 6
                """
        case .loyalty:
            return """
                SELECT s.originalTransactionId, s.productId, s.paidPeriods || ' paid periods, auto-renew on'
                FROM segment s WHERE \(now) AND s.state IN \(activeStates) AND s.paidPeriods >= 12 AND s.autoRenew = 1
                """
        case .service:
            return """
                SELECT s.originalTransactionId, s.productId,
                       CASE WHEN s.state IN ('gracePeriod', 'billingRetry') THEN 'in ' || s.state
                            ELSE f.n || ' billing failures in 365 days' END
                FROM segment s
                LEFT JOIN (SELECT originalTransactionId, COUNT(*) AS n FROM billingFailure
                           WHERE at <= ?1 AND at > ?1 - 365 * 86400000 GROUP BY originalTransactionId) f
                       ON f.originalTransactionId = s.originalTransactionId
                WHERE \(now) AND (s.state IN ('gracePeriod', 'billingRetry') OR f.n >= 2)
                """
        }
    }
}
