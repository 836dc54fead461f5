import SubscriptionModel

/// The steps of ``SubscriptionTimeline/derive(_:)``, in dependency order.
struct TimelineDerivation {
    /// Renewals are often charged up to a day early; gaps and overlaps within this are joined.
    static let tolerance: Int64 = 24 * Instant.millisecondsPerHour
    /// The App Store retries billing for up to 60 days.
    static let retryLimitDays: Int64 = 60
    /// The App Store retries an owed payment of a 12-month commitment for up to 90 days.
    static let commitmentRetryLimitDays: Int64 = 90

    struct AutoRenewFact {
        var at: Instant
        var isOn: Bool
        var isToggle: Bool
    }

    let facts: SubscriptionFacts
    var transactions: [TransactionFact] = []
    var periods: [Period] = []
    var firstPeriodEnvironment: StoreEnvironment?
    var ownership: Ownership = .purchased
    /// `(transactionId, period index)` sorted by id, for attributing facts to periods.
    var periodIds: [(id: String, period: Int)] = []
    /// Index into `failures` of each period's billing failure.
    var failureOfPeriod: [Int?] = []
    var failures: [BillingFailure] = []
    var runs: [Run] = []
    var autoRenewIntervals: [AutoRenewInterval] = []
    var events: [TimelineEvent] = []
    var commitments: [Commitment] = []

    init(_ facts: SubscriptionFacts) { self.facts = facts }

    mutating func timeline() -> SubscriptionTimeline {
        transactions = TransactionMerge.merged(facts.transactions)
        ownership = latestOwnership()
        buildPeriods()
        findBillingFailures()
        classifyPeriods()
        buildRuns()
        buildCommitments()
        deriveAutoRenew()
        assignExpirationReasons()
        collectEvents()
        let renewsTo = autoRenewProductIds()
        let priceIncrease = priceIncreaseStatuses()
        var timeline = SubscriptionTimeline(
            originalTransactionId: facts.originalTransactionId, environment: environment(), ownership: ownership,
            periods: periods,
            runs: runs, billingFailures: failures, events: events, stateIntervals: stateIntervals(),
            autoRenewIntervals: autoRenewIntervals, autoRenewProductIds: renewsTo, priceIncreaseStatuses: priceIncrease,
            appAccountToken: appAccountToken(), dataHorizon: dataHorizon())
        timeline.commitments = commitments
        return timeline
    }

    // MARK: - Periods, overlaps and upgrades

    mutating func buildPeriods() {
        var drafts: [(fact: TransactionFact, uncutEnd: Instant)] = []
        drafts.reserveCapacity(transactions.count)
        for f in transactions {
            guard let expires = f.expiresDate else { continue }
            var end = expires
            if let r = f.revocationDate, r < end { end = r }
            drafts.append((f, max(end, f.purchaseDate)))
        }
        drafts.sort { a, b in
            if a.fact.purchaseDate != b.fact.purchaseDate { return a.fact.purchaseDate < b.fact.purchaseDate }
            if a.fact.isUpgraded != b.fact.isUpgraded { return a.fact.isUpgraded }
            if a.uncutEnd != b.uncutEnd { return a.uncutEnd < b.uncutEnd }
            return a.fact.transactionId < b.fact.transactionId
        }
        periods.reserveCapacity(drafts.count)
        firstPeriodEnvironment = drafts.first?.fact.environment
        for (i, d) in drafts.enumerated() {
            let f = d.fact
            let nextStart = i + 1 < drafts.count ? drafts[i + 1].fact.purchaseDate : nil
            var end = d.uncutEnd
            var cut = f.isUpgraded
            if let n = nextStart {
                end = min(end, n)
                if d.uncutEnd.milliseconds - n.milliseconds > Self.tolerance { cut = true }
            }
            // A refund: revoked and not cut by an upgrade, or reported by Apple as a refund even
            // when an upgrade cut it (docs/metrics.md, "Periods"). A cut period stays cut.
            let shared = ownership == .familyShared
            let revoked = f.revocationDate != nil && !cut
            let refunded = f.revocationDate != nil && !shared && (!cut || f.isReportedRefund)
            periods.append(
                Period(
                    transactionId: f.transactionId, webOrderLineItemId: f.webOrderLineItemId, productId: f.productId,
                    start: f.purchaseDate, end: end, expiresDate: f.expiresDate ?? end, revocationDate: f.revocationDate,
                    offerKind: f.offerKind, isFree: f.isFree, isRefunded: refunded, isPaid: !f.isFree && !refunded && !shared,
                    isCutByUpgrade: cut, periodClass: .activation, runIndex: 0, price: f.price, currency: f.currency,
                    storefront: f.storefront, revocationType: f.revocationType, revocationPercentage: f.revocationPercentage,
                    offerIdentifier: f.offerIdentifier, isSharingRevoked: revoked && shared))
            if f.billingPlan == .monthly {
                periods[periods.count - 1].billingPlan = .monthly
                periods[periods.count - 1].commitmentPeriod = f.commitment?.billingPeriodNumber
                periods[periods.count - 1].commitmentPeriods = f.commitment?.totalBillingPeriods
            }
        }
        periodIds = periods.enumerated().map { ($0.element.transactionId, $0.offset) }.sorted { $0.id < $1.id }
        failureOfPeriod = Array(repeating: nil, count: periods.count)
    }

    /// docs/metrics.md, "Family Sharing": a subscription is family-shared when its latest transaction (by
    /// purchase date, then id) says so.
    func latestOwnership() -> Ownership {
        guard let latest = transactions.max(by: { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) })
        else { return .purchased }
        return latest.isFamilyShared ? .familyShared : .purchased
    }

    /// The period a fact speaks about: its transaction, else the latest period started at or
    /// before its instant.
    func period(for transactionId: String?, at instant: Instant) -> Int? {
        if let id = transactionId {
            var lo = 0
            var hi = periodIds.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if periodIds[mid].id < id { lo = mid + 1 } else { hi = mid }
            }
            if lo < periodIds.count, periodIds[lo].id == id { return periodIds[lo].period }
        }
        return latestPeriod(startedAtOrBefore: instant)
    }

    func latestPeriod(startedAtOrBefore t: Instant) -> Int? {
        let i = lastIndex(in: periods, atOrBefore: t) { $0.start }
        return i >= 0 ? i : nil
    }

    /// The product of the latest period started at or before `t` (docs/metrics.md, "Which data,
    /// read when", Product).
    func productId(at t: Instant, fallback: Int) -> String {
        periods[latestPeriod(startedAtOrBefore: t) ?? fallback].productId
    }

    /// The billing plan of that same period: an event counts under it with `--plan` as it counts
    /// under its product with `--product` (docs/metrics.md, "Billing plans and commitments").
    func billingPlan(at t: Instant, fallback: Int) -> BillingPlan {
        periods[latestPeriod(startedAtOrBefore: t) ?? fallback].billingPlan
    }

    // MARK: - Billing failures

    mutating func findBillingFailures() {
        let n = periods.count
        guard n > 0 else { return }
        var failed = [Bool](repeating: false, count: n)
        var grace = [(reportedAt: Instant, expires: Instant)?](repeating: nil, count: n)
        var retryGaveUp: [Instant] = []
        for note in facts.notifications where note.format != .v1Notification {
            if note.notificationType == "EXPIRED" && note.subtype == "BILLING_RETRY" { retryGaveUp.append(note.instant) }
            guard note.notificationType == "DID_FAIL_TO_RENEW" || note.status == 3 || note.status == 4,
                let p = period(for: note.transactionId, at: note.instant)
            else { continue }
            failed[p] = true
        }
        for r in facts.renewals where r.isInBillingRetryPeriod == true || r.gracePeriodExpiresDate != nil {
            guard let p = period(for: r.transactionId, at: r.instant) else { continue }
            if r.isInBillingRetryPeriod == true { failed[p] = true }
            if let g = r.gracePeriodExpiresDate {
                // The latest report about the period wins; ties on the later grace date.
                if let old = grace[p], (old.reportedAt, old.expires) >= (r.instant, g) { continue }
                grace[p] = (r.instant, g)
            }
        }
        retryGaveUp.sort()
        var autoRenewOff = facts.notifications.filter { $0.isToggle && $0.autoRenewStatus == false }.map(\.instant)
        autoRenewOff.sort()

        for p in 0..<n where failed[p] {
            let period = periods[p]
            if period.isCutByUpgrade { continue }
            if period.isRevoked, let r = period.revocationDate, r < period.expiresDate { continue }
            let t = period.end
            // A payment of a commitment still owed: no grace, 90 days, a toggle does not end it.
            let owed = period.isOwedCommitmentPayment
            var retryEnd = t.adding(days: owed ? Self.commitmentRetryLimitDays : Self.retryLimitDays)
            if let e = firstInstant(in: retryGaveUp, atOrAfter: t) { retryEnd = min(retryEnd, e) }
            if !owed, let e = firstInstant(in: autoRenewOff, atOrAfter: t) { retryEnd = min(retryEnd, e) }
            let windowEnd = p + 1 < n ? min(retryEnd, periods[p + 1].start) : retryEnd
            let graceExpires = owed ? nil : grace[p].flatMap { $0.expires > t ? $0.expires : nil }
            failureOfPeriod[p] = failures.count
            failures.append(
                BillingFailure(
                    at: t, periodIndex: p, transactionId: period.transactionId, productId: period.productId,
                    gracePeriodExpiresDate: graceExpires, retryEnd: retryEnd, windowEnd: windowEnd))
        }
    }

    func firstInstant(in sorted: [Instant], atOrAfter t: Instant) -> Instant? {
        let i = lastIndex(in: sorted, atOrBefore: t.adding(milliseconds: -1)) { $0 } + 1
        return i < sorted.count ? sorted[i] : nil
    }

    // MARK: - Classes and runs

    mutating func classifyPeriods() {
        var run = 0
        for i in periods.indices.dropFirst() {
            let prev = periods[i - 1]
            let cur = periods[i]
            let c: PeriodClass
            if let f = failureOfPeriod[i - 1], cur.start < failures[f].retryEnd {
                c = .billingRecovery
                failures[f].recoveryTransactionId = cur.transactionId
                failures[f].recoveryStart = cur.start
            } else if !Self.endedByRevocation(prev, nextStart: cur.start),
                cur.start.milliseconds - prev.end.milliseconds <= Self.tolerance
            {
                if prev.isCutByUpgrade || cur.productId != prev.productId {
                    c = .productChange
                } else if cur.offerKind == .standard && prev.offerKind != .standard {
                    c = .conversion
                } else {
                    c = .renewal
                }
            } else {
                c = .reactivation
                run += 1
            }
            periods[i].periodClass = c
            periods[i].runIndex = run
        }
    }

    /// "The previous period neither ended its run by a refund nor ended by a sharing revocation"
    /// (docs/metrics.md, "Classes of periods and runs"). A refund ends its run unless it is a late
    /// refund (`Period.isLateRefund`: the next period began at or before it), whether or not an
    /// upgrade cut the period. A sharing revocation ends the run when it came at or before the
    /// period's end: one dated after it (at its expiry, or when the next period started) found
    /// the access already renewed.
    static func endedByRevocation(_ p: Period, nextStart: Instant) -> Bool {
        if p.isRefunded { return !p.isLateRefund(nextStart: nextStart) }
        guard p.isSharingRevoked, let r = p.revocationDate else { return false }
        return r <= p.end
    }

    mutating func buildRuns() {
        var first = 0
        while first < periods.count {
            var last = first
            while last + 1 < periods.count, periods[last + 1].runIndex == periods[first].runIndex { last += 1 }
            var endedAt = periods[last].end
            if let f = failureOfPeriod[last] { endedAt = max(endedAt, failures[f].retryEnd) }
            var firstPaid: Int?
            var paidStarts: [Instant] = []
            for i in first...last where periods[i].isPaid {
                if firstPaid == nil { firstPaid = i }
                if periods[i].countsForRetention { paidStarts.append(periods[i].start) }
            }
            runs.append(
                Run(
                    firstPeriod: first, lastPeriod: last, start: periods[first].start, endedAt: endedAt,
                    expirationReason: .other, firstPaidStart: firstPaid.map { periods[$0].start },
                    firstPaidProductId: firstPaid.map { periods[$0].productId }, paidPeriodStarts: paidStarts))
            first = last + 1
        }
    }

    // MARK: - Expiration reasons

    /// The expiration intent is read from the facts of the run's last period (from its start to
    /// the next run's start): an intent reported about an earlier period is about a failure
    /// that was recovered, since a later period followed (Apple reports intent 2 throughout
    /// billing retry), and says nothing about how the run finally ended.
    mutating func assignExpirationReasons() {
        var intents: [(at: Instant, reason: ExpirationReason)] = []
        for note in facts.notifications where note.format != .v1Notification && note.notificationType == "EXPIRED" {
            intents.append((note.instant, ExpirationReason(expiredSubtype: note.subtype)))
        }
        for r in facts.renewals {
            if let code = r.expirationIntent, let reason = ExpirationReason(expirationIntent: code) {
                intents.append((r.instant, reason))
            }
        }
        // At one instant the more specific reason wins.
        intents.sort { a, b in a.at != b.at ? a.at < b.at : Self.specificity(a.reason) < Self.specificity(b.reason) }

        for r in runs.indices {
            let run = runs[r]
            let nextStart = r + 1 < runs.count ? runs[r + 1].start : nil
            let reason: ExpirationReason
            if periods[run.lastPeriod].isSharingRevoked {
                reason = .sharingRevoked
            } else if periods[run.lastPeriod].isRefunded,
                !periods[run.lastPeriod].isLateRefund(nextStart: nextStart)
            {
                // Only a refund that ended its run: a late one came once the next run had begun.
                reason = .refund
            } else if failureOfPeriod[run.lastPeriod] != nil {
                reason = .billing
            } else if let intent = latestIntent(intents, from: periods[run.lastPeriod].start, before: nextStart) {
                reason = intent
            } else {
                // The run's own facts stop at the next run's start.
                var probe = run.endedAt
                if let n = nextStart, probe >= n { probe = n.adding(milliseconds: -1) }
                reason = autoRenew(at: probe) ? .other : .voluntary
            }
            runs[r].expirationReason = reason
        }
    }

    func latestIntent(
        _ intents: [(at: Instant, reason: ExpirationReason)], from start: Instant,
        before end: Instant?
    ) -> ExpirationReason? {
        let i = end.map { lastIndex(in: intents, atOrBefore: $0.adding(milliseconds: -1)) { $0.at } } ?? intents.count - 1
        return i >= 0 && intents[i].at >= start ? intents[i].reason : nil
    }

    static func specificity(_ r: ExpirationReason) -> Int {
        switch r {
        case .other: 0
        case .voluntary: 1
        case .priceIncrease: 2
        case .productUnavailable: 3
        case .billing: 4
        case .refund: 5
        case .sharingRevoked: 6
        }
    }

    // MARK: - Events

    /// Events at one instant are listed in the order they happen: by the period they are about
    /// (the failed period's billing issue before the recovery that starts at its end, the ended
    /// run's expiration before the reactivation that starts there), then by `EventType` order.
    /// A toggle is about the latest period started at or before it.
    mutating func collectEvents() {
        var keyed = events.map { (event: $0, period: latestPeriod(startedAtOrBefore: $0.at) ?? 0) }
        for (i, p) in periods.enumerated() {
            keyed.append(
                (
                    TimelineEvent(
                        at: p.start, type: EventType(p.periodClass), productId: p.productId,
                        billingPlan: p.billingPlan, transactionId: p.transactionId), i
                ))
            if p.isRefunded, let r = p.revocationDate {
                let at = max(r, p.start)
                keyed.append(
                    (
                        TimelineEvent(
                            at: at, type: .refund, productId: productId(at: at, fallback: i),
                            billingPlan: billingPlan(at: at, fallback: i), transactionId: p.transactionId), i
                    ))
            }
        }
        for f in failures {
            keyed.append(
                (
                    TimelineEvent(
                        at: f.at, type: .billingIssue, productId: productId(at: f.at, fallback: f.periodIndex),
                        billingPlan: billingPlan(at: f.at, fallback: f.periodIndex), transactionId: f.transactionId),
                    f.periodIndex
                ))
        }
        for run in runs {
            keyed.append(
                (
                    TimelineEvent(
                        at: run.endedAt, type: .expiration,
                        productId: productId(at: run.endedAt, fallback: run.lastPeriod),
                        billingPlan: billingPlan(at: run.endedAt, fallback: run.lastPeriod),
                        expirationReason: run.expirationReason), run.lastPeriod
                ))
        }
        keyed.sort { a, b in
            if a.event.at != b.event.at { return a.event.at < b.event.at }
            if a.period != b.period { return a.period < b.period }
            if a.event.type != b.event.type { return a.event.type.rank < b.event.type.rank }
            return (a.event.transactionId ?? "") < (b.event.transactionId ?? "")
        }
        events = keyed.map(\.event)
    }

    // MARK: - State intervals

    func stateIntervals() -> [StateInterval] {
        var result: [StateInterval] = []
        result.reserveCapacity(periods.count + 2 * failures.count + runs.count)
        // Each interval is about one period: its product and billing plan are that period's.
        func append(_ from: Instant, _ to: Instant?, _ state: SubscriptionState, _ p: Period) {
            if let to, to <= from { return }
            if let last = result.last, last.state == state, last.productId == p.productId, last.billingPlan == p.billingPlan,
                last.to == from
            {
                result[result.count - 1].to = to
            } else {
                result.append(
                    StateInterval(from: from, to: to, state: state, productId: p.productId, billingPlan: p.billingPlan))
            }
        }
        for (i, p) in periods.enumerated() {
            let nextStart = i + 1 < periods.count ? periods[i + 1].start : nil
            append(p.start, p.end, SubscriptionState(p.offerKind), p)
            var expiredFrom = p.end
            if let f = failureOfPeriod[i].map({ failures[$0] }) {
                append(f.at, f.graceEnd, .gracePeriod, p)
                append(f.graceEnd, f.windowEnd, .billingRetry, p)
                expiredFrom = f.windowEnd
            }
            append(expiredFrom, nextStart, .expired, p)
        }
        return result
    }
}
