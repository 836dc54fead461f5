import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// How offer uses started in [from, to) turned out at as-of, and what the converted ones kept
/// (docs/metrics.md "Money", "Offer conversion").
public struct OfferConversionReport: Sendable, Equatable {
    public struct Row: Sendable, Equatable, Hashable {
        public var offerKind: OfferKind
        public var offerIdentifier: String?
        public var started = 0
        public var converted = 0
        public var lapsed = 0
        public var switched = 0
        public var pending: Int { started - converted - lapsed - switched }
        /// converted / (converted + lapsed), nil when both are 0.
        public var rate: Double? { converted + lapsed == 0 ? nil : Double(converted) / Double(converted + lapsed) }
        /// Kaplan–Meier retention of the converted uses at P3 and P6 (P1 = the conversion period).
        public var retention3: Double?
        public var retention6: Double?

        public init(offerKind: OfferKind, offerIdentifier: String?) {
            self.offerKind = offerKind
            self.offerIdentifier = offerIdentifier
        }
    }

    public var from: Instant
    public var to: Instant
    public var asOf: Instant
    /// Sorted by offer kind, then identifier (none first).
    public var offers: [Row]
}

extension SubscriberAnalytics {
    public func offerConversion(
        from: Instant, to: Instant, asOf: Instant,
        scope: ReportScope = ReportScope()
    ) throws -> OfferConversionReport {
        var rows: [Key: OfferConversionReport.Row] = [:]
        var paidAfterConversion: [Key: [(paid: Int, ended: Bool)]] = [:]
        let uses = try database.offerUses(
            from: from.milliseconds, upper: min(to, asOf.adding(milliseconds: 1)).milliseconds,
            asOf: asOf.milliseconds, scope: scope.rows)
        for r in uses.counts {
            guard let kind = OfferKind(rawValue: r.offerKind) else { continue }
            let key = Key(kind: kind, identifier: r.offerIdentifier)
            var row = OfferConversionReport.Row(offerKind: kind, offerIdentifier: key.identifier)
            (row.started, row.converted, row.switched, row.lapsed) = (r.started, r.converted, r.switched, r.lapsed)
            rows[key] = row
        }
        // Paid periods from the conversion on, counted as the cohort grid counts them (see
        // `ConvertedOfferUse.paidPeriods`).
        for r in uses.converted {
            guard let kind = OfferKind(rawValue: r.offerKind) else { continue }
            paidAfterConversion[Key(kind: kind, identifier: r.offerIdentifier), default: []].append(
                contentsOf: repeatElement((paid: r.paidPeriods, ended: r.ended), count: r.count))
        }
        for (key, members) in paidAfterConversion {
            let rates = Self.retention(members, periods: 6)
            rows[key]?.retention3 = rates[2]
            rows[key]?.retention6 = rates[5]
        }
        let order = Dictionary(uniqueKeysWithValues: OfferKind.allCases.enumerated().map { ($1, $0) })
        let sorted = rows.values.sorted { a, b in
            if a.offerKind != b.offerKind { return order[a.offerKind]! < order[b.offerKind]! }
            switch (a.offerIdentifier, b.offerIdentifier) {
            case (let x?, let y?): return x < y
            case (nil, .some): return true
            default: return false
            }
        }
        return OfferConversionReport(from: from, to: to, asOf: asOf, offers: sorted)
    }

    /// Kaplan–Meier rates P1…P`periods` of members with `paid` paid periods so far, `ended` when
    /// their run has ended (the cohort rule: retained at k with at least k+1, ended at k with
    /// exactly k, censored otherwise).
    static func retention(_ members: [(paid: Int, ended: Bool)], periods: Int) -> [Double?] {
        var retained = [Int](repeating: 0, count: periods)
        var ended = [Int](repeating: 0, count: periods)
        for m in members {
            for k in 1...periods where m.paid >= k + 1 { retained[k - 1] += 1 }
            if m.ended, m.paid >= 1, m.paid <= periods { ended[m.paid - 1] += 1 }
        }
        return KaplanMeier.rates(retained: retained, ended: ended)
    }
}

private struct Key: Hashable {
    var kind: OfferKind
    var identifier: String?
}
