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

extension Commitment {
    /// A charged period of a commitment: a payment made (refunded ones included), with its price
    /// (nil when unpriced).
    public struct Charge: Hashable, Sendable {
        public var start: Instant
        public var price: Int64?
        public var currency: String?

        public init(start: Instant, price: Int64?, currency: String?) {
            self.start = start
            self.price = price
            self.currency = currency
        }
    }

    /// Committed revenue at `t` (docs/metrics.md, "Committed revenue"), the one place the rule is
    /// written: `price` minus the prices of the charges started at or before `t`, never below 0;
    /// nil (unpriced) without a price or currency, or with such a charge not priced in `currency`.
    /// Also the number of those charges.
    public static func committed(price: Int64?, currency: String?, charges: [Charge], at t: Instant)
        -> (amount: Int64?, paymentsMade: Int)
    {
        var amount = currency == nil ? nil : price
        var made = 0
        for c in charges where c.start <= t {
            made += 1
            if let p = c.price, c.currency == currency { amount = amount.map { $0 - p } } else { amount = nil }
        }
        return (amount.map { max($0, 0) }, made)
    }
}

extension SubscriptionTimeline {
    /// The commitment running at `t`, if any (docs/metrics.md, "Billing plans and commitments").
    public func runningCommitment(at t: Instant) -> Int? {
        commitments.lastIndex { $0.isRunning(at: t) }
    }

    /// A commitment's charged periods, with their prices from `money` (``money(priceTable:)``).
    public func charges(of commitment: Commitment, money: [PeriodMoney]) -> [Commitment.Charge] {
        (commitment.firstPeriod...commitment.lastPeriod).compactMap { p in
            money[p].isCharged
                ? Commitment.Charge(start: periods[p].start, price: money[p].price, currency: money[p].currency) : nil
        }
    }

    /// Committed revenue of the commitment running at `t`: nil when none runs or the subscription is
    /// family-shared.
    public func committedRevenue(at t: Instant, money: [PeriodMoney]) -> CommittedRevenue? {
        guard !isFamilyShared, let c = runningCommitment(at: t) else { return nil }
        let commitment = commitments[c]
        let (amount, made) = Commitment.committed(
            price: commitment.price, currency: commitment.currency, charges: charges(of: commitment, money: money), at: t)
        return CommittedRevenue(commitmentIndex: c, amount: amount, currency: commitment.currency, paymentsMade: made)
    }
}

/// What committed revenue groups a running commitment by (docs/metrics.md, "Committed revenue"):
/// its product, its currency and what it has left to charge; both nil when it is unpriced.
public struct CommittedKey: Hashable, Sendable {
    public var productId: String
    public var currency: String?
    public var amount: Int64?

    public init(productId: String, currency: String?, amount: Int64?) {
        self.productId = productId
        (self.currency, self.amount) = currency == nil || amount == nil ? (nil, nil) : (currency, amount)
    }

    /// The key as the kept committed counts store it: an unpriced commitment is currency '' and amount 0.
    public var values: [CountDelta.Value] { [.text(productId), .text(currency ?? ""), .integer(amount ?? 0)] }
}

/// A commitment as committed revenue counts it, with all its charges: at an instant it is in the
/// key of what it has left to charge (``Commitment/committed(price:currency:charges:at:)``) while
/// it runs. That key changes only at its start, at its charges' starts and at its running end, so
/// committed revenue at t is the commitments entered into a key at or before t less those that
/// left it: the store keeps these changes per UTC day and month (`committedDay`,
/// `committedMonth`) and applies ``key(at:)`` to the few commitments changing on t's day.
public struct KeptCommitment: Hashable, Sendable {
    public var productId: String
    public var start: Instant
    public var runningEnd: Instant
    public var price: Int64?
    public var currency: String?
    /// Every charge of the commitment, in any order.
    public var charges: [Commitment.Charge]

    public init(
        productId: String, start: Instant, runningEnd: Instant, price: Int64?, currency: String?, charges: [Commitment.Charge]
    ) {
        self.productId = productId
        self.start = start
        self.runningEnd = runningEnd
        self.price = price
        self.currency = currency
        self.charges = charges
    }

    /// Its key at `t`, nil when it does not run at `t`.
    public func key(at t: Instant) -> CommittedKey? {
        guard start <= t && t < runningEnd else { return nil }
        let amount = Commitment.committed(price: price, currency: currency, charges: charges, at: t).amount
        return CommittedKey(productId: productId, currency: currency, amount: amount)
    }

    /// The changes of its key: +1 into a key (column 0 of a signed count), −1 out of one.
    public func deltas(environment: String) -> [CountDelta] {
        guard start < runningEnd else { return [] }
        let scope: [CountDelta.Value] = [.text(environment)]
        let changes = Set(charges.map(\.start).filter { start < $0 && $0 < runningEnd }).sorted()
        var rows: [CountDelta] = []
        var current: CommittedKey?
        for t in [start] + changes {
            guard let key = key(at: t), key != current else { continue }
            if let current { rows.append(CountDelta(table: .committed, scope: scope, at: t, key: current.values, change: -1)) }
            rows.append(CountDelta(table: .committed, scope: scope, at: t, key: key.values))
            current = key
        }
        if let current {
            rows.append(CountDelta(table: .committed, scope: scope, at: runningEnd, key: current.values, change: -1))
        }
        return rows
    }
}

extension SubscriptionTimeline {
    /// The commitments committed revenue counts (a purchased subscription's), with their charges.
    public func keptCommitments(money: [PeriodMoney]) -> [KeptCommitment] {
        guard ownership == .purchased else { return [] }
        return commitments.map { c in
            KeptCommitment(
                productId: periods[c.firstPeriod].productId, start: c.start, runningEnd: c.runningEnd, price: c.price,
                currency: c.currency, charges: charges(of: c, money: money))
        }
    }
}
