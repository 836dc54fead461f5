import Dashboard
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel

/// A small deterministic store for screens: 24 subscriptions begun a week apart from January 2025,
/// monthly and yearly, some after a free trial, each renewing a fixed number of times, a few
/// refunded, one upgraded; everything dated by formula, nothing by the clock. `priced`: every
/// transaction carries its price, in USD (even subscribers) or EUR (odd ones), the trials free.
enum SampleStore {
    static let asOf = Instant(parsing: "2025-06-15")!

    static func documents(count: Int = 24, idBase: Int = 5000, priced: Bool = false) -> [IncomingDocument] {
        var documents: [IncomingDocument] = []
        func add(_ transaction: TransactionFact) {
            let name = "sample-\(transaction.transactionId)"
            documents.append(
                IncomingDocument(
                    sha256: String(repeating: "0", count: 64 - name.count) + name, source: name,
                    byteCount: 1, body: nil,
                    content: .facts(
                        DocumentFacts(
                            format: .v2Notification,
                            transactions: [transaction]))))
        }
        let day = Instant.millisecondsPerDay
        for i in 0..<count {
            let original = "\(idBase + i * 10)"
            let yearly = i % 5 == 0
            var product = yearly ? "pro.yearly" : "pro.monthly"
            let length: Int64 = yearly ? 365 : 30
            var start = Instant(parsing: "2025-01-03")!.adding(days: Int64(i * 7))
            var serial = 0
            func period(_ days: Int64, trial: Bool = false, refunded: Bool = false, upgraded: Bool = false) {
                guard start <= asOf else { return }
                var t = TransactionFact(
                    transactionId: "\(Int(original)! + serial)", originalTransactionId: original,
                    productId: product, purchaseDate: start, expiresDate: start.adding(days: days),
                    environment: .production)
                if trial {
                    t.offerType = 1
                    t.offerDiscountType = "FREE_TRIAL"
                }
                if refunded {
                    t.revocationDate = start.adding(milliseconds: 3 * day)
                    t.revocationReason = 0
                }
                t.isUpgraded = upgraded
                if priced {
                    t.currency = i % 2 == 0 ? "USD" : "EUR"
                    t.price = trial ? 0 : (product == "pro.yearly" ? 99_990 : 9_990) - (i % 2 == 0 ? 0 : 1_000)
                }
                add(t)
                serial += 1
                start = start.adding(days: days)
            }
            if i % 3 == 0 { period(7, trial: true) }
            let renewals = 1 + (i * 7) % 6
            for n in 0..<renewals {
                let last = n == renewals - 1
                if i == 4 && n == 1 {
                    // upgraded mid-period to the yearly plan
                    period(10, upgraded: true)
                    product = "pro.yearly"
                    period(365)
                    break
                }
                period(length, refunded: last && i % 7 == 3)
            }
        }
        return documents
    }

    static func database(priced: Bool = false) throws -> AppDatabase {
        let db = try AppDatabase.inMemory()
        try db.apply(documents(priced: priced))
        return db
    }

    static func runner(priced: Bool = false) throws -> EffectRunner {
        EffectRunner(analytics: SubscriberAnalytics(database: try database(priced: priced)))
    }
}
