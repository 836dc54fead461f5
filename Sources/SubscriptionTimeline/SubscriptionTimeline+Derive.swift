import SubscriptionModel

extension SubscriptionTimeline {
    /// DESIGN §3 applied literally to every fact of one subscription. Facts may come in any order
    /// and duplicated; the result depends only on the set of facts. O(n log n) in the facts.
    ///
    /// Where §3 is silent on real data, this is what it does:
    /// - **Transactions without `expiresDate`** (non-renewing subscriptions, non-consumables that
    ///   share the id space) are not periods; they only feed `appAccountToken` and the horizon.
    /// - **The same transaction in several facts** is merged by ``TransactionMerge``: latest
    ///   `signedDate` for v2, the version with revocation / upgrade info for v1, v2 over v1.
    /// - **A revocation (or expiry) dated before the purchase** leaves an empty period
    ///   `[start, start)`; a refund event is then dated at the start.
    /// - **Two periods starting at the same instant** are ordered upgraded-first, then shorter-first,
    ///   then by `transactionId`; the first is cut to zero length (and is cut by an upgrade when it
    ///   would have lasted more than 24 h past the other's start).
    /// - **A failure for a period cut by an upgrade**, or for a period refunded before its
    ///   `expiresDate`, is dropped: that period never reached a renewal. A failure for a period
    ///   refunded after its `expiresDate` (refund during retry) is kept.
    /// - **A v1 `is_in_billing_retry_period` "1" on an old document** counts as a failure at the end
    ///   of that document's latest row; its retry end is never later than T + 60 d, so a stale flag
    ///   cannot hold the subscription in retry.
    /// - **A fact naming an unknown transaction** (or none) is about the latest period started at or
    ///   before its instant; before the first period it is ignored.
    /// - **"After T"** for retry end includes T itself: an auto-renew-off toggle or `EXPIRED` at the
    ///   failed period's end leaves an empty retry window (a billing issue, no retry state).
    /// - **A toggle at a run start** belongs to the new run: auto-renew is on at the start, then the
    ///   toggle applies (so an "on" there is no event, an "off" there is). A fact exactly at the next
    ///   run's start is not a fact of the previous run. Toggles before the first period are ignored.
    /// - **Facts at the same instant**: a toggle beats a v2 renewal fact, "off" beats "on".
    /// - **A grace date at or before T** is ignored; the grace state never outlasts the retry window.
    /// - **Events at as-of** count ("at or before"); event ranges are half-open.
    public static func derive(_ facts: SubscriptionFacts) -> SubscriptionTimeline {
        var derivation = TimelineDerivation(facts)
        return derivation.timeline()
    }
}

/// The steps of ``SubscriptionTimeline/derive(_:)``, in dependency order.
struct TimelineDerivation {
    /// Renewals are often charged up to a day early; gaps and overlaps within this are joined.
    static let tolerance: Int64 = 24 * Instant.millisecondsPerHour
    /// The App Store retries billing for up to 60 days.
    static let retryLimitDays: Int64 = 60

    struct AutoRenewFact {
        var at: Instant
        var isOn: Bool
        var isToggle: Bool
    }

    let facts: SubscriptionFacts
    var transactions: [TransactionFact] = []
    var periods: [Period] = []
    /// `(transactionId, period index)` sorted by id, for attributing facts to periods.
    var periodIds: [(id: String, period: Int)] = []
    /// Index into `failures` of each period's billing failure.
    var failureOfPeriod: [Int?] = []
    var failures: [BillingFailure] = []
    var runs: [Run] = []
    var autoRenewIntervals: [AutoRenewInterval] = []
    var events: [TimelineEvent] = []

    init(_ facts: SubscriptionFacts) { self.facts = facts }

    mutating func timeline() -> SubscriptionTimeline {
        transactions = TransactionMerge.merged(facts.transactions)
        buildPeriods()
        findBillingFailures()
        classifyPeriods()
        buildRuns()
        deriveAutoRenew()
        assignExpirationReasons()
        collectEvents()
        return SubscriptionTimeline(
            originalTransactionId: facts.originalTransactionId, environment: environment(), periods: periods,
            runs: runs, billingFailures: failures, events: events, stateIntervals: stateIntervals(),
            autoRenewIntervals: autoRenewIntervals, autoRenewProductId: autoRenewProductId(),
            priceIncreaseStatus: priceIncreaseStatus(), appAccountToken: appAccountToken(), dataHorizon: dataHorizon())
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
        for (i, d) in drafts.enumerated() {
            let f = d.fact
            let nextStart = i + 1 < drafts.count ? drafts[i + 1].fact.purchaseDate : nil
            var end = d.uncutEnd
            var cut = f.isUpgraded
            if let n = nextStart {
                end = min(end, n)
                if d.uncutEnd.milliseconds - n.milliseconds > Self.tolerance { cut = true }
            }
            let refunded = f.revocationDate != nil && !cut
            periods.append(Period(
                transactionId: f.transactionId, webOrderLineItemId: f.webOrderLineItemId, productId: f.productId,
                start: f.purchaseDate, end: end, expiresDate: f.expiresDate ?? end, revocationDate: f.revocationDate,
                offerKind: f.offerKind, isFree: f.isFree, isRefunded: refunded, isPaid: !f.isFree && !refunded,
                isCutByUpgrade: cut, periodClass: .activation, runIndex: 0, price: f.price, currency: f.currency))
        }
        periodIds = periods.enumerated().map { ($0.element.transactionId, $0.offset) }.sorted { $0.id < $1.id }
        failureOfPeriod = Array(repeating: nil, count: periods.count)
    }

    /// The period a fact speaks about: its transaction, else the latest period started at or
    /// before its instant.
    func period(for transactionId: String?, at instant: Instant) -> Int? {
        if let id = transactionId {
            var lo = 0, hi = periodIds.count
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

    /// DESIGN §3 `--product`: the product of the latest period started at or before `t`.
    func productId(at t: Instant, fallback: Int) -> String {
        periods[latestPeriod(startedAtOrBefore: t) ?? fallback].productId
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
                  let p = period(for: note.transactionId, at: note.instant) else { continue }
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
            if period.isRefunded, let r = period.revocationDate, r < period.expiresDate { continue }
            let t = period.end
            var retryEnd = t.adding(days: Self.retryLimitDays)
            if let e = firstInstant(in: retryGaveUp, atOrAfter: t) { retryEnd = min(retryEnd, e) }
            if let e = firstInstant(in: autoRenewOff, atOrAfter: t) { retryEnd = min(retryEnd, e) }
            let windowEnd = p + 1 < n ? min(retryEnd, periods[p + 1].start) : retryEnd
            let graceExpires = grace[p].flatMap { $0.expires > t ? $0.expires : nil }
            failureOfPeriod[p] = failures.count
            failures.append(BillingFailure(
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
            } else if !prev.isRefunded, cur.start.milliseconds - prev.end.milliseconds <= Self.tolerance {
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
                if !periods[i].isCutByUpgrade { paidStarts.append(periods[i].start) }
            }
            runs.append(Run(
                firstPeriod: first, lastPeriod: last, start: periods[first].start, endedAt: endedAt,
                expirationReason: .other, firstPaidStart: firstPaid.map { periods[$0].start },
                firstPaidProductId: firstPaid.map { periods[$0].productId }, paidPeriodStarts: paidStarts))
            first = last + 1
        }
    }

    // MARK: - Auto-renew

    /// Sweeps run starts (which reset the status to on) and the toggles and v2 renewal facts in
    /// instant order, producing the intervals and the toggle events.
    mutating func deriveAutoRenew() {
        guard let firstStart = runs.first?.start else { return }
        var changes: [AutoRenewFact] = []
        for note in facts.notifications where note.isToggle {
            changes.append(AutoRenewFact(at: note.instant, isOn: note.autoRenewStatus ?? true, isToggle: true))
        }
        for r in facts.renewals where !r.isV1 {
            if let on = r.autoRenewStatus { changes.append(AutoRenewFact(at: r.instant, isOn: on, isToggle: false)) }
        }
        // At one instant: renewal facts, then toggles; "on", then "off". The last one applied wins.
        changes.sort { a, b in
            if a.at != b.at { return a.at < b.at }
            if a.isToggle != b.isToggle { return !a.isToggle }
            return a.isOn && !b.isOn
        }
        var status = true
        var r = 0
        var c = lastIndex(in: changes, atOrBefore: firstStart.adding(milliseconds: -1)) { $0.at } + 1
        while r < runs.count || c < changes.count {
            if r < runs.count, c >= changes.count || runs[r].start <= changes[c].at {
                status = true
                setAutoRenew(true, at: runs[r].start)
                r += 1
                continue
            }
            let t = changes[c].at
            let before = status
            var toggledOn = false, toggledOff = false
            while c < changes.count, changes[c].at == t {
                let ch = changes[c]
                if ch.isToggle && ch.isOn != before {
                    if ch.isOn { toggledOn = true } else { toggledOff = true }
                }
                status = ch.isOn
                c += 1
            }
            setAutoRenew(status, at: t)
            for (happened, type) in [(toggledOff, EventType.autoRenewOff), (toggledOn, .autoRenewOn)] where happened {
                events.append(TimelineEvent(at: t, type: type, productId: productId(at: t, fallback: 0)))
            }
        }
    }

    mutating func setAutoRenew(_ on: Bool, at t: Instant) {
        guard let last = autoRenewIntervals.last else {
            autoRenewIntervals.append(AutoRenewInterval(from: t, to: nil, isOn: on))
            return
        }
        if last.isOn == on { return }
        if last.from == t {
            autoRenewIntervals.removeLast()
            if let prev = autoRenewIntervals.last, prev.isOn == on {
                autoRenewIntervals[autoRenewIntervals.count - 1].to = nil
                return
            }
        } else {
            autoRenewIntervals[autoRenewIntervals.count - 1].to = t
        }
        autoRenewIntervals.append(AutoRenewInterval(from: t, to: nil, isOn: on))
    }

    func autoRenew(at t: Instant) -> Bool {
        let i = lastIndex(in: autoRenewIntervals, atOrBefore: t) { $0.from }
        return i >= 0 ? autoRenewIntervals[i].isOn : true
    }

    // MARK: - Expiration reasons

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
            if periods[run.lastPeriod].isRefunded {
                reason = .refund
            } else if failureOfPeriod[run.lastPeriod] != nil {
                reason = .billing
            } else if let intent = latestIntent(intents, from: run.start, before: nextStart) {
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

    func latestIntent(_ intents: [(at: Instant, reason: ExpirationReason)], from start: Instant,
                      before end: Instant?) -> ExpirationReason? {
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
        }
    }

    // MARK: - Events

    mutating func collectEvents() {
        for (i, p) in periods.enumerated() {
            events.append(TimelineEvent(at: p.start, type: EventType(p.periodClass), productId: p.productId,
                                        transactionId: p.transactionId))
            if p.isRefunded, let r = p.revocationDate {
                let at = max(r, p.start)
                events.append(TimelineEvent(at: at, type: .refund, productId: productId(at: at, fallback: i),
                                            transactionId: p.transactionId))
            }
        }
        for f in failures {
            events.append(TimelineEvent(at: f.at, type: .billingIssue, productId: productId(at: f.at, fallback: f.periodIndex),
                                        transactionId: f.transactionId))
        }
        for run in runs {
            events.append(TimelineEvent(at: run.endedAt, type: .expiration,
                                        productId: productId(at: run.endedAt, fallback: run.lastPeriod),
                                        expirationReason: run.expirationReason))
        }
        events.sort { a, b in
            if a.at != b.at { return a.at < b.at }
            if a.type != b.type { return a.type.rank < b.type.rank }
            return (a.transactionId ?? "") < (b.transactionId ?? "")
        }
    }

    // MARK: - State intervals

    func stateIntervals() -> [StateInterval] {
        var result: [StateInterval] = []
        result.reserveCapacity(periods.count + 2 * failures.count + runs.count)
        func append(_ from: Instant, _ to: Instant?, _ state: SubscriptionState, _ product: String) {
            if let to, to <= from { return }
            if let last = result.last, last.state == state, last.productId == product, last.to == from {
                result[result.count - 1].to = to
            } else {
                result.append(StateInterval(from: from, to: to, state: state, productId: product))
            }
        }
        for (i, p) in periods.enumerated() {
            let nextStart = i + 1 < periods.count ? periods[i + 1].start : nil
            append(p.start, p.end, SubscriptionState(p.offerKind), p.productId)
            var expiredFrom = p.end
            if let f = failureOfPeriod[i].map({ failures[$0] }) {
                append(f.at, f.graceEnd, .gracePeriod, p.productId)
                append(f.graceEnd, f.windowEnd, .billingRetry, p.productId)
                expiredFrom = f.windowEnd
            }
            append(expiredFrom, nextStart, .expired, p.productId)
        }
        return result
    }

    // MARK: - Latest values

    func environment() -> StoreEnvironment {
        if let first = periods.first, let t = transactions.first(where: { $0.transactionId == first.transactionId }) {
            return t.environment
        }
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
