import SubscriberStore
import SubscriptionModel

/// How refund-rate rows are bucketed (`--by`).
public enum RefundGrouping: String, Sendable, CaseIterable, Codable {
    /// The month of the period's start; every month of the range is listed.
    case month
    /// The period's product; products with a charged period in range.
    case product
}

/// Charged periods started in [from, to) and how many of them were refunded by as-of
/// (docs/metrics.md "Money", "Refund rate").
public struct RefundRateReport: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        public var key: String
        public var charged: Int
        public var refunded: Int
        /// refunded / charged, nil when none was charged.
        public var rate: Double? { charged == 0 ? nil : Double(refunded) / Double(charged) }

        public init(key: String, charged: Int, refunded: Int) {
            self.key = key
            self.charged = charged
            self.refunded = refunded
        }
    }

    public var from: Instant
    public var to: Instant
    public var asOf: Instant
    public var by: RefundGrouping
    public var rows: [Row]
}

extension SubscriberAnalytics {
    public func refundRate(
        from: Instant, to: Instant, asOf: Instant, by: RefundGrouping = .month,
        scope: ReportScope = ReportScope()
    ) throws -> RefundRateReport {
        let upper = min(to, asOf.adding(milliseconds: 1))
        var rows = try database.refundCounts(
            from: from.milliseconds, upper: upper.milliseconds, asOf: asOf.milliseconds,
            byMonth: by == .month, scope: scope.rows
        )
        .map { RefundRateReport.Row(key: $0.key, charged: $0.charged, refunded: $0.refunded) }
        if by == .month {
            let byMonth = Dictionary(uniqueKeysWithValues: rows.map { ($0.key, $0) })
            rows = []
            var month = from.month
            let last = to.adding(milliseconds: -1).month
            while month <= last {
                rows.append(byMonth[month.description] ?? RefundRateReport.Row(key: month.description, charged: 0, refunded: 0))
                month = month.next
            }
        }
        return RefundRateReport(from: from, to: to, asOf: asOf, by: by, rows: rows)
    }
}
