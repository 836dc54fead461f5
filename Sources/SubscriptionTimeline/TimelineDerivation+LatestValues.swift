import SubscriptionModel

/// The "latest" values of docs/metrics.md: each picks the latest fact by its own instant, ties broken
/// on the value so that the order of arrival never matters.
extension TimelineDerivation {
    func environment() -> StoreEnvironment {
        if let e = firstPeriodEnvironment { return e }
        let all =
            facts.transactions.map(\.environment) + facts.renewals.map(\.environment)
            + facts.notifications.map(\.environment)
        return all.min { $0.rawValue < $1.rawValue } ?? .production
    }

    /// Every `autoRenewProductId` reported, sorted by instant then value; the last one read at
    /// or before an instant is the value at that instant.
    func autoRenewProductIds() -> [TimedValue<String>] {
        sortedUnique(facts.renewals.compactMap { r in r.autoRenewProductId.map { TimedValue(at: r.instant, value: $0) } })
    }

    /// Every price-increase status reported (renewal facts, v2 `PRICE_INCREASE` PENDING = 0,
    /// ACCEPTED = 1), sorted by instant then value.
    func priceIncreaseStatuses() -> [TimedValue<Int>] {
        var all = facts.renewals.compactMap { r in r.priceIncreaseStatus.map { TimedValue(at: r.instant, value: $0) } }
        for note in facts.notifications where note.format != .v1Notification && note.notificationType == "PRICE_INCREASE" {
            if note.subtype == "PENDING" { all.append(TimedValue(at: note.instant, value: 0)) }
            if note.subtype == "ACCEPTED" { all.append(TimedValue(at: note.instant, value: 1)) }
        }
        return sortedUnique(all)
    }

    private func sortedUnique<V>(_ values: [TimedValue<V>]) -> [TimedValue<V>] {
        var result: [TimedValue<V>] = []
        for v in values.sorted(by: { ($0.at, $0.value) < ($1.at, $1.value) }) where result.last != v { result.append(v) }
        return result
    }

    func appAccountToken() -> String? {
        var best: (at: Instant, token: String)?
        for t in transactions {
            guard let token = t.appAccountToken else { continue }
            if let b = best, (b.at, b.token) >= (t.purchaseDate, token) { continue }
            best = (t.purchaseDate, token)
        }
        return best?.token
    }

    func dataHorizon() -> Instant? {
        var h: Instant?
        func see(_ t: Instant?) { if let t, h.map({ t > $0 }) ?? true { h = t } }
        for n in facts.notifications { see(n.instant) }
        for r in facts.renewals { see(r.instant) }
        for t in facts.transactions {
            see(t.purchaseDate)
            see(t.revocationDate)
        }
        return h
    }
}
