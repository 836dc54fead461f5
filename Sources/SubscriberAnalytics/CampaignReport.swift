import Foundation
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// Campaigns per flag kind and offer (docs/metrics.md, "Campaigns"): flagged, served, redeemed,
/// converted, retained.
public struct CampaignReport: Sendable, Equatable {
    /// The Apple offer a flag means: the offer kind its redemption carries and its identifier.
    public struct Offer: Sendable, Hashable {
        public var kind: OfferKind
        public var identifier: String
        public init(kind: OfferKind, identifier: String) {
            self.kind = kind
            self.identifier = identifier
        }
    }

    /// A step of the funnel, for listing the subscriptions behind it.
    public enum Step: String, Sendable, CaseIterable {
        case flagged, served, redeemed, converted, lapsed
    }

    public struct Row: Sendable, Equatable {
        /// The subscriptions (originalTransactionIds) at each step, one entry per campaign.
        public var members: [Step: [String]] = [:]
        public var flag: OfferFlagKind
        /// Nil: the catalogue has no offer for the flag and product ("none").
        public var offer: Offer?
        public var flagged = 0
        public var served = 0
        public var redeemed = 0
        public var converted = 0
        /// Lapsed or switched.
        public var lapsed = 0
        public var pending: Int { redeemed - converted - lapsed }
        /// Whole days from the flag to the redemption, one per redeemed campaign.
        public var daysToRedeem: [Int] = []
        public var retention3: Double?
        public var retention6: Double?

        public var servedRate: Double? { flagged == 0 ? nil : Double(served) / Double(flagged) }
        public var redemptionRate: Double? { flagged == 0 ? nil : Double(redeemed) / Double(flagged) }
        public var conversionRate: Double? { converted + lapsed == 0 ? nil : Double(converted) / Double(converted + lapsed) }
        /// The median (the lower middle of an even count), nil when none redeemed.
        public var timeToRedeemDays: Int? {
            guard !daysToRedeem.isEmpty else { return nil }
            return daysToRedeem.sorted()[(daysToRedeem.count - 1) / 2]
        }
    }

    public var from: Instant
    public var to: Instant
    public var asOf: Instant
    /// Sorted by flag kind (as `OfferFlagKind` lists them), then offer identifier (none first).
    public var rows: [Row]
}

extension SubscriberAnalytics {
    /// `offer(flag, productId, subscriptionGroup)`: the catalogue's offer, or nil.
    public func campaigns(
        from: Instant, to: Instant, asOf: Instant,
        offer: (OfferFlagKind, String, String?) -> CampaignReport.Offer?
    ) throws -> CampaignReport {
        struct Campaign {
            var id: String
            var flag: OfferFlagKind
            var start: Instant
            var end: Instant?
        }
        // Campaigns from the audit log: a set starts one, a change ends the open one and starts
        // another, a clear ends it.
        var open: [String: Int] = [:]
        var campaigns: [Campaign] = []
        for line in try database.flagLog() {
            let key = line.originalTransactionId + "\u{0}" + line.offer.rawValue
            if let index = open.removeValue(forKey: key) { campaigns[index].end = line.at }
            if line.action == .set {
                open[key] = campaigns.count
                campaigns.append(Campaign(id: line.originalTransactionId, flag: line.offer, start: line.at))
            }
        }
        let selected = campaigns.filter { $0.start >= from && $0.start < to && $0.start <= asOf }
        let served = Dictionary(grouping: try database.servedOffers(), by: \.originalTransactionId)
        let day: Int64 = 86_400_000
        let validity: Int64 = day

        struct Outcome {
            var id: String
            var key: RowKey
            var served: Bool
            var redemption: (transactionId: String, at: Instant, use: OfferUse?, paidAfter: Int, ended: Bool)?
            var start: Instant
        }
        var outcomes: [Outcome] = []
        // Which campaign a redeemed transaction counts for: the one flagged last.
        var claimedBy: [String: Int] = [:]
        var timelines: [String: SubscriptionTimeline] = [:]
        for c in selected {
            let timeline: SubscriptionTimeline
            if let t = timelines[c.id] {
                timeline = t
            } else {
                timeline = SubscriptionTimeline.derive(try database.facts(of: c.id))
                timelines[c.id] = timeline
            }
            let product =
                timeline.periods.last(where: { $0.start <= c.start })?.productId ?? timeline.periods.first?.productId ?? ""
            let group = try database.offerSubject(originalTransactionId: c.id)?.subscriptionGroupIdentifier
            let catalogueOffer = offer(c.flag, product, group)
            let end = min(c.end ?? asOf, asOf)
            let mine = (served[c.id] ?? []).filter { $0.flag == c.flag && $0.flagAt == c.start }
            let servedInCampaign = mine.filter { $0.at >= c.start && $0.at < end }
            var identifiers = Set(servedInCampaign.map(\.offerIdentifier))
            if let catalogueOffer { identifiers.insert(catalogueOffer.identifier) }
            let lastServed = servedInCampaign.map(\.at).max()
            let windowEnd = min(max(end, lastServed.map { $0.adding(milliseconds: validity) } ?? end), asOf)
            let kind = catalogueOffer?.kind ?? .promotional
            var outcome = Outcome(
                id: c.id, key: RowKey(flag: c.flag, offer: catalogueOffer), served: !servedInCampaign.isEmpty, redemption: nil,
                start: c.start)
            if let index = timeline.periods.firstIndex(where: {
                $0.offerKind == kind && $0.offerIdentifier.map(identifiers.contains) == true && $0.start >= c.start
                    && $0.start <= windowEnd
            }) {
                let period = timeline.periods[index]
                let use = timeline.offerUses.first { $0.start == period.start && $0.offerKind == period.offerKind }
                var paidAfter = 0
                var ended = false
                if let use, use.outcome(asOf: asOf) == .converted {
                    let run = timeline.runs[use.runIndex]
                    paidAfter =
                        timeline.periods[(use.lastPeriod + 1)...run.lastPeriod].filter {
                            $0.start <= asOf && $0.countsForRetention
                        }.count
                    ended = run.endedAt <= asOf
                }
                outcome.redemption = (period.transactionId, period.start, use, paidAfter, ended)
                let claimKey = c.id + "\u{0}" + period.transactionId
                if let earlier = claimedBy[claimKey], outcomes[earlier].start > c.start {
                    outcome.redemption = nil
                } else {
                    if let earlier = claimedBy[claimKey] { outcomes[earlier].redemption = nil }
                    claimedBy[claimKey] = outcomes.count
                }
            }
            outcomes.append(outcome)
        }

        var rows: [RowKey: CampaignReport.Row] = [:]
        var members: [RowKey: [(paid: Int, ended: Bool)]] = [:]
        for o in outcomes {
            var row = rows[o.key] ?? CampaignReport.Row(flag: o.key.flag, offer: o.key.offer)
            row.flagged += 1
            row.members[.flagged, default: []].append(o.id)
            if o.served {
                row.served += 1
                row.members[.served, default: []].append(o.id)
            }
            if let r = o.redemption {
                row.redeemed += 1
                row.members[.redeemed, default: []].append(o.id)
                row.daysToRedeem.append(Int((r.at.milliseconds - o.start.milliseconds) / day))
                switch r.use?.outcome(asOf: asOf) {
                case .converted?:
                    row.converted += 1
                    row.members[.converted, default: []].append(o.id)
                    members[o.key, default: []].append((r.paidAfter, r.ended))
                case .lapsed?, .switched?:
                    row.lapsed += 1
                    row.members[.lapsed, default: []].append(o.id)
                default: break
                }
            }
            rows[o.key] = row
        }
        for (key, list) in members {
            let rates = Self.retention(list, periods: 6)
            rows[key]?.retention3 = rates[2]
            rows[key]?.retention6 = rates[5]
        }
        let order = Dictionary(uniqueKeysWithValues: OfferFlagKind.allCases.enumerated().map { ($1, $0) })
        let sorted = rows.values.sorted { a, b in
            if a.flag != b.flag { return order[a.flag]! < order[b.flag]! }
            return (a.offer?.identifier ?? "") < (b.offer?.identifier ?? "")
                || ((a.offer?.identifier ?? "") == (b.offer?.identifier ?? "") && a.offer == nil && b.offer != nil)
        }
        return CampaignReport(from: from, to: to, asOf: asOf, rows: sorted)
    }
}

private struct RowKey: Hashable {
    var flag: OfferFlagKind
    var offer: CampaignReport.Offer?
}
