import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// How MRR rows are bucketed (`--by`).
public enum MRRGrouping: String, Sendable, CaseIterable, Codable {
    /// The covering period's product.
    case product
    /// The period's own currency (with conversion: each currency's share of the total).
    case currency
}

/// Monthly recurring revenue at an instant (docs/metrics.md "Money", "MRR").
public struct MRRReport: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        /// The product with `--by product`, the subscription's own currency with `--by currency`, else nil.
        public var key: String?
        public var currency: String
        /// Priced subscriptions counted.
        public var subscriptions: Int
        /// Milliunits per month, rounded once from the exact sum (of prices converted one by one
        /// and rounded to milliunits, with `--rates`).
        public var mrr: Int64
        /// Running commitments counted in `committed` (priced ones).
        public var commitments: Int = 0
        /// Committed revenue: what running commitments have left to charge (docs/metrics.md,
        /// "Committed revenue"), milliunits.
        public var committed: Int64 = 0

        public init(key: String?, currency: String, subscriptions: Int, mrr: Int64, commitments: Int = 0, committed: Int64 = 0) {
            self.key = key
            self.currency = currency
            self.subscriptions = subscriptions
            self.mrr = mrr
            self.commitments = commitments
            self.committed = committed
        }
    }

    public var asOf: Instant
    public var by: MRRGrouping?
    public var currency: String?
    /// Subscriptions that count but whose period has no price.
    public var unpriced: Int
    /// Sorted by key, then currency.
    public var rows: [Row]
}

extension SubscriberAnalytics {
    /// MRR at `asOf`: every purchased subscription on a charged period there (or in its grace
    /// period after one), its price made monthly by its billing length.
    public func mrr(
        asOf: Instant, by: MRRGrouping? = nil, scope: ReportScope = ReportScope(),
        rates: CurrencyRates? = nil
    ) throws -> MRRReport {
        try mrr(at: [asOf], by: by, scope: scope, rates: rates)[0]
    }

    /// MRR at each of `instants` (a report each, in order), from one statement: what the Money
    /// pane's 30-day change and monthly sparkline read. Without `committed`, running commitments
    /// are not read: no row has commitments or committed revenue, no row exists for them alone,
    /// and `unpriced` counts subscriptions only (what MRR alone shows).
    public func mrr(
        at instants: [Instant], by: MRRGrouping? = nil, scope: ReportScope = ReportScope(),
        rates: CurrencyRates? = nil, committed withCommitted: Bool = true
    ) throws -> [MRRReport] {
        guard !instants.isEmpty else { return [] }
        let durations = try productDurations()
        // Counted per UTC day and month by the store: the cost does not grow with its history.
        let counts = try database.mrrCounts(at: instants, scope: scope.rows)
        // Commitments are monthly: none counts with `--plan upfront`. Kept per day and month too.
        let commitments =
            scope.plan == .upfront || !withCommitted
            ? instants.map { _ in [:] } : try database.committedCounts(at: instants, scope: scope.rows)
        var reports: [MRRReport] = []
        reports.reserveCapacity(instants.count)
        for ((asOf, covering), running) in zip(zip(instants, counts), commitments) {
            // Exact sums, price × twelfths of a year, rounded once at the end.
            var sums: [MRRRowKey: (subscriptions: Int, twelfths: Int64)] = [:]
            var unpriced = 0
            for (money, count) in covering {
                if let plan = scope.plan, money.billingPlan != plan.rawValue { continue }
                guard let price = money.price, let currency = money.currency else {
                    unpriced += count
                    continue
                }
                // An upfront standard period bills for its product's length; a monthly payment of a
                // commitment for one month (its own length); an offer for its own.
                let twelfths = money.mrrTwelfths(productLength: durations[money.productId])
                // Converted, each subscription's price is converted (and rounded to milliunits, as
                // every converted amount) before it is made monthly and summed.
                var amount = price
                var rowCurrency = currency
                if let rates {
                    amount = try rates.convert(price, currency, month: asOf.month)
                    rowCurrency = rates.target
                }
                let group: String? =
                    switch by {
                    case nil: nil
                    case .product: money.productId
                    case .currency: currency
                    }
                let key = MRRRowKey(key: group, currency: rowCurrency)
                sums[key, default: (0, 0)].subscriptions += count
                sums[key]!.twelfths += amount * Int64(twelfths) * Int64(count)
            }
            // Committed revenue: each commitment's amount converted once, at as-of.
            var committed: [MRRRowKey: (commitments: Int, amount: Int64)] = [:]
            for (c, count) in running {
                guard let amount = c.amount, let currency = c.currency else {
                    unpriced += count
                    continue
                }
                var converted = amount
                var rowCurrency = currency
                if let rates {
                    converted = try rates.convert(amount, currency, month: asOf.month)
                    rowCurrency = rates.target
                }
                let group: String? =
                    switch by {
                    case nil: nil
                    case .product: c.productId
                    case .currency: currency
                    }
                let key = MRRRowKey(key: group, currency: rowCurrency)
                committed[key, default: (0, 0)].commitments += count
                committed[key]!.amount += converted * Int64(count)
            }
            let rows = Set(sums.keys).union(committed.keys).map { key in
                MRRReport.Row(
                    key: key.key, currency: key.currency, subscriptions: sums[key]?.subscriptions ?? 0,
                    mrr: MoneyMath.scaled(sums[key]?.twelfths ?? 0, by: 1, over: 12),
                    commitments: committed[key]?.commitments ?? 0, committed: committed[key]?.amount ?? 0)
            }
            let sorted = rows.sorted { ($0.key ?? "", $0.currency) < ($1.key ?? "", $1.currency) }
            reports.append(MRRReport(asOf: asOf, by: by, currency: rates?.target, unpriced: unpriced, rows: sorted))
        }
        return reports
    }
}

private struct MRRRowKey: Hashable {
    var key: String?
    var currency: String
}
