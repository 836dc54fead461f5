import GRDB
import SubscriberStore
import SubscriptionModel
import Testing

@testable import SubscriberAnalytics

/// Offer retention reads each converted use's paid periods from the conversion on from the use's
/// own row when as-of is past its run's last paid start, and counts the periods otherwise. Both
/// must equal counting the periods, at the data horizon and at as-ofs in mid-history.
@Suite struct OfferRetentionAgreementTests {
    @Test func retentionEqualsCountingThePeriodsAtEveryAsOf() throws {
        let analytics = try SampleDataConsistencyTests.store()
        let horizon = try #require(try analytics.dataHorizon())
        var asOfs = [horizon]
        var month = Month(year: 2024, month: 2)
        while month.start < horizon {
            asOfs.append(month.start.adding(days: 9))
            month = month.adding(months: 2)
        }
        var midRun = 0
        var compared = 0
        for asOf in asOfs {
            let from = Month(year: 2023, month: 1).start
            let to = asOf.adding(days: 1)
            let report = try analytics.offerConversion(from: from, to: to, asOf: asOf)
            let rows = try analytics.database.writer.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT u.offerKind, u.offerIdentifier,
                               (SELECT COUNT(*) FROM period p
                                WHERE p.originalTransactionId = u.originalTransactionId AND p.runIndex = u.runIndex
                                  AND p.start >= u.nextStart AND p.start <= :asOf AND p.countsForRetention),
                               u.runEndedAt <= :asOf, u.lastPaidStart > :asOf
                        FROM offerUse u
                        WHERE u.environment = 'Production' AND u.start >= :from AND u.start <= :asOf
                          AND u.nextStart <= :asOf AND u.nextIsStandard
                        """, arguments: ["asOf": asOf.milliseconds, "from": from.milliseconds])
            }
            var members: [String: [(paid: Int, ended: Bool)]] = [:]
            for row in rows {
                let kind: String = row[0]
                let identifier: String? = row[1]
                members[kind + "/" + (identifier ?? ""), default: []].append((row[2], row[3]))
                if row[4] as Bool? == true { midRun += 1 }
            }
            for offer in report.offers {
                let rates = SubscriberAnalytics.retention(
                    members[offer.offerKind.rawValue + "/" + (offer.offerIdentifier ?? "")] ?? [],
                    periods: 6)
                #expect(
                    offer.retention3 == rates[2] && offer.retention6 == rates[5],
                    "\(offer.offerKind) \(offer.offerIdentifier ?? "–") as of \(asOf.iso8601)")
                compared += 1
            }
        }
        #expect(compared > asOfs.count)
        #expect(midRun > 0, "some as-of falls in mid-run, where the periods are counted")
    }
}
