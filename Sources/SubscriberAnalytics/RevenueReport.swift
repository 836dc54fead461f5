import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// How revenue rows are bucketed (`--by`).
public enum RevenueGrouping: String, Sendable, CaseIterable, Codable {
    /// The UTC month of each amount's own instant.
    case month
    /// The period's product.
    case product
    /// The period's storefront, `unknown` when absent.
    case storefront
    /// The amount's own currency: with conversion, how much of the total each currency brought.
    case currency
}

/// Revenue in [from, to) (docs/metrics.md "Money", "Revenue"). Amounts in milliunits of the row's
/// currency.
public struct RevenueReport: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        /// The month (`YYYY-MM`), product or storefront; nil without grouping.
        public var key: String?
        public var currency: String
        public var charged = 0
        public var gross: Int64 = 0
        public var refunded = 0
        public var refunds: Int64 = 0
        public var upgradeCredits: Int64 = 0
        public var proceeds: Int64 = 0
        public var net: Int64 { gross - refunds - upgradeCredits }

        public init(key: String?, currency: String) {
            self.key = key
            self.currency = currency
        }
    }

    public var from: Instant
    public var to: Instant
    public var asOf: Instant
    public var by: RevenueGrouping?
    /// The currency everything was converted to; nil when not converted.
    public var currency: String?
    /// Charges, refunds and credits in range whose period has no price.
    public var unpriced: Int
    /// `unpriced` by key ("" without `by`): how much of each row's key the amounts leave out.
    public var unpricedByKey: [String: Int] = [:]
    /// Sorted by key, then currency.
    public var rows: [Row]
}

extension SubscriberAnalytics {
    /// Revenue with each amount's instant in [from, to) and at or before `asOf`.
    public func revenue(
        from: Instant, to: Instant, asOf: Instant, by: RevenueGrouping? = nil, scope: ReportScope = ReportScope(),
        rates: CurrencyRates? = nil, smallBusiness: Bool = false
    ) throws -> RevenueReport {
        let upper = min(to, asOf.adding(milliseconds: 1))
        var rows: [RowKey: RevenueReport.Row] = [:]
        var unpriced = 0
        var unpricedByKey: [String: Int] = [:]
        let grouping: MoneyGrouping? =
            switch by {
            case nil: nil
            case .month: .month
            case .product: .product
            case .storefront: .storefront
            case .currency: .currency
            }
        // The month is only needed to pick a dated rate (or as the key).
        let groups = try database.moneyAmounts(
            from: from.milliseconds, upper: upper.milliseconds, by: grouping, withMonth: rates != nil,
            proceedsRatePercent: smallBusiness ? 85 : nil,
            scope: scope.rows)
        for group in groups {
            let count = group.count
            guard let amount = group.amount, let currency = group.currency else {
                unpriced += count
                unpricedByKey[group.key ?? "", default: 0] += count
                continue
            }
            var value = amount
            var rowCurrency = currency
            if let rates, let month = group.month {
                value = try rates.convert(amount, currency, month: Month(parsing: month)!)
                rowCurrency = rates.target
            }
            let proceeds = MoneyMath.proceeds(value, ratePercent: group.proceedsRatePercent) * Int64(count)
            let rowKey = RowKey(key: group.key, currency: rowCurrency)
            var row = rows[rowKey] ?? RevenueReport.Row(key: rowKey.key, currency: rowCurrency)
            switch group.kind {
            case .charge:
                row.charged += count
                row.gross += value * Int64(count)
                row.proceeds += proceeds
            case .refund:
                row.refunded += count
                row.refunds += value * Int64(count)
                row.proceeds -= proceeds
            case .credit:
                row.upgradeCredits += value * Int64(count)
                row.proceeds -= proceeds
            }
            rows[rowKey] = row
        }
        let sorted = rows.values.sorted { ($0.key ?? "", $0.currency) < ($1.key ?? "", $1.currency) }
        var report = RevenueReport(
            from: from, to: to, asOf: asOf, by: by, currency: rates?.target, unpriced: unpriced, rows: sorted)
        report.unpricedByKey = unpricedByKey
        return report
    }
}

private struct RowKey: Hashable {
    var key: String?
    var currency: String
}
