/// The Kaplan–Meier product-limit estimate of retention by paid period, as docs/metrics.md
/// ("Retention cohorts") defines it. Cohorts, and any figure built on cohort retention (lifetime
/// value, offer retention), read it from here so that they agree to the last digit.
public enum KaplanMeier {
    /// `rate[k] = Π_{j=1..k} retained[j] / (retained[j] + ended[j])` for k = 1…P (0-based arrays
    /// of equal length).
    ///
    /// At each step only the members whose fate is known count: those retained past it and those
    /// that ended with exactly that many paid periods; a member still open is in neither
    /// (censored). Once the product reaches 0 it stays 0 (everyone's fate is known); otherwise it is
    /// nil from the first step with nobody's fate known (a zero denominator), and stays nil.
    public static func rates(retained: [Int], ended: [Int]) -> [Double?] {
        precondition(retained.count == ended.count, "retained and ended cover the same periods")
        var rates: [Double?] = []
        rates.reserveCapacity(retained.count)
        var product: Double? = 1
        for (kept, lost) in zip(retained, ended) {
            if let current = product, current > 0 {
                let known = kept + lost
                // The step's own share first: a step that keeps everyone leaves the rate as it was.
                product = known == 0 ? nil : current * (Double(kept) / Double(known))
            }
            rates.append(product)
        }
        return rates
    }
}
