import SubscriptionModel
import SubscriptionTimeline

/// Amounts for reading: thousands separators, two decimals (rounded half away from zero), the
/// currency code. The dashboard and `report … --format table` both use it.
public enum MoneyFormat {
    /// Currencies with no minor unit (ISO 4217): their amounts are whole, written without decimals.
    public static let zeroDecimalCurrencies: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF",
    ]

    /// 1234560 USD → `1,234.56 USD`; 1200000 JPY → `1,200 JPY`.
    public static func text(_ milliunits: Int64, _ currency: String?) -> String {
        let number = number(milliunits, currency: currency)
        return currency.map { number + " " + $0 } ?? number
    }

    /// The amount as ``text(_:_:)`` writes it, without the currency code: two decimals, none for a
    /// zero-decimal currency (rounded to whole units).
    public static func number(_ milliunits: Int64, currency: String?) -> String {
        if let currency, zeroDecimalCurrencies.contains(currency.uppercased()) {
            return grouped(MoneyMath.scaled(milliunits, by: 1, over: 1000))
        }
        let cents = MoneyMath.scaled(milliunits, by: 1, over: 10)
        let negative = cents < 0
        let magnitude = cents.magnitude
        let whole = String(magnitude / 100)
        var digits = ""
        for (i, c) in whole.enumerated() {
            if i > 0 && (whole.count - i) % 3 == 0 { digits += "," }
            digits.append(c)
        }
        let fraction = magnitude % 100
        return (negative ? "-" : "") + digits + "." + (fraction < 10 ? "0" : "") + String(fraction)
    }

    /// Whole units with thousands separators: `-1,200`.
    private static func grouped(_ units: Int64) -> String {
        let whole = String(units.magnitude)
        var text = units < 0 ? "-" : ""
        for (i, c) in whole.enumerated() {
            if i > 0 && (whole.count - i) % 3 == 0 { text += "," }
            text.append(c)
        }
        return text
    }

    /// Plain decimal in currency units for CSV (`1234.56`, or `1234.567` when the third decimal is used).
    public static func plain(_ milliunits: Int64) -> String {
        let negative = milliunits < 0
        let m = milliunits.magnitude
        var fraction = String(m % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        if fraction.hasSuffix("0") { fraction.removeLast() }
        return (negative ? "-" : "") + String(m / 1000) + "." + fraction
    }
}
