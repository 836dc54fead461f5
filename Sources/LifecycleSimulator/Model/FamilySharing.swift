import SubscriptionModel

extension LifecycleModel {
    /// Share of production purchasers who share their subscription with their family.
    public static let familySharingShare = 0.1
    /// Share of family members whose access is revoked at some point (sharing turned off, or they
    /// left the family) other than by the purchaser's refund.
    public static let sharingRevokedShare = 0.2

    /// The family members of `purchaser` (none for most): each its own subscription under its own
    /// `originalTransactionId`, marked `familyShared`, mirroring the purchaser's periods from the
    /// one it joined in to the end of that run. Its access is revoked when the purchaser is
    /// refunded, and now and then at a random time. Drawn from a random stream of its own, so the
    /// purchasers' lifecycles (and documents) are the same with or without family members; and
    /// nothing a member is told happens after the purchaser's last notification, so the data
    /// horizon does not move either.
    public func familyMembers(of purchaser: SubscriberLifecycle) -> [SubscriberLifecycle] {
        guard purchaser.environment == .production, purchaser.ownership == .purchased,
            let lastNotice = purchaser.notifications.map(\.instant).max(),
            // Apple documents no Family Sharing of commitments: their purchasers share nothing.
            !purchaser.transactions.contains(where: { $0.commitment != nil })
        else { return [] }
        var rng = SplitMix64(seed: seed, index: purchaser.index, stream: 3)
        guard rng.chance(Self.familySharingShare) else { return [] }
        let count = 1 + rng.int(in: 0..<3)
        // Only periods the App Store told the purchaser about can be shared.
        let shareable = purchaser.transactions.indices.filter { purchaser.transactions[$0].purchaseDate <= lastNotice }
        guard !shareable.isEmpty else { return [] }
        return (0..<count).compactMap { member in
            let joined = shareable[rng.int(in: 0..<shareable.count)]
            return familyMember(member, of: purchaser, joiningAt: joined, lastNotice: lastNotice, rng: &rng)
        }
    }

    private func familyMember(
        _ member: Int, of purchaser: SubscriberLifecycle, joiningAt first: Int, lastNotice: Instant,
        rng: inout SplitMix64
    ) -> SubscriberLifecycle? {
        let run = purchaser.transactions[first].run
        let mirrored = purchaser.transactions.indices.filter {
            $0 >= first && purchaser.transactions[$0].run == run && purchaser.transactions[$0].purchaseDate <= lastNotice
        }
        var life = SubscriberLifecycle(
            index: Self.memberIndexBase + purchaser.index * 4 + member,
            environment: purchaser.environment, appAccountToken: nil, ownership: .familyShared)
        life.scenarios.append(.familyMember)
        // A random revocation inside one of the mirrored periods, before the purchaser's last notice.
        var revokeAt: Instant?
        if rng.chance(Self.sharingRevokedShare) {
            let t = purchaser.transactions[mirrored[rng.int(in: 0..<mirrored.count)]]
            let upper = min(t.expiresDate, lastNotice).milliseconds
            if t.purchaseDate.milliseconds < upper {
                revokeAt = Instant(milliseconds: rng.int64(in: t.purchaseDate.milliseconds..<upper))
            }
        }
        let idBase = 3_000_000_000_000_000 + UInt64(purchaser.index) * 4000 + UInt64(member) * 1000
        for (k, p) in mirrored.enumerated() {
            let source = purchaser.transactions[p]
            var t = SimulatedTransaction(
                transactionId: idBase + UInt64(k), webOrderLineItemId: idBase + 500 + UInt64(k), product: source.product,
                purchaseDate: source.purchaseDate, expiresDate: source.expiresDate, offer: nil, price: source.price,
                isRenewal: k > 0, run: 0)
            var scenario: ScenarioEvent?
            // A late refund returns a past month's charge while the subscription goes on: the family keeps access.
            if source.isRefunded, !source.isLateRefund, let refunded = source.revocationDate,
                revokeAt.map({ refunded <= $0 }) ?? true
            {
                t.revocationDate = refunded
                scenario = .sharingRevokedAfterRefund
            } else if let r = revokeAt, r < source.expiresDate {
                t.revocationDate = max(r, source.purchaseDate)
                scenario = .sharingRevoked
            }
            life.transactions.append(t)
            let renewal = RenewalSnapshot(
                autoRenewProduct: source.product,
                recentSubscriptionStartDate: mirrored.first
                    .map { purchaser.transactions[$0].purchaseDate } ?? source.purchaseDate)
            life.notifications.append(
                SimulatedNotification(
                    kind: k == 0 ? .initialBuy : .renew, instant: source.purchaseDate, transaction: k, renewal: renewal,
                    notificationUUID: rng.uuid()))
            if let revoked = t.revocationDate, let scenario {
                var ended = renewal
                ended.autoRenewStatus = false
                ended.status = 5
                life.notifications.append(
                    SimulatedNotification(
                        kind: .revoke, instant: revoked, transaction: k,
                        renewal: ended, notificationUUID: rng.uuid()))
                life.scenarios.append(scenario)
                break
            }
        }
        return life.transactions.isEmpty ? nil : life
    }

    /// Family members' `index` (it seeds their stand-in receipts and app transaction ids) lies
    /// above every purchaser's.
    static let memberIndexBase = 100_000_000
}
