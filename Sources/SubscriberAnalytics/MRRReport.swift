import GRDB
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline

/// Monthly recurring revenue at an instant (docs/metrics.md "Money", "MRR").
public struct MRRReport: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        /// The product with `--by product`, else nil.
        public var key: String?
        public var currency: String
        /// Priced subscriptions counted.
        public var subscriptions: Int
        /// Milliunits per month, rounded once from the exact sum.
        public var mrr: Int64
    }

    public var asOf: Instant
    public var byProduct: Bool
    public var currency: String?
    /// Subscriptions that count but whose period has no price.
    public var unpriced: Int
    /// Sorted by key, then currency.
    public var rows: [Row]
}

extension SubscriberAnalytics {
    /// MRR at `asOf`: every purchased subscription on a charged period there (or in its grace
    /// period after one), its price made monthly by its billing length.
    public func mrr(asOf: Instant, byProduct: Bool = false, scope: ReportScope = ReportScope(),
                    rates: CurrencyRates? = nil) throws -> MRRReport {
        let durations = try productDurations()
        var arguments: StatementArguments = ["t": asOf.milliseconds]
        var product = ""
        if let p = scope.productId { product = "AND m.productId = :product"; arguments += ["product": p] }
        // Both parts read only index entries: periods ending after as-of, and failures whose retry
        // window is open at as-of, which at the data horizon are the live subscriptions only.
        let rows = try database.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT m.offerKind, m.productId, m.currency, m.price, m.monthlyTwelfths, COUNT(*)
                FROM periodMoney m INDEXED BY periodMoney_end
                WHERE m.\(scope.environment.sql) AND m."end" > :t AND m.start <= :t \(product)
                GROUP BY 1, 2, 3, 4, 5
                UNION ALL
                SELECT m.offerKind, m.productId, m.currency, m.price, m.monthlyTwelfths, COUNT(*)
                FROM billingFailure f INDEXED BY billingFailure_window
                JOIN periodMoney m ON m.transactionId = f.transactionId
                WHERE f.\(scope.environment.sql) AND f.windowEnd > :t AND f.at <= :t AND f.graceEnd > :t \(product)
                GROUP BY 1, 2, 3, 4, 5
                """, arguments: arguments)
        }
        var sums: [MRRKey: (subscriptions: Int, twelfths: Int64)] = [:]
        var unpriced = 0
        for r in rows {
            let count: Int = r[5]
            guard let price: Int64 = r[3], let currency: String = r[2] else { unpriced += count; continue }
            let productId: String = r[1]
            var twelfths: Int = r[4]
            if r[0] == OfferKind.standard.rawValue, let d = durations[productId] { twelfths = d.monthlyTwelfths }
            let key = MRRKey(key: byProduct ? productId : nil, currency: currency)
            sums[key, default: (0, 0)].subscriptions += count
            sums[key]!.twelfths += price * Int64(twelfths) * Int64(count)
        }
        var result: [MRRKey: MRRReport.Row] = [:]
        for (key, sum) in sums {
            var amount = MoneyMath.scaled(sum.twelfths, by: 1, over: 12)
            var currency = key.currency
            if let rates {
                guard let rate = rates.rate(key.currency, month: asOf.month) else {
                    throw AnalyticsError("no rate for \(key.currency) in \(asOf.month) (add a `\(key.currency),rate` or `\(key.currency),\(asOf.month),rate` row to the rates file)")
                }
                amount = MoneyMath.scaled(sum.twelfths, by: rate.numerator, over: rate.denominator * 12)
                currency = rates.target
            }
            let merged = MRRKey(key: key.key, currency: currency)
            var row = result[merged] ?? MRRReport.Row(key: key.key, currency: currency, subscriptions: 0, mrr: 0)
            row.subscriptions += sum.subscriptions
            row.mrr += amount
            result[merged] = row
        }
        let sorted = result.values.sorted { ($0.key ?? "", $0.currency) < ($1.key ?? "", $1.currency) }
        return MRRReport(asOf: asOf, byProduct: byProduct, currency: rates?.target, unpriced: unpriced, rows: sorted)
    }
}

private struct MRRKey: Hashable {
    var key: String?
    var currency: String
}

extension ReportJSON {
    public static func mrr(_ r: MRRReport) -> String {
        var o = JSONObject()
        o["asOf"] = .string(r.asOf.iso8601)
        o["by"] = r.byProduct ? .string("product") : .null
        o["currency"] = r.currency.map(JSONValue.string) ?? .null
        o["unpriced"] = .int(r.unpriced)
        o["rows"] = .array(r.rows.map { row in
            var x = JSONObject()
            x["key"] = row.key.map(JSONValue.string) ?? .null
            x["currency"] = .string(row.currency)
            x["subscriptions"] = .int(row.subscriptions)
            x["mrr"] = amount(row.mrr)
            return .object(x)
        })
        return JSONValue.object(o).text
    }
}
