import SubscriptionModel
import SubscriptionTimeline

/// `--currency C --rates FILE`: how many units of C one unit of each currency is worth, per month
/// or for any month (docs/metrics.md "Money", "Conversion").
public struct CurrencyRates: Sendable, Hashable {
    /// An exact decimal rate: `numerator / denominator`, the denominator a power of ten.
    public struct Rate: Sendable, Hashable {
        public var numerator: Int64
        public var denominator: Int64
    }

    public var target: String
    private var undated: [String: Rate] = [:]
    private var monthly: [String: [Month: Rate]] = [:]

    public init(target: String) { self.target = target.uppercased() }

    /// Reads the CSV (a header line, then `currency,rate` or `currency,month,rate` rows).
    /// Throws naming the file's line.
    public init(target: String, csv: String, source: String) throws {
        self.init(target: target)
        let lines = csv.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        for (i, line) in lines.enumerated().dropFirst() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let at = "\(source):\(i + 1)"
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 2 || fields.count == 3 else {
                throw AnalyticsError("\(at): expected `currency,rate` or `currency,month,rate`, found \(fields.count) fields")
            }
            let currency = fields[0].uppercased()
            guard currency.count == 3, currency.allSatisfy(\.isLetter) else {
                throw AnalyticsError("\(at): currency `\(fields[0])` is not a 3-letter code")
            }
            guard let rate = Self.parseRate(fields[fields.count - 1]) else {
                throw AnalyticsError("\(at): rate `\(fields[fields.count - 1])` is not a positive decimal number")
            }
            if fields.count == 3 {
                guard let month = Month(parsing: fields[1]) else {
                    throw AnalyticsError("\(at): month `\(fields[1])` is not YYYY-MM")
                }
                monthly[currency, default: [:]][month] = rate
            } else {
                undated[currency] = rate
            }
        }
    }

    /// `1.08` → 108 / 100; at most 12 decimals.
    static func parseRate(_ text: String) -> Rate? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 6,
            whole.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.count <= 12, fraction.allSatisfy({ $0.isASCII && $0.isNumber }), !(parts.count == 2 && fraction.isEmpty),
            let numerator = Int64(whole + fraction), numerator > 0
        else { return nil }
        var denominator: Int64 = 1
        for _ in 0..<fraction.count { denominator *= 10 }
        return Rate(numerator: numerator, denominator: denominator)
    }

    /// The rate of `currency` in `month`: its row for the month, else its undated row; the target
    /// converts at 1 without a row.
    public func rate(_ currency: String, month: Month) -> Rate? {
        if let r = monthly[currency]?[month] ?? undated[currency] { return r }
        return currency == target ? Rate(numerator: 1, denominator: 1) : nil
    }

    /// `amount` of `currency` in the target currency, rounded half away from zero; throws naming a
    /// currency without a rate.
    public func convert(_ amount: Int64, _ currency: String, month: Month) throws -> Int64 {
        guard let r = rate(currency, month: month) else {
            throw AnalyticsError(
                "no rate for \(currency) in \(month) (add a `\(currency),rate` or `\(currency),\(month),rate` row to the rates file)"
            )
        }
        return MoneyMath.scaled(amount, by: r.numerator, over: r.denominator)
    }
}

/// A report that cannot be computed as asked, with what to do about it.
public struct AnalyticsError: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
