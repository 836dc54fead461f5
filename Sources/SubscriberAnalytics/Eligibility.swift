import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// One subscriber suggested for an offer (docs/metrics.md, "Offer eligibility"; operators decide).
public struct EligibleSubscriber: Sendable, Equatable, Hashable {
    public var offer: OfferFlagKind
    public var originalTransactionId: String
    public var productId: String
    /// Why, in a few words: "ended voluntary 2025-03-02", "auto-renew off", "14 paid periods"…
    public var detail: String
    /// The customer's email (the one pane 1 shows), when asked for and known: who the operator
    /// would make the offer to. Not part of `report eligibility`'s output.
    public var email: String? = nil
    /// Win-back only: the offer ids Apple will present to this customer, best first (its latest
    /// renewal info's `eligibleWinBackOfferIds`; empty when none).
    public var appleOfferIds: [String] = []
}

/// The windows and thresholds of the offer rules (docs/metrics.md "Offer eligibility").
public enum OfferEligibility {
    /// Win-back: the latest run ended voluntarily (or over a price increase) within this many days.
    public static let winBackWindowDays: Int64 = 180
    /// Upgrade: on a period shorter than this many days…
    public static let upgradeMaximumPeriodDays = 60.0
    /// …with at least this many paid periods.
    public static let upgradeMinimumPaidPeriods = 6
    /// Loyalty: at least this many paid periods, auto-renew on.
    public static let loyaltyMinimumPaidPeriods = 12
    /// Service: at least this many billing failures…
    public static let serviceMinimumBillingFailures = 2
    /// …within this many days.
    public static let serviceFailureWindowDays: Int64 = 365
}

extension SubscriberAnalytics {
    /// Subscribers eligible for `offer` (or every offer) at `asOf`, sorted by offer then id.
    /// Purchased subscriptions only (a family member pays nothing to win back or retain).
    ///
    /// Three index range reads, none of which visits the subscriptions that ended long ago (most
    /// of a mature store): the live segments covering `asOf` decide retention, upgrade, loyalty and
    /// service by state; the runs ended in the 180 days before `asOf` decide win-back; the billing
    /// failures of the 365 days before `asOf` add service by failures. Repeated texts (products,
    /// reasons) are shared, so a million-subscriber list stays small in memory.
    public func eligibility(
        asOf: Instant, offer: OfferFlagKind? = nil, scope: ReportScope = ReportScope(),
        limit: Int? = nil, emails: Bool = false
    ) throws -> [EligibleSubscriber] {
        try eligibility(
            asOf: asOf, offers: offer.map { [$0] } ?? OfferFlagKind.allCases, scope: scope, limit: limit, emails: emails)
    }

    /// The subscribers eligible for each of `offers` at `asOf`, sorted by offer (in `offers`' order)
    /// then id; `limit` keeps the first rows of each offer. Each offer's list is the one the call
    /// for every offer gives, so lists read a few offers at a time add up to it (the dashboard
    /// streams them this way). With `emails`, each row carries its customer's email, read for the
    /// rows returned only (after `limit`), by primary key: the dashboard's Offers pane shows them.
    public func eligibility(
        asOf: Instant, offers kinds: [OfferFlagKind], scope: ReportScope = ReportScope(),
        limit: Int? = nil, emails: Bool = false
    ) throws -> [EligibleSubscriber] {
        let wanted = Set(kinds)
        var byKind: [OfferFlagKind: [EligibleSubscriber]] = [:]
        var texts = SharedTexts()
        func add(_ kind: OfferFlagKind, _ id: String, _ product: String, _ detail: String) {
            byKind[kind, default: []].append(
                EligibleSubscriber(
                    offer: kind, originalTransactionId: id,
                    productId: texts[product], detail: texts[detail]))
        }
        // Offers are for paying subscribers: purchased subscriptions only, whatever the scope says.
        var purchased = scope
        purchased.ownership = .purchased
        return try database.readEligibility(asOf: asOf.milliseconds, scope: purchased.rows) { reads in
            // Live segments: the segment covering as-of, in any state but `expired`.
            if !wanted.isDisjoint(with: [.retention, .upgrade, .loyalty, .service]) {
                try reads.forEachLiveSegment { row in
                    let live = LiveSegment(
                        state: row.state, autoRenew: row.autoRenew, paidPeriods: row.paidPeriods,
                        periodDays: row.periodDays)
                    for kind in kinds {
                        if let detail = live.reason(for: kind) { add(kind, row.originalTransactionId, row.productId, detail) }
                    }
                }
            }
            // Win-back: the subscription's latest run ended voluntarily (or over a price increase)
            // in (asOf − 180 days, asOf], and no later run started by asOf.
            if wanted.contains(.winBackOffer) {
                // Win-back alone with a limit (the Offers pane's first screen): the first rows by id,
                // cut in SQL.
                let cut = kinds == [.winBackOffer] ? limit : nil
                try reads.forEachEndedRun(windowDays: OfferEligibility.winBackWindowDays, limit: cut) { row in
                    add(
                        .winBackOffer, row.originalTransactionId, row.productId,
                        "ended \(row.expirationReason) \(row.endedAt.isoDate)")
                }
            }
            // Service: two or more billing failures in (asOf − 365 days, asOf], unless already in
            // by state (grace or retry, above).
            if wanted.contains(.service) {
                let inByState = Set((byKind[.service] ?? []).map(\.originalTransactionId))
                try reads.forEachRepeatedFailures(
                    windowDays: OfferEligibility.serviceFailureWindowDays,
                    minimum: OfferEligibility.serviceMinimumBillingFailures
                ) { row in
                    guard !inByState.contains(row.originalTransactionId) else { return }
                    add(
                        .service, row.originalTransactionId, row.productId,
                        "\(row.failures) billing failures in \(OfferEligibility.serviceFailureWindowDays) days")
                }
            }
            var rows = kinds.flatMap { kind -> [EligibleSubscriber] in
                let sorted = (byKind[kind] ?? []).sorted { $0.originalTransactionId < $1.originalTransactionId }
                return limit.map { Array(sorted.prefix($0)) } ?? sorted
            }
            try Self.addAppleOfferIds(&rows, reads)
            if emails {
                // In the same read as the lists, in their id order (neighbouring pages of the
                // index); a subscription on several lists is read once.
                var seen: Set<String> = []
                let ids = rows.map(\.originalTransactionId).filter { seen.insert($0).inserted }
                let found = try reads.emails(of: ids)
                for index in rows.indices { rows[index].email = found[rows[index].originalTransactionId] }
            }
            return rows
        }
    }
}

extension SubscriberAnalytics {
    /// Apple's win-back offer ids on each win-back row (docs/metrics.md, "Renewal details from
    /// Apple"), read for the rows returned only.
    static func addAppleOfferIds(_ rows: inout [EligibleSubscriber], _ reads: EligibilityReads) throws {
        let winBack = rows.indices.filter { rows[$0].offer == .winBackOffer }
        guard !winBack.isEmpty else { return }
        let found = try reads.appleWinBackOfferIds(of: winBack.map { rows[$0].originalTransactionId })
        for i in winBack { rows[i].appleOfferIds = found[rows[i].originalTransactionId] ?? [] }
    }

    /// The customer's email of each of `ids` that has one (the one pane 1 shows), read for those
    /// ids only: the Offers pane's flagged list names who it flagged.
    public func emails(of ids: [String]) throws -> [String: String] {
        try database.emails(of: Array(Set(ids)))
    }
}

/// One copy of each repeated text.
private struct SharedTexts {
    private var seen: [String: String] = [:]

    subscript(text: String) -> String {
        mutating get {
            if let shared = seen[text] { return shared }
            seen[text] = text
            return text
        }
    }
}

/// What the eligibility rules (docs/metrics.md, "Offer eligibility") read of a live (not expired)
/// segment at as-of.
private struct LiveSegment {
    var state: SubscriptionState
    var autoRenew: Bool
    var paidPeriods: Int
    var periodDays: Double?

    var isActive: Bool { state.isActive }

    /// Why the subscription is eligible for `offer`, in a few words; nil when it is not (win-back
    /// and service by billing failures are decided elsewhere).
    func reason(for offer: OfferFlagKind) -> String? {
        switch offer {
        case .winBackOffer:
            return nil
        case .retention:
            guard isActive, !autoRenew else { return nil }
            return "auto-renew off, \(state.rawValue)"
        case .upgrade:
            guard isActive, let days = periodDays, days < OfferEligibility.upgradeMaximumPeriodDays,
                paidPeriods >= OfferEligibility.upgradeMinimumPaidPeriods
            else { return nil }
            return "\(paidPeriods) paid periods of \(Int(days.rounded())) days"
        case .loyalty:
            guard isActive, paidPeriods >= OfferEligibility.loyaltyMinimumPaidPeriods, autoRenew else { return nil }
            return "\(paidPeriods) paid periods, auto-renew on"
        case .service:
            guard state == .gracePeriod || state == .billingRetry else { return nil }
            return "in \(state.rawValue)"
        }
    }
}
