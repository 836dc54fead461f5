/// How long a product bills for: the App Store's subscription durations (one week, one, two,
/// three and six months, one year). A length is rounded to the nearest of them, so a renewal
/// charged a day early or a 28-day February is still a month.
public enum BillingDuration: String, Sendable, Codable, CaseIterable, Hashable, Comparable {
    case week
    case month
    case twoMonths = "2months"
    case threeMonths = "3months"
    case sixMonths = "6months"
    case year

    /// The nominal length in days (a month is a year's twelfth: 30.4375).
    public var nominalDays: Double {
        switch self {
        case .week: 7
        case .month: 30.4375
        case .twoMonths: 60.875
        case .threeMonths: 91.3125
        case .sixMonths: 182.625
        case .year: 365.25
        }
    }

    /// The whole number of days the store keeps for this duration (`period.billingDays`).
    public var days: Int {
        switch self {
        case .week: 7
        case .month: 30
        case .twoMonths: 61
        case .threeMonths: 91
        case .sixMonths: 183
        case .year: 365
        }
    }

    public init?(days: Int) {
        guard let found = Self.allCases.first(where: { $0.days == days }) else { return nil }
        self = found
    }

    /// The duration nearest to a length in milliseconds (halfway between two: the shorter).
    public init(lengthMilliseconds: Int64) {
        let days = Double(lengthMilliseconds) / Double(Instant.millisecondsPerDay)
        var best = BillingDuration.week
        for candidate in Self.allCases where abs(candidate.nominalDays - days) < abs(best.nominalDays - days) {
            best = candidate
        }
        self = best
    }

    /// Words for titles and help: "weekly", "monthly", "every 2 months", …, "yearly".
    public var adjective: String {
        switch self {
        case .week: "weekly"
        case .month: "monthly"
        case .twoMonths: "every 2 months"
        case .threeMonths: "every 3 months"
        case .sixMonths: "every 6 months"
        case .year: "yearly"
        }
    }

    public static func < (lhs: BillingDuration, rhs: BillingDuration) -> Bool { lhs.days < rhs.days }
}
