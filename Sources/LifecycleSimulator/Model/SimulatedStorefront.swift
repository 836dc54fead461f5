/// The App Store country a simulated subscriber buys in, with its currency and local price
/// points. Prices are set per storefront as App Store Connect does: the USD tier becomes a local
/// price ending in .99 (or a whole number of yen).
public struct SimulatedStorefront: Sendable, Equatable {
    public let code: String
    public let storefrontId: String
    public let currency: String

    public static let all: [SimulatedStorefront] = [
        SimulatedStorefront(code: "USA", storefrontId: "143441", currency: "USD"),
        SimulatedStorefront(code: "FRA", storefrontId: "143442", currency: "EUR"),
        SimulatedStorefront(code: "DEU", storefrontId: "143443", currency: "EUR"),
        SimulatedStorefront(code: "GBR", storefrontId: "143444", currency: "GBP"),
        SimulatedStorefront(code: "JPN", storefrontId: "143462", currency: "JPY"),
    ]

    /// Six in ten subscribers in the US, then France, Germany, the UK and Japan one in ten each,
    /// fixed per subscriber.
    public static func of(subscriber index: Int) -> SimulatedStorefront {
        switch index % 10 {
        case 6: all[1]
        case 7: all[2]
        case 8: all[3]
        case 9: all[4]
        default: all[0]
        }
    }

    /// Monthly payments with a 12-month commitment exist everywhere except in the US and
    /// Singapore (docs/metrics.md, "Billing plans and commitments").
    public var offersCommitments: Bool { code != "USA" && code != "SGP" }

    /// The share of subscribers whose storefront offers commitments (France, Germany, the UK and
    /// Japan): the largest `--commitment-share`.
    public static let commitmentStorefrontShare = 0.4

    /// The local price of a USD price in milliunits (0 stays 0): EUR at the same figure, GBP
    /// about 0.85 of it ending in .99, JPY 150 yen to the dollar rounded to 10 yen.
    public func localPrice(_ usd: Int64) -> Int64 {
        guard usd > 0 else { return 0 }
        switch currency {
        case "EUR": return usd
        case "GBP": return max(990, (usd * 85 / 100 + 500) / 1000 * 1000 - 10)
        case "JPY": return (usd * 150 + 5000) / 10_000 * 10_000
        default: return usd
        }
    }
}
