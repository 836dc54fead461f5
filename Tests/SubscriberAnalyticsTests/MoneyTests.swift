import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

extension StoreBuilder {
    /// One charged v2 transaction with its price: `charge("s1", "t1", "2025-01-10", "2025-02-10", 9990, "EUR")`.
    mutating func charge(
        _ original: String, _ id: String, _ start: String, _ end: String, _ price: Int64?, _ currency: String?,
        product: String = "pro.monthly", storefront: String? = nil, offerType: Int? = nil,
        offerIdentifier: String? = nil, trial: Bool = false, upgraded: Bool = false,
        revokedAt: String? = nil, prorated: Int? = nil, familyShared: Bool = false
    ) {
        var t = TransactionFact(
            transactionId: id, originalTransactionId: original, productId: product,
            purchaseDate: day(start), expiresDate: day(end), price: price, currency: currency,
            storefront: storefront)
        t.offerType = offerType
        t.offerIdentifier = offerIdentifier
        if trial {
            t.offerType = 1
            t.offerDiscountType = "FREE_TRIAL"
        }
        t.isUpgraded = upgraded
        if familyShared { t.inAppOwnershipType = "FAMILY_SHARED" }
        if let revokedAt {
            t.revocationDate = day(revokedAt)
            t.revocationType = familyShared ? "FAMILY_REVOKE" : prorated == nil ? "REFUND_FULL" : "REFUND_PRORATED"
            t.revocationPercentage = prorated
        }
        add(DocumentFacts(format: .v2Notification, transactions: [t]))
    }

    /// A v1 row: no price, no storefront.
    mutating func v1Period(_ original: String, _ id: String, _ start: String, _ end: String, product: String = "pro.monthly") {
        let t = TransactionFact(
            transactionId: id, originalTransactionId: original, productId: product,
            purchaseDate: day(start), expiresDate: day(end))
        add(DocumentFacts(format: .v1Notification, transactions: [t]))
    }
}

func report(_ analytics: SubscriberAnalytics, _ id: String, asOf: String) throws -> SubscriberReport {
    guard case .found(let r) = try analytics.subscriber(id, asOf: day(asOf)) else {
        throw StoreError("\(id) not found")
    }
    return r
}

@Suite struct PeriodMoneyTests {
    /// Pays 9.99 EUR in France, moves to the US store and pays 10.99 USD, then the January
    /// charge is refunded on 20 February.
    @Test func aSubscriberPayingInTwoCurrencies() throws {
        var b = StoreBuilder()
        b.charge("S", "S1", "2025-01-10", "2025-02-10", 9990, "EUR", storefront: "FRA", revokedAt: "2025-02-20")
        b.charge("S", "S2", "2025-02-10", "2025-03-10", 10990, "USD", storefront: "USA")
        let analytics = try b.build()
        let r = try report(analytics, "S", asOf: "2025-03-01")
        #expect(r.money.map(\.price) == [9990, 10990])
        #expect(r.money.map(\.currency) == ["EUR", "USD"])
        #expect(r.money.map(\.refundAmount) == [9990, nil])
        #expect(r.paid == ["EUR": 0, "USD": 10990])
        // Before the refund the euros were still paid.
        #expect(try report(analytics, "S", asOf: "2025-02-15").paid == ["EUR": 9990, "USD": 10990])
        let json = SubscriberOutput(r).json
        let upfront = #""billingPlan":"upfront","commitmentPeriod":null,"commitmentPeriods":null,"#
        #expect(
            json.contains(
                #""refunded":true,"# + upfront + #""price":9.99,"currency":"EUR","refundAmount":9.99,"upgradeCredit":null}"#))
        #expect(
            json.contains(
                #""refunded":false,"# + upfront + #""price":10.99,"currency":"USD","refundAmount":null,"upgradeCredit":null}"#))
        #expect(json.contains(#""paid":{"EUR":0,"USD":10.99},"paidServiceDays":19,"commitment":null,"renewalPrice":null,"#))
    }

    /// The price table of docs/metrics.md: a v1 period takes the latest row valid at its start.
    @Test func aV1PeriodPricedByTheTable() throws {
        var b = StoreBuilder()
        b.v1Period("V", "V1", "2025-02-10", "2025-03-01")
        b.v1Period("V", "V2", "2025-03-01", "2025-04-01")
        b.v1Period("W", "W1", "2023-12-01", "2024-01-01")
        let analytics = try b.build()
        let csv = """
            productId,storefront,currency,price,validFrom
            pro.monthly,,USD,9.99,2024-01-01
            pro.monthly,FRA,EUR,9.49,2024-01-01
            pro.monthly,,USD,10.99,2025-03-01
            """
        try PriceTableStore.replace(in: analytics.database, with: try PriceTableStore.parse(csv, source: "prices.csv"))
        let v = try report(analytics, "V", asOf: "2025-03-15")
        #expect(v.money.map(\.price) == [9990, 10990])
        #expect(v.money.map(\.priceSource) == [.table, .table])
        #expect(v.paid == ["USD": 20980])
        // Before the table's first row: unpriced, never 0.
        let w = try report(analytics, "W", asOf: "2025-03-15")
        #expect(w.money[0].price == nil && w.money[0].isCharged)
        #expect(SubscriberOutput(w).json.contains(#""price":null,"currency":null"#))
    }

    @Test func storefrontRowsBeatEmptyOnesAndOffersAreNeverPricedByTheTable() {
        let table = PriceTable(rows: [
            PriceTableRow(line: 2, productId: "p", storefront: "FRA", currency: "EUR", price: 9490, validFrom: day("2024-01-01")),
            PriceTableRow(line: 3, productId: "p", storefront: "", currency: "USD", price: 9990, validFrom: day("2024-01-01")),
            PriceTableRow(line: 4, productId: "p", storefront: "", currency: "USD", price: 8990, validFrom: day("2024-01-01")),
        ])
        #expect(table.price(productId: "p", storefront: "FRA", at: day("2024-05-01"))?.price == 9490)
        // Same date, both empty: the later line wins.
        #expect(table.price(productId: "p", storefront: "DEU", at: day("2024-05-01"))?.price == 8990)
        #expect(table.price(productId: "p", storefront: nil, at: day("2024-05-01"))?.price == 8990)
        #expect(table.price(productId: "p", storefront: nil, at: day("2023-05-01")) == nil)
        let intro = SubscriptionTimeline.derive(
            SubscriptionFacts(
                originalTransactionId: "I",
                transactions: [
                    TransactionFact(
                        transactionId: "I1", originalTransactionId: "I", productId: "p", purchaseDate: day("2024-05-01"),
                        expiresDate: day("2024-06-01"), offerType: 1, offerDiscountType: "PAY_AS_YOU_GO")
                ]))
        #expect(intro.money(priceTable: table)[0].price == nil)
    }

    @Test func priceTableFilesAreReadExactlyOrRejectedByLine() throws {
        #expect(Milliunits.parse("9.99") == 9990)
        #expect(Milliunits.parse("10") == 10000)
        #expect(Milliunits.parse("0.001") == 1)
        #expect(Milliunits.parse("1.2345") == nil)
        #expect(Milliunits.parse("-1") == nil)
        let error = #expect(throws: StoreError.self) {
            try PriceTableStore.parse(
                "productId,storefront,currency,price,validFrom\np,,USD,9.999,2024-01-01\np,,USD,9.9999,2024-01-01",
                source: "prices.csv")
        }
        #expect(error?.message == "prices.csv:3: price `9.9999` is not an amount in currency units with at most 3 decimals")
        let header = #expect(throws: StoreError.self) { try PriceTableStore.parse("product,price\n", source: "p.csv") }
        #expect(header?.message == "p.csv:1: the first line must be the header `productId,storefront,currency,price,validFrom`")
    }

    /// docs/metrics.md "Refunds and upgrade credits": 99.99 a year, cut 91 days before expiry;
    /// a prorated refund of 33.333 %.
    @Test func upgradeCreditsAndProratedRefunds() throws {
        var b = StoreBuilder()
        b.charge("U", "U1", "2025-01-01", "2026-01-01", 99990, "USD", product: "pro.yearly", upgraded: true)
        b.charge("U", "U2", "2025-10-02", "2025-11-02", 19990, "USD", product: "premium.monthly")
        b.charge(
            "P", "P1", "2025-01-01", "2026-01-01", 99990, "USD", product: "pro.yearly", revokedAt: "2025-03-01",
            prorated: 33333)
        let analytics = try b.build()
        let u = try report(analytics, "U", asOf: "2025-10-15")
        #expect(u.money[0].upgradeCredit == 24929)
        #expect(u.money[0].creditAt == day("2025-10-02"))
        #expect(u.money[0].refundAmount == nil)
        #expect(u.paid == ["USD": 99990 - 24929 + 19990])
        let p = try report(analytics, "P", asOf: "2025-10-15")
        #expect(p.money[0].refundAmount == 33330)
        #expect(p.paid == ["USD": 99990 - 33330])
    }

    @Test func roundingIsHalfAwayFromZero() {
        #expect(MoneyMath.proceeds(9990, ratePercent: 85) == 8492)
        #expect(MoneyMath.proceeds(9990, ratePercent: 70) == 6993)
        #expect(MoneyMath.scaled(5, by: 1, over: 2) == 3)
        #expect(MoneyMath.scaled(-5, by: 1, over: 2) == -3)
        #expect(MoneyMath.scaled(Int64.max / 2, by: 3_000_000_000_000, over: 3_000_000_000_000) == Int64.max / 2)
    }

    /// The 85 % rule: six months paid (182 days), a lapse, then monthly again. A 40-day lapse
    /// keeps the 182 days; a 90-day lapse starts the count over.
    @Test(arguments: [
        (first: "2024-01-01", lapseEnd: "2024-08-10", firstAt85: "2025-02-10"),
        (first: "2024-01-03", lapseEnd: "2024-10-01", firstAt85: "2025-10-01"),
    ])
    func fifteenPercentAfterAYearOfPaidService(first: String, lapseEnd: String, firstAt85: String) throws {
        var facts = SubscriptionFacts(originalTransactionId: "Y")
        func month(_ s: Instant) -> Instant {
            let c = UTCCalendar.components(of: s)
            return UTCCalendar.instant(year: c.month == 12 ? c.year + 1 : c.year, month: c.month % 12 + 1, day: c.day)
        }
        var start = day(first)
        for i in 0..<6 {
            facts.transactions.append(
                TransactionFact(
                    transactionId: "a\(i)", originalTransactionId: "Y", productId: "p",
                    purchaseDate: start, expiresDate: month(start), price: 9990, currency: "USD"))
            start = month(start)
        }
        start = day(lapseEnd)
        for i in 0..<14 {
            facts.transactions.append(
                TransactionFact(
                    transactionId: "b\(i)", originalTransactionId: "Y", productId: "p",
                    purchaseDate: start, expiresDate: month(start), price: 9990, currency: "USD"))
            start = month(start)
        }
        let timeline = SubscriptionTimeline.derive(facts)
        let money = timeline.money(priceTable: .empty)
        let first85 = zip(timeline.periods, money).first { $0.1.proceedsRate == 85 }?.0.start
        #expect(first85 == day(firstAt85))
        #expect(money.allSatisfy { $0.proceedsRate == 70 || $0.proceedsRate == 85 })
        // The 40-day lapse: 182 + 153 days before 2025-01-10.
        if lapseEnd == "2024-08-10" {
            let jan = timeline.periods.firstIndex { $0.start == day("2025-01-10") }!
            #expect(money[jan].paidServiceBefore == 335 * Instant.millisecondsPerDay)
            #expect(timeline.paidService(asOf: day("2024-09-10")) == (182 + 31) * Instant.millisecondsPerDay)
        } else {
            // 2024-07-03 to 2024-10-01 is 90 days: the count restarts.
            #expect(timeline.paidService(asOf: day("2024-10-31")) == 30 * Instant.millisecondsPerDay)
        }
    }

    /// A year charged a day early: the earlier period counts in full (365 days), so 85 %.
    @Test func aYearlyRenewalChargedADayEarlyIsAt85Percent() {
        let timeline = SubscriptionTimeline.derive(
            SubscriptionFacts(
                originalTransactionId: "Y",
                transactions: [
                    TransactionFact(
                        transactionId: "Y1", originalTransactionId: "Y", productId: "y", purchaseDate: day("2025-01-01"),
                        expiresDate: day("2026-01-01"), price: 59990, currency: "USD"),
                    TransactionFact(
                        transactionId: "Y2", originalTransactionId: "Y", productId: "y", purchaseDate: day("2025-12-31"),
                        expiresDate: day("2027-01-01"), price: 59990, currency: "USD"),
                ]))
        #expect(timeline.money(priceTable: .empty).map(\.proceedsRate) == [70, 85])
    }

    @Test func freeTrialsArePricedZeroAndNeverCharged() throws {
        var b = StoreBuilder()
        b.charge("T", "T0", "2025-01-01", "2025-01-08", 0, "USD", trial: true, revokedAt: "2025-01-03")
        let r = try report(b.build(), "T", asOf: "2025-01-05")
        #expect(r.money[0].price == 0 && !r.money[0].isCharged && r.money[0].refundAmount == nil)
        #expect(r.paid == [:])
    }

    /// Family Sharing: a member's periods are never charged, whatever price their transactions
    /// carry. The member mirrors the purchaser (a free week, then 9.99 USD a month, access lost
    /// when the purchaser's March charge is refunded); every money figure is the purchaser's alone.
    @Test func familySharedPeriodsAddNothing() throws {
        var b = StoreBuilder()
        for (original, shared) in [("P", false), ("F", true)] {
            b.charge(original, original + "0", "2025-01-01", "2025-01-08", 0, "USD", trial: true, familyShared: shared)
            b.charge(original, original + "1", "2025-01-08", "2025-02-08", 9990, "USD", familyShared: shared)
            b.charge(original, original + "2", "2025-02-08", "2025-03-08", 9990, "USD", familyShared: shared)
            b.charge(
                original, original + "3", "2025-03-08", "2025-04-08", 9990, "USD", revokedAt: "2025-03-20",
                familyShared: shared)
        }
        let analytics = try b.build()
        let asOf = day("2025-04-15")
        let revenue = try analytics.revenue(from: day("2025-01-01"), to: day("2025-05-01"), asOf: asOf)
        #expect(
            revenue.rows.map { "\($0.currency) \($0.charged) \($0.gross) \($0.refunded) \($0.refunds) \($0.net)" }
                == ["USD 3 29970 1 9990 19980"])
        #expect(revenue.unpriced == 0)
        let mrr = try analytics.mrr(asOf: day("2025-02-15"))
        #expect(mrr.rows.map { "\($0.currency) \($0.subscriptions) \($0.mrr)" } == ["USD 1 9990"])
        #expect(mrr.unpriced == 0)
        let offers = try analytics.offerConversion(from: day("2025-01-01"), to: day("2025-02-01"), asOf: asOf)
        #expect(offers.offers.map { "\($0.offerKind) \($0.started) \($0.converted)" } == ["freeTrial 1 1"])
        let refunds = try analytics.refundRate(
            from: day("2025-01-01"), to: day("2025-04-01"), asOf: asOf,
            by: .month)
        #expect(refunds.rows.map { "\($0.key) \($0.charged) \($0.refunded)" } == ["2025-01 1 0", "2025-02 1 0", "2025-03 1 1"])
        let ltv = try analytics.ltv(asOf: asOf, periods: 3)
        #expect(ltv.cohorts.filter { $0.started > 0 }.map { "\($0.month!) \($0.currency) \($0.started)" } == ["2025-01 USD 1"])
        #expect(ltv.unpriced == 0)
        let member = try report(analytics, "F", asOf: "2025-04-15")
        #expect(member.paid.isEmpty)
        #expect(member.money.allSatisfy { $0.price == nil && $0.currency == nil && $0.refundAmount == nil })
        #expect(member.paidServiceDays == 0)
        #expect(try report(analytics, "P", asOf: "2025-04-15").paid == ["USD": 19980])
    }
}
