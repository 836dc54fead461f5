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
    ///
    /// One pass over the segments covering `asOf` decides every offer at once (the pane asks for
    /// all five lists): the run a segment ends for win-back, and billing failures of the last 365
    /// days for service, are joined in.
    public func eligibility(asOf: Instant, offer: OfferFlagKind? = nil, scope: ReportScope = ReportScope(),
                            limit: Int? = nil) throws -> [EligibleSubscriber] {
        let kinds = offer.map { [$0] } ?? OfferFlagKind.allCases
        var byKind: [OfferFlagKind: [EligibleSubscriber]] = [:]
        try database.writer.read { db in
            var sql = """
                SELECT s.originalTransactionId, s.productId, s.state, s.autoRenew, s.paidPeriods, s.periodDays,
                       r.endedAt, r.expirationReason, f.n
                FROM segment s
                LEFT JOIN run r ON s.state = 'expired' AND r.originalTransactionId = s.originalTransactionId
                                AND r.runIndex = s.runIndex
                LEFT JOIN (SELECT originalTransactionId, COUNT(*) AS n FROM billingFailure
                           WHERE at <= ?1 AND at > ?1 - 365 * 86400000 GROUP BY originalTransactionId) f
                       ON f.originalTransactionId = s.originalTransactionId
                WHERE s.\(scope.environment.sql) AND s."end" > ?1 AND s.start <= ?1
                """
            var arguments: StatementArguments = [asOf.milliseconds]
            if let product = scope.productId { sql += " AND s.productId = ?2"; arguments += [product] }
            sql += " ORDER BY s.originalTransactionId"
            let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while let row = try rows.next() {
                let segment = SegmentAtAsOf(state: row[2], autoRenew: row[3], paidPeriods: row[4], periodDays: row[5],
                                            runEndedAt: row[6], expirationReason: row[7], recentBillingFailures: row[8])
                for kind in kinds {
                    guard limit.map({ (byKind[kind]?.count ?? 0) < $0 }) ?? true,
                          let detail = segment.reason(for: kind, asOf: asOf) else { continue }
                    byKind[kind, default: []].append(EligibleSubscriber(offer: kind, originalTransactionId: row[0],
                                                                        productId: row[1], detail: detail))
                }
            }
        }
        return kinds.flatMap { byKind[$0] ?? [] }
    }
}

/// What DESIGN §3's eligibility rules read of a subscription at as-of.
private struct SegmentAtAsOf {
    var state: String
    var autoRenew: Bool
    var paidPeriods: Int
    var periodDays: Double?
    /// The end of the run, when the segment is `expired`.
    var runEndedAt: Int64?
    var expirationReason: String?
    /// Billing failures in the 365 days up to as-of, nil for none.
    var recentBillingFailures: Int?

    static let activeStates: Set<String> = ["standard", "freeTrial", "introductory", "promotional", "offerCode", "winBack",
                                            "gracePeriod"]
    var isActive: Bool { Self.activeStates.contains(state) }

    /// Why the subscription is eligible for `offer`, in a few words; nil when it is not.
    func reason(for offer: OfferFlagKind, asOf: Instant) -> String? {
        switch offer {
        case .winBack:
            // The latest run ended voluntarily (or over a price increase) in the last 180 days, nothing open.
            guard state == "expired", let ended = runEndedAt, let reason = expirationReason,
                  ended <= asOf.milliseconds, ended > asOf.milliseconds - 180 * Instant.millisecondsPerDay,
                  reason == "voluntary" || reason == "priceIncrease" else { return nil }
            return "ended \(reason) \(Instant(milliseconds: ended).isoDate)"
        case .retention:
            guard isActive, !autoRenew else { return nil }
            return "auto-renew off, \(state)"
        case .upgrade:
            guard isActive, let days = periodDays, days < 60, paidPeriods >= 6 else { return nil }
            return "\(paidPeriods) paid periods of \(Int(days.rounded())) days"
        case .loyalty:
            guard isActive, paidPeriods >= 12, autoRenew else { return nil }
            return "\(paidPeriods) paid periods, auto-renew on"
        case .service:
            if state == "gracePeriod" || state == "billingRetry" { return "in \(state)" }
            guard let failures = recentBillingFailures, failures >= 2 else { return nil }
            return "\(failures) billing failures in 365 days"
        }
    }
}
