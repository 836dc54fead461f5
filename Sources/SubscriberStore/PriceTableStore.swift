import Foundation
import GRDB
import SubscriptionModel
import SubscriptionTimeline

/// The stored price table (`subdash prices import`) and its CSV form
/// (docs/metrics.md "Money", "Charged periods and their price").
public enum PriceTableStore {
    public static let header = "productId,storefront,currency,price,validFrom"

    /// The table as stored (empty when none was imported).
    public static func load(_ db: Database) throws -> PriceTable {
        var rows: [PriceTableRow] = []
        let statement = try db.cachedStatement(
            sql: """
                SELECT line, productId, storefront, currency, price, validFrom FROM priceTableRow ORDER BY line
                """)
        try statement.forEachRow(db) { c in
            rows.append(
                PriceTableRow(
                    line: Int(c.int64(0)), productId: c.text(1), storefront: c.text(2),
                    currency: c.text(3), price: c.int64(4), validFrom: Instant(milliseconds: c.int64(5))))
        }
        return PriceTable(rows: rows)
    }

    /// Reads the CSV: the header line, then one row per line. Throws naming the file's line.
    public static func parse(_ text: String, source: String) throws -> [PriceTableRow] {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
        guard let first = lines.first,
            first.trimmingCharacters(in: .whitespaces).lowercased() == header.lowercased()
        else {
            throw StoreError("\(source):1: the first line must be the header `\(header)`")
        }
        var rows: [PriceTableRow] = []
        for (i, line) in lines.enumerated().dropFirst() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let at = "\(source):\(i + 1)"
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 5 else { throw StoreError("\(at): expected 5 fields (\(header)), found \(fields.count)") }
            let (product, storefront, currency) = (fields[0], fields[1].uppercased(), fields[2].uppercased())
            guard !product.isEmpty else { throw StoreError("\(at): productId is empty") }
            guard storefront.isEmpty || (storefront.count == 3 && storefront.allSatisfy(\.isLetter)) else {
                throw StoreError("\(at): storefront `\(fields[1])` is not a 3-letter code (or empty for any storefront)")
            }
            guard currency.count == 3, currency.allSatisfy(\.isLetter) else {
                throw StoreError("\(at): currency `\(fields[2])` is not a 3-letter code")
            }
            guard let price = Milliunits.parse(fields[3]) else {
                throw StoreError("\(at): price `\(fields[3])` is not an amount in currency units with at most 3 decimals")
            }
            guard let validFrom = UTCCalendar.parseDate(fields[4]) else {
                throw StoreError("\(at): validFrom `\(fields[4])` is not a date (YYYY-MM-DD)")
            }
            rows.append(
                PriceTableRow(
                    line: i + 1, productId: product, storefront: storefront, currency: currency,
                    price: price, validFrom: validFrom))
        }
        return rows
    }

    /// Replaces the table, then re-derives the money of every subscription it may price: those
    /// with a charged standard period priced by the old table or not at all.
    @discardableResult
    public static func replace(in store: AppDatabase, with rows: [PriceTableRow]) throws -> Int {
        try store.writer.write { db in
            try db.execute(sql: "DELETE FROM priceTableRow")
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO priceTableRow (line, productId, storefront, currency, price, validFrom) VALUES (?, ?, ?, ?, ?, ?)
                    """)
            for r in rows {
                try insert.run(db, r.line, r.productId, r.storefront, r.currency, r.price, r.validFrom.milliseconds)
            }
            try db.execute(
                sql: """
                    INSERT INTO pendingSubscription
                    SELECT DISTINCT originalTransactionId FROM periodMoney
                    WHERE offerKind = 'standard' AND (priceSource IS NULL OR priceSource = 'table')
                    ON CONFLICT DO NOTHING
                    """)
        }
        return try store.rebuildPending()
    }
}

extension AppDatabase {
    /// The stored price table.
    public func priceTable() throws -> PriceTable { try writer.read { db in try PriceTableStore.load(db) } }
}

/// Decimal amounts in currency units, read exactly into milliunits.
public enum Milliunits {
    /// `9.99` → 9990; at most 3 decimals; no sign, no exponent.
    public static func parse(_ text: String) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCII),
            whole.allSatisfy(\.isNumber), whole.count <= 12, let units = Int64(whole)
        else { return nil }
        var fraction: Int64 = 0
        if parts.count == 2 {
            let f = parts[1]
            guard !f.isEmpty, f.count <= 3, f.allSatisfy(\.isASCII), f.allSatisfy(\.isNumber) else { return nil }
            fraction = Int64(f + String(repeating: "0", count: 3 - f.count))!
        }
        return units * 1000 + fraction
    }
}
