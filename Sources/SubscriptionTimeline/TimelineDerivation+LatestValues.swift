import SubscriptionModel

/// The "latest" values of DESIGN §3: each picks the latest fact by its own instant, ties broken
/// on the value so that the order of arrival never matters.
extension TimelineDerivation {
    func environment() -> StoreEnvironment {
        if let e = firstPeriodEnvironment { return e }
        let all = facts.transactions.map(\.environment) + facts.renewals.map(\.environment)
            + facts.notifications.map(\.environment)
        return all.min { $0.rawValue < $1.rawValue } ?? .production
    }

    func autoRenewProductId() -> String? {
        var best: (at: Instant, id: String)?
        for r in facts.renewals {
            guard let id = r.autoRenewProductId else { continue }
            if let b = best, (b.at, b.id) >= (r.instant, id) { continue }
            best = (r.instant, id)
        }
        return best?.id
    }

    func priceIncreaseStatus() -> Int? {
        var best: (at: Instant, status: Int)?
        func offer(_ at: Instant, _ status: Int) {
            if let b = best, (b.at, b.status) >= (at, status) { return }
            best = (at, status)
        }
        for r in facts.renewals { if let s = r.priceIncreaseStatus { offer(r.instant, s) } }
        for note in facts.notifications where note.format != .v1Notification && note.notificationType == "PRICE_INCREASE" {
            if note.subtype == "PENDING" { offer(note.instant, 0) } else if note.subtype == "ACCEPTED" { offer(note.instant, 1) }
        }
        return best?.status
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
        for t in facts.transactions { see(t.purchaseDate); see(t.revocationDate) }
        return h
    }
}
