import GRDB
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
    public func refundRate(from: Instant, to: Instant, asOf: Instant, by: RefundGrouping = .month,
                           scope: ReportScope = ReportScope()) throws -> RefundRateReport {
        let upper = min(to, asOf.adding(milliseconds: 1))
        var arguments: StatementArguments = ["from": from.milliseconds, "upper": upper.milliseconds, "asOf": asOf.milliseconds]
        var product = ""
        if let p = scope.productId { product = "AND productId = :product"; arguments += ["product": p] }
        let key = by == .month ? Self.monthSQL("start") : "productId"
        let counted = try database.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(key), COUNT(*), COALESCE(SUM(refundAt IS NOT NULL AND refundAt <= :asOf), 0)
                FROM periodMoney INDEXED BY periodMoney_start
                WHERE \(scope.environment.sql) AND start >= :from AND start < :upper \(product)
                GROUP BY 1 ORDER BY 1
                """, arguments: arguments)
        }
        var rows = counted.map { RefundRateReport.Row(key: $0[0], charged: $0[1], refunded: $0[2]) }
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
