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

    /// The App Store's billing lengths in days and what each multiplies a price by to make it
    /// monthly, in twelfths of a year (a week: × 52/12; a month: × 12/12; a year: × 1/12).
    static let billingLengths: [(days: Double, twelfths: Int)] = [
        (7, 52), (30.4375, 12), (60.875, 6), (91.3125, 4), (182.625, 2), (365.25, 1),
    ]

    /// The billing length nearest to `start ..< expires`, as twelfths (see ``billingLengths``);
    /// ties go to the shorter length.
    public static func monthlyTwelfths(from start: Instant, to expires: Instant) -> Int {
        let days = Double(expires.milliseconds - start.milliseconds) / Double(Instant.millisecondsPerDay)
        var best = billingLengths[0]
        for length in billingLengths.dropFirst() where abs(length.days - days) < abs(best.days - days) { best = length }
        return best.twelfths
    }
}
