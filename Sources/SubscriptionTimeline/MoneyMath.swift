import SubscriptionModel

/// Integer arithmetic on milliunits, rounded half away from zero (docs/metrics.md "Money",
/// "Rounding"), without overflow for any price times any span of milliseconds.
public enum MoneyMath {
    /// `value × numerator / denominator`, rounded half away from zero; 0 when `denominator` is 0.
    public static func scaled(_ value: Int64, by numerator: Int64, over denominator: Int64) -> Int64 {
        guard denominator != 0 else { return 0 }
        let negative = ((value < 0) != (numerator < 0)) != (denominator < 0)
        let product = value.magnitude.multipliedFullWidth(by: numerator.magnitude)
        let d = denominator.magnitude
        let (q, r) = d.dividingFullWidth(product)
        let rounded = r >= d - r ? q + 1 : q
        let result = Int64(rounded)
        return negative ? -result : result
    }

    /// Estimated proceeds of an amount at `ratePercent` (70 or 85).
    public static func proceeds(_ amount: Int64, ratePercent: Int) -> Int64 {
        scaled(amount, by: Int64(ratePercent), over: 100)
    }
}

extension BillingDuration {
    /// What makes a price of this duration monthly, in twelfths of a year: a week × 52/12, a
    /// month × 12/12, two months × 6/12, …, a year × 1/12 (docs/metrics.md "MRR").
    public var monthlyTwelfths: Int {
        switch self {
        case .week: 52
        case .month: 12
        case .twoMonths: 6
        case .threeMonths: 4
        case .sixMonths: 2
        case .year: 1
        }
    }
}
