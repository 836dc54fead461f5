import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

/// `report eligibility` read as a stream and in pages (docs/metrics.md, "Offer eligibility"): the
/// entries in the report's order (offer, then id), any page of them, and the whole list's counts.
@Suite struct EligibilityPagingTests {
    /// EligibilityTests' store: winBack W1; retention R1; upgrade L1, U1; loyalty L1; service S1.
    static let full = [
        "winBack W1", "retention R1", "upgrade L1", "upgrade U1", "loyalty L1", "service S1",
    ]

    /// The entries `forEachEligible` hands over, and the counts it gives when asked.
    static func streamed(
        _ analytics: SubscriberAnalytics, asOf: Instant = EligibilityTests.asOf, offers: [OfferFlagKind] = OfferFlagKind.allCases,
        offset: Int = 0, limit: Int? = nil, counted: Bool = true
    ) throws -> (entries: [String], counts: [OfferFlagKind: Int]?) {
        var entries: [String] = []
        var counts: [OfferFlagKind: Int]?
        try analytics.forEachEligible(
            asOf: asOf, offers: offers, offset: offset, limit: limit,
            counted: counted ? { counts = $0 } : nil
        ) { batch in entries += batch.map { "\($0.offer.rawValue) \($0.originalTransactionId)" } }
        return (entries, counts)
    }

    @Test func theStreamIsTheListAndCountsItWhole() throws {
        let analytics = try EligibilityTests.store()
        let (entries, counts) = try Self.streamed(analytics)
        #expect(entries == Self.full)
        #expect(counts == [.winBackOffer: 1, .retention: 1, .upgrade: 2, .loyalty: 1, .service: 1])
        #expect(try analytics.eligibilityCounts(asOf: EligibilityTests.asOf) == counts)
        // One offer: its list, and only its count.
        let upgrade = try Self.streamed(analytics, offers: [.upgrade])
        #expect(upgrade.entries == ["upgrade L1", "upgrade U1"])
        #expect(upgrade.counts == [.upgrade: 2])
    }

    /// Pages of every size, from every offset, concatenate to the whole list; the counts stay the
    /// whole list's; with or without counts (which let an offset skip whole offers unread).
    @Test(arguments: [1, 2, 4, 5, 6, 10]) func pagesConcatenateToTheList(size: Int) throws {
        let analytics = try EligibilityTests.store()
        for counted in [true, false] {
            var pages: [String] = []
            var offset = 0
            while offset < Self.full.count + size {
                let page = try Self.streamed(analytics, offset: offset, limit: size, counted: counted)
                #expect(page.entries.count == min(size, max(0, Self.full.count - offset)))
                if counted { #expect(page.counts?[.upgrade] == 2) }
                pages += page.entries
                offset += size
            }
            #expect(pages == Self.full, "size \(size), counted \(counted)")
        }
    }

    @Test func limitZeroAndAnOffsetPastTheEnd() throws {
        let analytics = try EligibilityTests.store()
        let none = try Self.streamed(analytics, limit: 0)
        #expect(none.entries.isEmpty)
        #expect(none.counts?[.service] == 1)
        #expect(try Self.streamed(analytics, offset: 6).entries.isEmpty)
        #expect(try Self.streamed(analytics, offset: 1_000, counted: false).entries.isEmpty)
        // Offset 3 skips winBack and retention whole, then U1's predecessor L1.
        #expect(try Self.streamed(analytics, offset: 3, limit: 2).entries == ["upgrade U1", "loyalty L1"])
    }

    /// Service merges two lists in id order: in grace or billing retry now, and two or more
    /// billing failures in 365 days; one in both is listed once, by its state.
    @Test func serviceMergesStateAndFailuresInIdOrder() throws {
        var b = StoreBuilder()
        // A1, C1: failed twice, recovered each time, active now.
        for id in ["A1", "C1"] {
            b.period(id, "\(id)-0", "2025-03-01", "2025-04-01")
            b.notification(id, "DID_FAIL_TO_RENEW", at: "2025-04-01", transaction: "\(id)-0")
            b.period(id, "\(id)-1", "2025-04-03", "2025-05-03")
            b.notification(id, "DID_FAIL_TO_RENEW", at: "2025-05-03", transaction: "\(id)-1")
            b.period(id, "\(id)-2", "2025-05-05", "2025-06-05")
            b.period(id, "\(id)-3", "2025-06-05", "2025-07-05")
        }
        // B1: failed on 05-01, recovered, failed again on 06-03 and is in billing retry now.
        b.period("B1", "B1-0", "2025-04-01", "2025-05-01")
        b.notification("B1", "DID_FAIL_TO_RENEW", at: "2025-05-01", transaction: "B1-0")
        b.period("B1", "B1-1", "2025-05-03", "2025-06-03")
        b.notification("B1", "DID_FAIL_TO_RENEW", at: "2025-06-03", transaction: "B1-1")
        let analytics = try b.build()
        let rows = try analytics.eligibility(asOf: EligibilityTests.asOf, offer: .service)
        #expect(
            rows.map { "\($0.originalTransactionId): \($0.detail)" } == [
                "A1: 2 billing failures in 365 days",
                "B1: in billingRetry",
                "C1: 2 billing failures in 365 days",
            ])
        let streamed = try Self.streamed(analytics, offers: [.service])
        #expect(streamed.entries == ["service A1", "service B1", "service C1"])
        #expect(streamed.counts == [.service: 3])
        #expect(try Self.streamed(analytics, offers: [.service], offset: 1, limit: 1).entries == ["service B1"])
    }

    // MARK: - Written as it comes

    static let asOf = Wire.at("2025-06-30T00:00:00Z")

    /// `n` entries spread over the offers, with Apple offer ids on win-back ones, a product that
    /// needs quoting in CSV and a detail holding a control character (escaped in the table).
    static func entries(_ n: Int) -> [EligibleSubscriber] {
        (0..<n).map { i in
            let offer = OfferFlagKind.allCases[i * OfferFlagKind.allCases.count / max(n, 1)]
            return EligibleSubscriber(
                offer: offer, originalTransactionId: String(1_000_000 + i),
                productId: i % 3 == 0 ? "pro,monthly" : "pro.yearly",
                detail: i == 2 ? "ended\u{1B}voluntary" : "\(i) paid periods",
                appleOfferIds: offer == .winBackOffer && i % 2 == 0 ? ["winback.half"] : [])
        }
    }

    /// The streamed text of `rows` handed over in batches of `batch`.
    static func streamedText(
        _ rows: [EligibleSubscriber], _ format: EligibilityStream.Format, batch: Int, offer: OfferFlagKind? = nil
    ) -> String {
        var stream = EligibilityStream(format: format, asOf: asOf, offer: offer)
        var counts: [OfferFlagKind: Int] = [:]
        for r in rows { counts[r.offer, default: 0] += 1 }
        var out = stream.begin(counts: counts)
        for start in stride(from: 0, to: rows.count, by: batch) {
            out += stream.write(Array(rows[start..<min(rows.count, start + batch)]))
        }
        return out + stream.end()
    }

    /// The stream writes what the whole-list output writes (as the command printed it: one line
    /// break at the end; the table's control character escaped, as `print` of the table did
    /// through `TextSanitizer.visibleLines`), whatever the batches, up to a table page.
    @Test(arguments: [0, 1, 7, 1_000]) func streamedTextIsTheWholeListsText(n: Int) throws {
        let rows = Self.entries(n)
        let whole = EligibilityOutput(rows, asOf: Self.asOf)
        for batch in [1, 3, 500] {
            #expect(Self.streamedText(rows, .json, batch: batch) == whole.json + "\n")
            #expect(Self.streamedText(rows, .csv, batch: batch) == whole.csv.text + "\n")
            #expect(Self.streamedText(rows, .table, batch: batch) == whole.table + "\n")
        }
        let upgrade = rows.filter { $0.offer == .upgrade }
        #expect(
            Self.streamedText(upgrade, .table, batch: 2, offer: .upgrade)
                == EligibilityOutput(upgrade, asOf: Self.asOf, offer: .upgrade).table + "\n")
    }

    /// Past the first page the table keeps the first page's widths: a wider cell is written whole
    /// and pushes the rest of its line right (nothing cut), and the counts under it are the list's.
    @Test func aLongTableKeepsItsFirstPagesWidths() throws {
        var rows = (0..<EligibilityStream.tablePage).map { i in
            EligibleSubscriber(offer: .loyalty, originalTransactionId: "id\(i)", productId: "p", detail: "d")
        }
        rows.append(EligibleSubscriber(offer: .loyalty, originalTransactionId: "a-much-longer-id", productId: "p", detail: "d"))
        let lines = Self.streamedText(rows, .table, batch: 300, offer: .loyalty).split(separator: "\n").map(String.init)
        // "subscription" (12) is the widest of the first page's ids (id0…id999).
        #expect(lines[1] == "offer    subscription  product  why")
        #expect(lines[3] == "loyalty  id0           p        d")
        #expect(lines[3 + EligibilityStream.tablePage] == "loyalty  a-much-longer-id  p        d")
        #expect(lines.last == "loyalty 1,001")
        #expect(lines.count == 3 + EligibilityStream.tablePage + 1 + 2)
        // The offer column is as wide as the widest offer counted, even past the first page:
        // 1,000 win-back entries, then one retention entry ("retention" is 9 cells).
        var mixed = (0..<EligibilityStream.tablePage).map { i in
            EligibleSubscriber(offer: .winBackOffer, originalTransactionId: "id\(i)", productId: "p", detail: "d")
        }
        mixed.append(EligibleSubscriber(offer: .retention, originalTransactionId: "id9", productId: "p", detail: "d"))
        let table = Self.streamedText(mixed, .table, batch: 1_000).split(separator: "\n").map(String.init)
        #expect(table[1] == "offer      subscription  product  why")
        #expect(table[3] == "winBack    id0           p        d")
        #expect(table[3 + EligibilityStream.tablePage] == "retention  id9           p        d")
        #expect(table.last == "winBack 1,000, retention 1, upgrade 0, loyalty 0, service 0")
    }
}

/// The counts `report eligibility --format json` prints before its list cost a lookup per
/// subscription counted, not a pass over the live segments for each.
@Suite struct EligibilityCountCostTests {
    /// `failing` subscriptions with two billing failures in the last 365 days, recovered and
    /// active at 2025-06-30, beside `live` plain active ones.
    static func store(failing: Int, live: Int) throws -> SubscriberAnalytics {
        var b = StoreBuilder()
        for i in 0..<failing {
            let id = "F\(i)"
            b.period(id, "\(id)-0", "2025-03-01", "2025-04-01")
            b.notification(id, "DID_FAIL_TO_RENEW", at: "2025-04-01", transaction: "\(id)-0")
            b.period(id, "\(id)-1", "2025-04-03", "2025-05-03")
            b.notification(id, "DID_FAIL_TO_RENEW", at: "2025-05-03", transaction: "\(id)-1")
            b.period(id, "\(id)-2", "2025-05-05", "2025-07-05")
        }
        for i in 0..<live { b.period("N\(i)", "N\(i)-0", "2025-06-05", "2025-07-05") }
        return try b.build()
    }

    @Test func serviceCountLooksEachFailingSubscriptionUpByItsKey() throws {
        let asOf = EligibilityTests.asOf
        var steps: [Int64] = []
        for failing in [0, 20] {
            let analytics = try Self.store(failing: failing, live: 300)
            var counts: [OfferFlagKind: Int] = [:]
            steps.append(
                try virtualMachineSteps(analytics) {
                    counts = try analytics.eligibilityCounts(asOf: asOf, offers: [.service])
                })
            #expect(counts == [.service: failing])
        }
        // A few dozen steps a failing subscription (its failures, its segments by key); looking
        // each up through the live index would read the 300 live segments for each: thousands.
        #expect(steps[1] - steps[0] < 20 * 300, "20 failing subscriptions cost \(steps[1] - steps[0]) more steps")
    }
}
