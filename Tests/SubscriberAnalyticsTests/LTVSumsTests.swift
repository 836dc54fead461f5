import GRDB
import ReportOutputs
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

@testable import SubscriberAnalytics

/// `report ltv` reads per-day and per-month sums of each cohort member's realized-LTV state kept
/// by the materialiser, plus the members changing on as-of's day. At any instant and for every
/// option it must print what reading every member's paid periods one by one prints, and the kept
/// sums must equal the sums recomputed from the rows, however the rows came and went.
@Suite struct LTVSumsTests {
    /// Realized LTV computed member by member from every cohort member's counted paid periods
    /// (docs/metrics.md "Realized LTV per cohort"): the reference the kept sums must reproduce.
    static func byMembers(
        _ database: AppDatabase, asOf: Instant, periods: Int, from: Month? = nil, to: Month? = nil,
        scope: ReportScope = ReportScope(), rates: CurrencyRates? = nil
    ) throws -> LTVReport {
        struct Member {
            var month: Int
            var ended: Bool
            var prices: [(Int64, String)?] = []
        }
        var members: [Member] = []
        var last: (String, Int)?
        // Every cohort member's counted paid periods started by as-of, with their prices.
        var sql = """
            SELECT r.originalTransactionId, r.runIndex, r.cohortMonth, r.endedAt <= :asOf, p.start, m.price, m.currency
            FROM run r
            LEFT JOIN period p ON p.originalTransactionId = r.originalTransactionId AND p.runIndex = r.runIndex
                AND p.countsForRetention AND p.start <= :asOf
            LEFT JOIN periodMoney m ON m.transactionId = p.transactionId
            WHERE r.firstPaidStart IS NOT NULL AND r.firstPaidStart <= :asOf
            """
        sql += " AND r.environment IN (" + scope.environment.environments.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
        if let product = scope.productId { sql += " AND r.firstPaidProductId = '\(product)'" }
        let rows = try database.writer.read { db in
            try Row.fetchAll(db, sql: sql + " ORDER BY 1, 2, p.start", arguments: ["asOf": asOf.milliseconds])
        }
        for row in rows {
            let id: (String, Int) = (row[0], row[1])
            if last == nil || last! != id {
                members.append(Member(month: row[2], ended: row[3]))
                last = id
            }
            guard let start: Int64 = row[4] else { continue }
            var price: Int64? = row[5]
            var currency: String? = row[6]
            if let rates, let p = price, let c = currency {
                price = try rates.convert(p, c, month: Instant(milliseconds: start).month)
                currency = rates.target
            }
            members[members.count - 1].prices.append(price.flatMap { p in currency.map { (p, $0) } })
        }
        var unpriced = 0
        var mixed = 0
        var groups: [String: [Int: [Member]]] = [:]
        var firstMonth: Int?
        for member in members {
            firstMonth = min(firstMonth ?? member.month, member.month)
            let currencies = Set(member.prices.compactMap { $0?.1 })
            guard let currency = member.prices.lazy.compactMap({ $0?.1 }).first else {
                unpriced += 1
                continue
            }
            guard currencies.count == 1 else {
                mixed += 1
                continue
            }
            groups[currency, default: [:]][member.month, default: []].append(member)
        }
        func row(_ members: [Member], month: Month?, currency: String) -> LTVReport.Row {
            var retained = [Int](repeating: 0, count: periods)
            var ended = [Int](repeating: 0, count: periods)
            for m in members {
                for k in 1...periods where m.prices.count >= k + 1 { retained[k - 1] += 1 }
                if m.ended, m.prices.count >= 1, m.prices.count <= periods { ended[m.prices.count - 1] += 1 }
            }
            let rate = KaplanMeier.rates(retained: retained, ended: ended)
            var ltv: [Double?] = []
            var sum: Double? = 0
            for j in 1...periods {
                let survival: Double? = j == 1 ? 1 : rate[j - 2]
                if let s = sum {
                    let priced = members.compactMap { $0.prices.count >= j ? $0.prices[j - 1]?.0 : nil }
                    if let s0 = survival, s0 == 0 {
                        sum = s
                    } else if let s0 = survival, !priced.isEmpty {
                        sum = s + s0 * Double(priced.reduce(0, +)) / Double(priced.count)
                    } else {
                        sum = nil
                    }
                }
                ltv.append(sum)
            }
            return LTVReport.Row(month: month, currency: currency, started: members.count, rate: rate, ltv: ltv)
        }
        let lastIndex = (to ?? asOf.month).index
        let firstIndex = from?.index ?? firstMonth ?? lastIndex
        var report = LTVReport(
            asOf: asOf, periods: periods, currency: rates?.target, mixedCurrency: mixed, unpriced: unpriced,
            cohorts: [], average: [])
        guard firstIndex <= lastIndex else { return report }
        for m in firstIndex...lastIndex {
            for currency in groups.keys.sorted() {
                report.cohorts.append(row(groups[currency]![m] ?? [], month: Month(index: m), currency: currency))
            }
        }
        for currency in groups.keys.sorted() {
            report.average.append(
                row((firstIndex...lastIndex).flatMap { groups[currency]![$0] ?? [] }, month: nil, currency: currency))
        }
        return report
    }

    /// Instants of every kind: day boundaries and a millisecond either side, midday, month starts,
    /// and the starts and ends of paid periods and runs.
    static func instants(_ database: AppDatabase, horizon: Instant, edges limit: Int) throws -> [Instant] {
        let edges = try database.writer.read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT start FROM period WHERE countsForRetention UNION SELECT endedAt FROM run
                    UNION SELECT firstPaidStart FROM run WHERE firstPaidStart IS NOT NULL ORDER BY 1
                    """)
        }
        var instants: [Instant] = [horizon, horizon.adding(days: 40)]
        let step = max(1, edges.count / limit)
        for e in edges.enumerated() where e.offset % step == 0 {
            for offset: Int64 in [-1, 0, 1] { instants.append(Instant(milliseconds: e.element + offset)) }
        }
        if let first = edges.first {
            var month = Instant(milliseconds: first).month
            while month.start <= horizon {
                for offset: Int64 in [-1, 0, 1, Instant.millisecondsPerDay / 2] {
                    instants.append(month.start.adding(milliseconds: offset))
                }
                month = month.adding(months: 1)
            }
        }
        return instants
    }

    /// Rates for every stored currency into USD, one of them per month (so a period's month matters).
    static func rates(_ database: AppDatabase) throws -> CurrencyRates {
        let currencies = try database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT currency FROM periodMoney WHERE currency IS NOT NULL ORDER BY 1")
        }
        var csv = "currency,month,rate\n"
        for (i, c) in currencies.filter({ $0 != "USD" }).enumerated() {
            if i == 0 {
                for y in 2020...2030 {
                    for m in 1...12 { csv += "\(c),\(y)-\(m < 10 ? "0" : "")\(m),1.\(m)7\n" }
                }
            } else {
                csv += "\(c),\(i).31\n"
            }
        }
        return try CurrencyRates(target: "USD", csv: csv, source: "rates.csv")
    }

    @Test func theReportEqualsTheMembersCountedOneByOneAtEveryKindOfInstant() throws {
        let analytics = try SampleDataConsistencyTests.store()
        let database = analytics.database
        let horizon = try #require(try analytics.dataHorizon())
        let rates = try Self.rates(database)
        let products = try database.writer.read { db in
            try String.fetchAll(
                db, sql: "SELECT DISTINCT firstPaidProductId FROM run WHERE firstPaidProductId IS NOT NULL ORDER BY 1")
        }
        #expect(products.count >= 2)
        var nonEmpty = 0
        var priced = 0
        for asOf in try Self.instants(database, horizon: horizon, edges: 25) {
            for scope in [ReportScope(), ReportScope(environment: .all), ReportScope(productId: products[0])] {
                for r in [nil, rates] {
                    let kept = try analytics.ltv(asOf: asOf, periods: 12, scope: scope, rates: r)
                    let reference = try Self.byMembers(database, asOf: asOf, periods: 12, scope: scope, rates: r)
                    let (a, b) = (LTVOutput(kept).json, LTVOutput(reference).json)
                    let common = zip(a, b).prefix { $0 == $1 }.count
                    #expect(
                        a == b,
                        "at \(asOf.iso8601), \(scope), rates \(r != nil): \(a.dropFirst(max(0, common - 80)).prefix(200)) vs \(b.dropFirst(max(0, common - 80)).prefix(200))"
                    )
                    if !kept.cohorts.isEmpty { nonEmpty += 1 }
                    if kept.average.contains(where: { $0.ltv[0] != nil }) { priced += 1 }
                }
            }
        }
        #expect(nonEmpty > 100 && priced > 100)
        // A range of months and a short horizon of periods.
        let from = horizon.month.adding(months: -8)
        let to = horizon.month.adding(months: -2)
        for periods in [1, 3, 24] {
            let kept = try analytics.ltv(asOf: horizon, periods: periods, from: from, to: to, rates: rates)
            let reference = try Self.byMembers(database, asOf: horizon, periods: periods, from: from, to: to, rates: rates)
            #expect(LTVOutput(kept).json == LTVOutput(reference).json, "\(periods) periods")
        }
    }

    /// SampleData's subscriptions derived again after some of their history is taken away, then
    /// re-priced by a price table for their v1 periods, then the table emptied: the kept sums
    /// follow, and the report still equals the members counted one by one.
    @Test func keptSumsFollowRebuildsAndPriceTables() throws {
        // This test writes: a copy of the shared store of its own.
        let database = try SampleDataStore.copy(.sharedSecret)
        let analytics = SubscriberAnalytics(database: database)
        let horizon = try #require(try analytics.dataHorizon())
        func check(_ step: String) throws {
            #expect(try KeptCounts.of(database).differing.isEmpty, "after \(step)")
            for asOf in try Self.instants(database, horizon: horizon, edges: 8) {
                #expect(
                    LTVOutput(try analytics.ltv(asOf: asOf, scope: ReportScope(environment: .all))).json
                        == LTVOutput(
                            try Self.byMembers(database, asOf: asOf, periods: 12, scope: ReportScope(environment: .all))
                        ).json,
                    "after \(step), at \(asOf.iso8601)")
            }
        }
        func ltvTables() throws -> [[String]] {
            let kept = try KeptCounts.kept(database)
            return ["ltvMemberDay", "ltvMemberMonth", "ltvPriceDay", "ltvPriceMonth"].map { kept[$0] ?? [] }
        }
        let before = try ltvTables()
        // The latest transaction of 80 subscriptions taken away (as if their renewals and refunds
        // had not arrived yet), and their subscriptions rebuilt.
        try database.takeLatestTransactionAway(fromSubscriptions: 80)
        #expect(try database.rebuildPending() == 80)
        #expect(try ltvTables() != before)
        try check("a rebuild")
        let unpriced = try analytics.ltv(asOf: horizon).unpriced
        let products = try database.writer.read { db in
            try String.fetchAll(
                db, sql: "SELECT DISTINCT productId FROM periodMoney WHERE offerKind = 'standard' AND price IS NULL ORDER BY 1")
        }
        #expect(!products.isEmpty, "SampleData has unpriced standard periods (v1)")
        try PriceTableStore.replace(
            in: database,
            with: products.enumerated().flatMap { i, product in
                [
                    PriceTableRow(
                        line: 2 * i + 1, productId: product, storefront: "", currency: "USD", price: 4_990,
                        validFrom: Instant(parsing: "2020-01-01")!),
                    PriceTableRow(
                        line: 2 * i + 2, productId: product, storefront: "", currency: "USD", price: 5_990,
                        validFrom: horizon.month.adding(months: -6).start),
                ]
            })
        #expect(try analytics.ltv(asOf: horizon).unpriced < unpriced)
        try check("a price table")
        try PriceTableStore.replace(in: database, with: [])
        #expect(try analytics.ltv(asOf: horizon).unpriced == unpriced)
        try check("the price table emptied")
    }
}
