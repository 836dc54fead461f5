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

    public init(
        offer: OfferFlagKind, originalTransactionId: String, productId: String, detail: String, email: String? = nil,
        appleOfferIds: [String] = []
    ) {
        self.offer = offer
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.detail = detail
        self.email = email
        self.appleOfferIds = appleOfferIds
    }
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
    /// Each offer is one index read in id order (``forEachEligible(asOf:offers:scope:offset:limit:emails:_:)``),
    /// none of which visits the subscriptions that ended long ago but win-back's (see
    /// `EligibilityReads`). Repeated texts (products, reasons) are shared, so a million-subscriber
    /// list stays small in memory.
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
        var texts = SharedTexts()
        var rows: [EligibleSubscriber] = []
        try database.readEligibility(asOf: asOf.milliseconds, scope: Self.purchased(scope).rows) { reads in
            for kind in kinds {
                var taken = 0
                try Self.forEachEligible(kind, reads, limit: limit) { row in
                    var row = row
                    row.productId = texts[row.productId]
                    row.detail = texts[row.detail]
                    rows.append(row)
                    taken += 1
                    return limit.map { taken < $0 } ?? true
                }
            }
            try Self.addAppleOfferIds(&rows, reads)
            if emails { try Self.addEmails(&rows, reads) }
        }
        return rows
    }

    /// How many subscribers are eligible for each of `offers` at `asOf` (the others are absent):
    /// the lengths of the lists ``eligibility(asOf:offers:scope:limit:emails:)`` gives, counted by
    /// aggregate queries over the same rows without reading the lists.
    public func eligibilityCounts(
        asOf: Instant, offers kinds: [OfferFlagKind] = OfferFlagKind.allCases, scope: ReportScope = ReportScope()
    ) throws -> [OfferFlagKind: Int] {
        try database.readEligibility(asOf: asOf.milliseconds, scope: Self.purchased(scope).rows) { reads in
            try Self.counts(kinds, reads)
        }
    }

    /// `report eligibility`'s list, written as it is read: the entries of `offers` at `asOf` in the
    /// report's order (by offer in `offers`' order, then id), from the `offset`th, at most `limit`
    /// of them, handed to `body` a batch at a time (500 entries, or fewer for the last) so the
    /// memory held is a batch's whatever the store's size. With `counted`, the whole list's counts
    /// (``eligibilityCounts(asOf:offers:scope:)``, whatever `offset` and `limit` say) go to it
    /// first, read in the same transaction as the entries; they also let `offset` skip whole
    /// offers unread.
    public func forEachEligible(
        asOf: Instant, offers kinds: [OfferFlagKind], scope: ReportScope = ReportScope(),
        offset: Int = 0, limit: Int? = nil, emails: Bool = false,
        counted: (([OfferFlagKind: Int]) throws -> Void)? = nil,
        _ body: ([EligibleSubscriber]) throws -> Void
    ) throws {
        let batchSize = 500
        try database.readEligibility(asOf: asOf.milliseconds, scope: Self.purchased(scope).rows) { reads in
            let counts = try counted.map { report in
                let counts = try Self.counts(kinds, reads)
                try report(counts)
                return counts
            }
            var skip = max(0, offset)
            var left = limit.map { max(0, $0) } ?? Int.max
            var batch: [EligibleSubscriber] = []
            batch.reserveCapacity(batchSize)
            func flush() throws {
                guard !batch.isEmpty else { return }
                try Self.addAppleOfferIds(&batch, reads)
                if emails { try Self.addEmails(&batch, reads) }
                try body(batch)
                batch.removeAll(keepingCapacity: true)
            }
            for kind in kinds where left > 0 {
                if let count = counts?[kind], skip >= count {
                    skip -= count
                    continue
                }
                try Self.forEachEligible(kind, reads, limit: nil) { row in
                    if skip > 0 {
                        skip -= 1
                        return true
                    }
                    batch.append(row)
                    left -= 1
                    if batch.count == batchSize { try flush() }
                    return left > 0
                }
            }
            try flush()
        }
    }

    /// Offers are for paying subscribers: purchased subscriptions only, whatever the scope says.
    static func purchased(_ scope: ReportScope) -> ReportScope {
        var purchased = scope
        purchased.ownership = .purchased
        return purchased
    }

    /// The list of `kind`, in id order, each entry to `body` until it answers false; `limit` (the
    /// Offers pane's first screen) lets win-back's read stop in SQL.
    static func forEachEligible(
        _ kind: OfferFlagKind, _ reads: EligibilityReads, limit: Int?,
        _ body: (EligibleSubscriber) throws -> Bool
    ) throws {
        func entry(_ id: String, _ product: String, _ detail: String) -> EligibleSubscriber {
            EligibleSubscriber(offer: kind, originalTransactionId: id, productId: product, detail: detail)
        }
        switch kind {
        case .winBackOffer:
            // The latest run ended voluntarily (or over a price increase) in (asOf − 180 days,
            // asOf], and no later run started by asOf.
            let runs = try reads.endedRuns(windowDays: OfferEligibility.winBackWindowDays, limit: limit)
            while let row = try runs.next() {
                let detail = "ended \(row.expirationReason) \(row.endedAt.isoDate)"
                guard try body(entry(row.originalTransactionId, row.productId, detail)) else { return }
            }
        case .retention, .upgrade, .loyalty:
            let segments = try reads.liveSegments(LiveSegment.filter(for: kind))
            while let row = try segments.next() {
                guard let detail = LiveSegment(row).reason(for: kind) else { continue }
                guard try body(entry(row.originalTransactionId, row.productId, detail)) else { return }
            }
        case .service:
            // In grace or billing retry at asOf, or two or more billing failures in (asOf − 365
            // days, asOf] (the first reason when both): two lists in id order, merged.
            let byState = try reads.liveSegments(LiveSegment.filter(for: .service))
            let byFailures = try reads.repeatedFailures(
                windowDays: OfferEligibility.serviceFailureWindowDays,
                minimum: OfferEligibility.serviceMinimumBillingFailures)
            var state = try byState.next()
            var failures = try byFailures.next()
            while state != nil || failures != nil {
                let next: EligibleSubscriber
                if let s = state,
                    failures.map({ !Self.idPrecedes($0.originalTransactionId, s.originalTransactionId) }) ?? true
                {
                    if failures?.originalTransactionId == s.originalTransactionId { failures = try byFailures.next() }
                    state = try byState.next()
                    guard let detail = LiveSegment(s).reason(for: .service) else { continue }
                    next = entry(s.originalTransactionId, s.productId, detail)
                } else if let f = failures {
                    failures = try byFailures.next()
                    next = entry(
                        f.originalTransactionId, f.productId,
                        "\(f.failures) billing failures in \(OfferEligibility.serviceFailureWindowDays) days")
                } else {
                    break
                }
                guard try body(next) else { return }
            }
        }
    }

    /// Whether id `a` comes before `b` in the store's order (SQLite's: the UTF-8 bytes compared).
    static func idPrecedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    /// The length of each of `kinds`' lists, by aggregate queries over the rows the lists read.
    static func counts(_ kinds: [OfferFlagKind], _ reads: EligibilityReads) throws -> [OfferFlagKind: Int] {
        var counts: [OfferFlagKind: Int] = [:]
        for kind in kinds {
            switch kind {
            case .winBackOffer:
                counts[kind] = try reads.countEndedRuns(windowDays: OfferEligibility.winBackWindowDays)
            case .retention, .upgrade, .loyalty:
                counts[kind] = try reads.countLiveSegments(LiveSegment.filter(for: kind))
            case .service:
                let byState = LiveSegment.filter(for: .service)
                counts[kind] =
                    try reads.countLiveSegments(byState)
                    + reads.countRepeatedFailures(
                        windowDays: OfferEligibility.serviceFailureWindowDays,
                        minimum: OfferEligibility.serviceMinimumBillingFailures, notIn: byState)
            }
        }
        return counts
    }

    /// Each row's customer email, read for these rows only, in their id order; a subscription on
    /// several lists is read once.
    static func addEmails(_ rows: inout [EligibleSubscriber], _ reads: EligibilityReads) throws {
        var seen: Set<String> = []
        let ids = rows.map(\.originalTransactionId).filter { seen.insert($0).inserted }
        let found = try reads.emails(of: ids)
        for index in rows.indices { rows[index].email = found[rows[index].originalTransactionId] }
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

    init(_ row: LiveSegmentRow) {
        self.init(state: row.state, autoRenew: row.autoRenew, paidPeriods: row.paidPeriods, periodDays: row.periodDays)
    }

    init(state: SubscriptionState, autoRenew: Bool, paidPeriods: Int, periodDays: Double?) {
        self.state = state
        self.autoRenew = autoRenew
        self.paidPeriods = paidPeriods
        self.periodDays = periodDays
    }

    var isActive: Bool { state.isActive }

    /// The segments ``reason(for:)`` names a reason for, as the store reads them: what the list of
    /// `offer` reads and its count counts (win-back is decided elsewhere and reads none).
    static func filter(for offer: OfferFlagKind) -> LiveSegmentFilter {
        let active = SubscriptionState.allCases.filter(\.isActive)
        switch offer {
        case .winBackOffer: return LiveSegmentFilter(states: [])
        case .retention: return LiveSegmentFilter(states: active, autoRenew: false)
        case .upgrade:
            return LiveSegmentFilter(
                states: active, minimumPaidPeriods: OfferEligibility.upgradeMinimumPaidPeriods,
                periodDaysBelow: OfferEligibility.upgradeMaximumPeriodDays)
        case .loyalty:
            return LiveSegmentFilter(
                states: active, autoRenew: true, minimumPaidPeriods: OfferEligibility.loyaltyMinimumPaidPeriods)
        case .service: return LiveSegmentFilter(states: [.gracePeriod, .billingRetry])
        }
    }

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
