import SubscriptionModel

/// A 12-month commitment paid monthly (docs/metrics.md, "Billing plans and commitments"): a
/// maximal sequence of consecutive `monthly` periods of one run, each with a larger payment
/// number than the one before.
public struct Commitment: Hashable, Sendable, Codable {
    /// Indexes into `SubscriptionTimeline.periods` (inclusive).
    public var firstPeriod: Int
    public var lastPeriod: Int
    public var runIndex: Int
    public var start: Instant
    /// It runs on `[start, runningEnd)`: until the next period starts when that one is not part
    /// of it (the next commitment, an upfront period after an upgrade or a renewal), else until
    /// its run ends.
    public var runningEnd: Instant
    /// `commitmentExpiresDate` and `commitmentPrice` (milliunits of `currency`, the whole
    /// commitment) of the fact with the latest instant among its periods' facts that carries one.
    public var ends: Instant?
    public var price: Int64?
    /// The currency of its periods' transactions.
    public var currency: String?
    /// n, the number of payments, from its latest period that says.
    public var payments: Int?

    public init(
        firstPeriod: Int, lastPeriod: Int, runIndex: Int, start: Instant, runningEnd: Instant, ends: Instant? = nil,
        price: Int64? = nil, currency: String? = nil, payments: Int? = nil
    ) {
        self.firstPeriod = firstPeriod
        self.lastPeriod = lastPeriod
        self.runIndex = runIndex
        self.start = start
        self.runningEnd = runningEnd
        self.ends = ends
        self.price = price
        self.currency = currency
        self.payments = payments
    }

    /// Whether it runs at `t`: the latest period started at or before `t` is one of its periods
    /// and that period's run is open at `t`.
    public func isRunning(at t: Instant) -> Bool { start <= t && t < runningEnd }
}

/// What a running commitment has left to charge at an instant.
public struct CommittedRevenue: Hashable, Sendable {
    /// Index into `SubscriptionTimeline.commitments`.
    public var commitmentIndex: Int
    /// Its price minus the prices of its charged periods started at or before the instant, never
    /// below 0; nil when unpriced (no price, or a charged period without one).
    public var amount: Int64?
    public var currency: String?
    /// Charged periods started at or before the instant (payments made, refunded ones included).
    public var paymentsMade: Int
}

extension TimelineDerivation {
    /// docs/metrics.md, "Billing plans and commitments".
    mutating func buildCommitments() {
        var byTransaction: [String: [TransactionFact]] = [:]
        for f in facts.transactions where f.billingPlan == .monthly { byTransaction[f.transactionId, default: []].append(f) }
        var i = 0
        while i < periods.count {
            guard periods[i].billingPlan == .monthly else {
                i += 1
                continue
            }
            var last = i
            while last + 1 < periods.count, periods[last + 1].billingPlan == .monthly,
                periods[last + 1].runIndex == periods[i].runIndex,
                Self.continuesCommitment(periods[last], periods[last + 1])
            {
                last += 1
            }
            let run = runs[periods[i].runIndex]
            let runningEnd = last + 1 < periods.count ? min(periods[last + 1].start, run.endedAt) : run.endedAt
            var commitment = Commitment(
                firstPeriod: i, lastPeriod: last, runIndex: periods[i].runIndex, start: periods[i].start,
                runningEnd: max(runningEnd, periods[i].start))
            var endsAt: Instant?
            var priceAt: Instant?
            for p in i...last {
                commitment.currency = commitment.currency ?? periods[p].currency
                if let n = periods[p].commitmentPeriods { commitment.payments = n }
                for f in byTransaction[periods[p].transactionId] ?? [] {
                    let instant = f.signedDate ?? f.purchaseDate
                    if let e = f.commitment?.commitmentExpiresDate, endsAt.map({ instant >= $0 }) ?? true {
                        (commitment.ends, endsAt) = (e, instant)
                    }
                    if let price = f.commitment?.commitmentPrice, priceAt.map({ instant >= $0 }) ?? true {
                        (commitment.price, priceAt) = (price, instant)
                    }
                }
            }
            commitments.append(commitment)
            i = last + 1
        }
    }

    /// A `monthly` period continues the commitment of the one before unless its payment number is
    /// not larger (normally 1 after n); an unknown number continues it.
    static func continuesCommitment(_ previous: Period, _ next: Period) -> Bool {
        guard let k = previous.commitmentPeriod, let next = next.commitmentPeriod else { return true }
        return next > k
    }
}

extension SubscriptionTimeline {
    /// The commitment running at `t`, if any (docs/metrics.md, "Billing plans and commitments").
    public func runningCommitment(at t: Instant) -> Int? {
        commitments.lastIndex { $0.isRunning(at: t) }
    }

    /// Committed revenue of the commitment running at `t` (docs/metrics.md, "Committed revenue"):
    /// nil when none runs or the subscription is family-shared. `money` is ``money(priceTable:)``.
    public func committedRevenue(at t: Instant, money: [PeriodMoney]) -> CommittedRevenue? {
        guard !isFamilyShared, let c = runningCommitment(at: t) else { return nil }
        let commitment = commitments[c]
        var amount = commitment.price
        var made = 0
        for p in commitment.firstPeriod...commitment.lastPeriod where periods[p].start <= t && money[p].isCharged {
            made += 1
            if let price = money[p].price, money[p].currency == commitment.currency {
                amount = amount.map { $0 - price }
            } else {
                amount = nil
            }
        }
        if commitment.currency == nil { amount = nil }
        return CommittedRevenue(
            commitmentIndex: c, amount: amount.map { max($0, 0) }, currency: commitment.currency, paymentsMade: made)
    }
}
