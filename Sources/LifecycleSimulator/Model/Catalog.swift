import SubscriptionModel

/// How long one billing period of a product lasts.
public enum BillingDuration: Sendable, Equatable {
    case days(Int)
    case months(Int)

    /// `start` plus `count` periods, on the same day of month (clamped) and time of day.
    func advance(_ start: Instant, by count: Int = 1) -> Instant {
        switch self {
        case .days(let days): return start.adding(days: Int64(days * count))
        case .months(let months): return Self.addMonths(start, months * count)
        }
    }

    static func addMonths(_ instant: Instant, _ months: Int) -> Instant {
        let c = UTCCalendar.components(of: instant)
        let target = Month(year: c.year, month: c.month).adding(months: months)
        let millisecondsOfDay = instant.milliseconds - UTCCalendar.instant(year: c.year, month: c.month, day: c.day).milliseconds
        return UTCCalendar.instant(year: target.year, month: target.month, day: min(c.day, target.dayCount))
            .adding(milliseconds: millisecondsOfDay)
    }
}

/// One auto-renewable product of the simulated app's single subscription group.
public struct SimulatedProduct: Sendable, Equatable {
    public let productId: String
    /// Level in the group: 1 is the highest service level.
    public let level: Int
    public let duration: BillingDuration
    /// ISO 8601 duration of one period, as `offerPeriod` spells it.
    public let periodName: String
    /// Milliunits of USD.
    public let price: Int64
    /// Price after the mid-range price increase that needs consent, if this product gets one.
    public let increasedPrice: Int64?
    /// Billing grace period; 0 = none.
    public let graceDays: Int
}

/// The simulated app: one bundle, one subscription group, four products.
public enum Catalog {
    public static let bundleId = "com.example.subdash"
    public static let bundleVersion = "4.2"
    public static let appAppleId: Int64 = 1_234_567_890
    public static let subscriptionGroupIdentifier = "21450001"

    public static let premiumMonthly = 0, proYearly = 1, proMonthly = 2, proWeekly = 3
    public static let products: [SimulatedProduct] = [
        SimulatedProduct(
            productId: "com.example.premium.monthly", level: 1, duration: .months(1), periodName: "P1M",
            price: 14_990, increasedPrice: nil, graceDays: 16),
        SimulatedProduct(
            productId: "com.example.pro.yearly", level: 2, duration: .months(12), periodName: "P1Y",
            price: 59_990, increasedPrice: nil, graceDays: 16),
        SimulatedProduct(
            productId: "com.example.pro.monthly", level: 2, duration: .months(1), periodName: "P1M",
            price: 7_990, increasedPrice: 9_990, graceDays: 16),
        // Weekly has no grace period: its billing failures go straight to billing retry.
        SimulatedProduct(
            productId: "com.example.pro.weekly", level: 3, duration: .days(7), periodName: "P1W",
            price: 2_990, increasedPrice: nil, graceDays: 0),
    ]

    /// The product sold with monthly payments and a 12-month commitment (its transactions keep
    /// this annual product's id).
    public static let commitmentProduct = proYearly
    /// One monthly payment of the commitment, in milliunits of USD: 12 of them (71.88) lie
    /// between the upfront price (59.99) and 1.5 times it, as App Store Connect requires.
    public static let commitmentMonthlyPrice: Int64 = 5_990
    /// Payments in one commitment.
    public static let commitmentPayments = 12
}

/// A subscription offer applied to a period.
public struct SimulatedOffer: Sendable, Equatable {
    public enum Discount: String, Sendable {
        case freeTrial = "FREE_TRIAL"
        case payAsYouGo = "PAY_AS_YOU_GO"
        case payUpFront = "PAY_UP_FRONT"
    }
    public enum Kind: Int, Sendable {
        case introductory = 1
        case promotional = 2
        case offerCode = 3
        case winBack = 4
    }

    public let kind: Kind
    public let discount: Discount
    /// Promotional offer id, offer code reference name or win-back offer id; nil for introductory offers.
    public let identifier: String?
    /// ISO 8601 duration of the whole offer (`offerPeriod`).
    public let period: String
    /// Length of the offer's period when it differs from the product's (free trials, pay up front).
    public let duration: BillingDuration?
    /// How many billing periods the offer lasts (pay as you go).
    public let periodCount: Int
    /// Price per offer period, in milliunits.
    public let price: Int64

    public var isFree: Bool { discount == .freeTrial }
}

// MARK: - Offers

extension Catalog {
    static func introductoryFreeTrial(for product: Int) -> SimulatedOffer {
        switch Catalog.products[product].duration {
        case .days:
            return SimulatedOffer(
                kind: .introductory, discount: .freeTrial, identifier: nil, period: "P3D",
                duration: .days(3), periodCount: 1, price: 0)
        case .months(12):
            return SimulatedOffer(
                kind: .introductory, discount: .freeTrial, identifier: nil, period: "P2W",
                duration: .days(14), periodCount: 1, price: 0)
        case .months:
            return SimulatedOffer(
                kind: .introductory, discount: .freeTrial, identifier: nil, period: "P1W",
                duration: .days(7), periodCount: 1, price: 0)
        }
    }

    /// Three months at half price, billed monthly.
    static func introductoryPayAsYouGo(for product: Int) -> SimulatedOffer {
        SimulatedOffer(
            kind: .introductory, discount: .payAsYouGo, identifier: nil, period: "P3M", duration: nil,
            periodCount: 3, price: Catalog.products[product].price / 2)
    }

    /// Three months for the price of two and a half, paid once.
    static func introductoryPayUpFront(for product: Int) -> SimulatedOffer {
        SimulatedOffer(
            kind: .introductory, discount: .payUpFront, identifier: nil, period: "P3M", duration: .months(3),
            periodCount: 1, price: Catalog.products[product].price * 5 / 2)
    }

    /// An offer code for a first free month.
    static let offerCodeFreeMonth = SimulatedOffer(
        kind: .offerCode, discount: .freeTrial, identifier: "LAUNCH-FREE-MONTH",
        period: "P1M", duration: .months(1), periodCount: 1, price: 0)

    /// An offer code redeemed by an active subscriber: next period 30 % off.
    static func offerCodeLoyalty(for product: Int) -> SimulatedOffer {
        let p = Catalog.products[product]
        return SimulatedOffer(
            kind: .offerCode, discount: .payAsYouGo, identifier: "LOYALTY-30", period: p.periodName,
            duration: nil, periodCount: 1, price: p.price * 7 / 10)
    }

    /// A promotional (retention) offer: next period half price.
    static func promotional(for product: Int) -> SimulatedOffer {
        let p = Catalog.products[product]
        return SimulatedOffer(
            kind: .promotional, discount: .payAsYouGo, identifier: "promo.retention.50", period: p.periodName,
            duration: nil, periodCount: 1, price: p.price / 2)
    }

    /// A win-back offer for a lapsed subscriber: first period back at half price.
    static func winBack(for product: Int) -> SimulatedOffer {
        let p = Catalog.products[product]
        return SimulatedOffer(
            kind: .winBack, discount: .payAsYouGo, identifier: "winback.half-price", period: p.periodName,
            duration: nil, periodCount: 1, price: p.price / 2)
    }

    /// The product a subscriber moves to at renewal (downgrade or crossgrade to another duration).
    static func downgradeTarget(from product: Int) -> Int? {
        switch product {
        case premiumMonthly: return proMonthly
        case proMonthly: return proYearly
        case proYearly: return proMonthly
        default: return nil
        }
    }
}
