import SubscriptionModel

/// What one period cost and returned (docs/metrics.md "Money"). Amounts are milliunits of
/// `currency`.
public struct PeriodMoney: Hashable, Sendable, Codable {
    public enum PriceSource: String, Hashable, Sendable, Codable {
        /// The transaction's own `price` and `currency`.
        case transaction
        /// The price table (`subdash prices import`).
        case table
    }

    public var transactionId: String
    /// Neither free nor family-shared: every paid period and every refunded one.
    public var isCharged: Bool
    /// A free period: 0. A charged one: its price, nil when unpriced. Otherwise nil.
    public var price: Int64?
    /// A free period: as its transaction names it, or nil. A charged one: nil when unpriced.
    public var currency: String?
    /// Where a charged period's price comes from; nil when unpriced or not charged.
    public var priceSource: PriceSource?
    /// When a charged period was refunded (its `revocationDate`, never before its start).
    public var refundAt: Instant?
    /// What the refund returned: the price, or its `revocationPercentage` share when
    /// `REFUND_PRORATED`. Nil when not refunded or unpriced.
    public var refundAmount: Int64?
    /// When a charged period cut by an upgrade (and not refunded) was cut: its `revocationDate`,
    /// else the next period's start. Nil when it has neither.
    public var creditAt: Instant?
    /// The unused share of the price of a period cut by an upgrade. Nil when none, or unpriced.
    public var upgradeCredit: Int64?
    /// Paid service before this period starts, in milliseconds (see
    /// ``SubscriptionTimeline/paidService(asOf:)``).
    public var paidServiceBefore: Int64
    /// Estimated proceeds rate in percent: 85 with a year of paid service behind the period, else 70.
    public var proceedsRate: Int
    /// The period's own length rounded to a billing length, as the twelfths of a year that make
    /// its price monthly (52 weekly, 12 monthly, 6, 4, 2, 1 yearly).
    public var monthlyTwelfths: Int

    /// Priced and charged.
    public var isPriced: Bool { isCharged && price != nil }

    /// The charge minus what came back, each counted once its instant is at or before `asOf`
    /// (the charge at `start`). Nil when unpriced or not charged.
    public func paid(start: Instant, asOf: Instant) -> Int64? {
        guard isCharged, let price, start <= asOf else { return nil }
        var amount = price
        if let r = refundAt, let a = refundAmount, r <= asOf { amount -= a }
        if let c = creditAt, let a = upgradeCredit, c <= asOf { amount -= a }
        return amount
    }
}

/// The App Store's rule for the 85 % rate: a year of paid service, kept across lapses of up to
/// 60 days (docs/metrics.md "Estimated proceeds").
public enum PaidService {
    public static let year: Int64 = 365 * Instant.millisecondsPerDay
    public static let keptLapse: Int64 = 60 * Instant.millisecondsPerDay
}

extension SubscriptionTimeline {
    /// The money of every period, in `periods` order.
    public func money(priceTable: PriceTable) -> [PeriodMoney] {
        let before = paidServiceBeforeEachPeriod()
        return periods.indices.map { i in
            let p = periods[i]
            let charged = p.isPaid || (p.isRefunded && !p.isFree)
            var m = PeriodMoney(
                transactionId: p.transactionId, isCharged: charged, price: nil, currency: nil, priceSource: nil,
                refundAt: nil, refundAmount: nil, creditAt: nil, upgradeCredit: nil, paidServiceBefore: before[i],
                proceedsRate: before[i] >= PaidService.year ? 85 : 70,
                // A monthly payment of a commitment is one month's, whatever the annual product bills.
                monthlyTwelfths: p.billingPlan == .monthly
                    ? BillingDuration.month.monthlyTwelfths
                    : BillingDuration(lengthMilliseconds: p.expiresDate.milliseconds - p.start.milliseconds)
                        .monthlyTwelfths)
            // A family member pays nothing, not even a free trial's zero: the purchaser is charged.
            if isFamilyShared { return m }
            if p.isFree {
                m.price = 0
                m.currency = p.currency
                return m
            }
            guard charged else { return m }
            if let price = p.price, let currency = p.currency {
                (m.price, m.currency, m.priceSource) = (price, currency, .transaction)
            } else if p.offerKind == .standard, p.billingPlan == .upfront,
                let row = priceTable.price(productId: p.productId, storefront: p.storefront, at: p.start)
            {
                (m.price, m.currency, m.priceSource) = (row.price, row.currency, .table)
            }
            if p.isRefunded, let r = p.revocationDate {
                m.refundAt = max(r, p.start)
                if let price = m.price {
                    var amount = price
                    if p.revocationType == "REFUND_PRORATED", let share = p.revocationPercentage {
                        amount = MoneyMath.scaled(price, by: Int64(share), over: 100_000)
                    }
                    m.refundAmount = min(max(amount, 0), price)
                }
            }
            // A refund of a period an upgrade cut returns the refund, not a credit besides.
            if p.isCutByUpgrade, !p.isRefunded,
                let cut = p.revocationDate ?? (i + 1 < periods.count ? periods[i + 1].start : nil)
            {
                m.creditAt = cut
                if let price = m.price {
                    let length = p.expiresDate.milliseconds - p.start.milliseconds
                    let unused = min(max(p.expiresDate.milliseconds - cut.milliseconds, 0), max(length, 0))
                    m.upgradeCredit = MoneyMath.scaled(price, by: unused, over: max(length, 1))
                }
            }
            return m
        }
    }

    /// Charges minus returned money at or before `asOf`, per currency (priced periods only).
    public func paid(asOf: Instant, money: [PeriodMoney]) -> [String: Int64] {
        var result: [String: Int64] = [:]
        for (p, m) in zip(periods, money) {
            guard let amount = m.paid(start: p.start, asOf: asOf), let currency = m.currency else { continue }
            result[currency, default: 0] += amount
        }
        return result
    }

    /// Paid service up to `asOf` in milliseconds: the union of the paid periods started at or
    /// before `asOf` since the last restart, each cut at `asOf`.
    public func paidService(asOf: Instant) -> Int64 {
        var service = PaidServiceCount()
        for i in periods.indices where periods[i].start <= asOf && periods[i].isPaid {
            let (from, to) = paidInterval(i)
            service.add(start: periods[i].start, from: from, to: to)
        }
        return service.total(upTo: asOf)
    }

    /// For each period, the paid service behind its start: earlier-starting paid periods in
    /// full, since the last restart. A period that starts more than 60 days after them has none
    /// (and restarts the count when it is paid itself).
    func paidServiceBeforeEachPeriod() -> [Int64] {
        var service = PaidServiceCount()
        return periods.indices.map { i in
            let p = periods[i]
            let before = service.isLapsed(at: p.start) ? 0 : service.total(upTo: nil)
            if p.isPaid {
                let (from, to) = paidInterval(i)
                service.add(start: p.start, from: from, to: to)
            }
            return before
        }
    }

    /// `[start, min(expiresDate, revocationDate))`; a billing recovery inside its failure's grace
    /// period counts from the failure (the subscriber kept access).
    private func paidInterval(_ i: Int) -> (Instant, Instant) {
        let p = periods[i]
        var from = p.start
        if p.periodClass == .billingRecovery, i > 0,
            let f = billingFailures.first(where: { $0.periodIndex == i - 1 }),
            let grace = f.gracePeriodExpiresDate, p.start < grace
        {
            from = min(f.at, p.start)
        }
        var to = p.expiresDate
        if let r = p.revocationDate, r < to { to = r }
        return (from, max(to, from))
    }
}

/// Paid intervals since the last restart and the latest end among all of them.
struct PaidServiceCount {
    private var intervals: [(from: Instant, to: Instant)] = []
    private var latestEnd: Instant?

    func isLapsed(at start: Instant) -> Bool {
        guard let latestEnd else { return false }
        return start.milliseconds - latestEnd.milliseconds > PaidService.keptLapse
    }

    mutating func add(start: Instant, from: Instant, to: Instant) {
        if isLapsed(at: start) { intervals.removeAll() }
        intervals.append((from, to))
        latestEnd = max(latestEnd ?? to, to)
    }

    /// Length of the union of the intervals, each cut at `limit` when given.
    func total(upTo limit: Instant?) -> Int64 {
        let sorted = intervals.sorted { $0.from < $1.from }
        var total: Int64 = 0
        var coveredTo: Instant?
        for var interval in sorted {
            if let limit { interval.to = min(interval.to, limit) }
            if let c = coveredTo, interval.from < c { interval.from = c }
            guard interval.from < interval.to else { continue }
            total += interval.to.milliseconds - interval.from.milliseconds
            coveredTo = interval.to
        }
        return total
    }
}
