import SubscriptionModel

/// One row of the price table (`subdash prices import`): what a product cost from `validFrom`
/// on, in one storefront or (empty storefront) in any.
public struct PriceTableRow: Hashable, Sendable, Codable {
    /// Position in the imported file, from 1: at the same `validFrom` a later line wins.
    public var line: Int
    public var productId: String
    /// A 3-letter storefront code, or "" for any storefront.
    public var storefront: String
    public var currency: String
    /// Milliunits of `currency`.
    public var price: Int64
    public var validFrom: Instant

    public init(line: Int, productId: String, storefront: String, currency: String, price: Int64, validFrom: Instant) {
        self.line = line
        self.productId = productId
        self.storefront = storefront
        self.currency = currency
        self.price = price
        self.validFrom = validFrom
    }
}

/// The prices of periods whose transaction carries none (every v1 period), by product,
/// storefront and date (docs/metrics.md "Money", "Charged periods and their price").
public struct PriceTable: Hashable, Sendable {
    /// Rows per product, each list sorted so that the winner among applicable rows comes last.
    private var rowsByProduct: [String: [PriceTableRow]] = [:]

    public static let empty = PriceTable(rows: [])

    public init(rows: [PriceTableRow]) {
        for row in rows { rowsByProduct[row.productId, default: []].append(row) }
        for key in rowsByProduct.keys {
            rowsByProduct[key]!.sort { a, b in
                if a.validFrom != b.validFrom { return a.validFrom < b.validFrom }
                if a.storefront.isEmpty != b.storefront.isEmpty { return a.storefront.isEmpty }
                return a.line < b.line
            }
        }
    }

    public var isEmpty: Bool { rowsByProduct.isEmpty }

    /// The row that prices a period of `productId` in `storefront` (nil: none known) starting at
    /// `start`: among rows for the product whose storefront is the period's or empty, the latest
    /// `validFrom` at or before `start`; at equal dates a named storefront beats an empty one,
    /// then a later line beats an earlier one.
    public func price(productId: String, storefront: String?, at start: Instant) -> PriceTableRow? {
        guard let rows = rowsByProduct[productId] else { return nil }
        for row in rows.reversed() where row.validFrom <= start {
            if row.storefront.isEmpty || row.storefront == storefront { return row }
        }
        return nil
    }
}
