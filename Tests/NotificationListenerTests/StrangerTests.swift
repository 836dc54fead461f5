import Foundation
import GRDB
import SubscriberStore
import SubscriptionModel
import TestSupport
import Testing

/// What a stranger who can reach `subdash listen` (started without `--shared-secret`) can do to
/// the figures the team sees: nothing, through an unsigned v1 notification about a subscription
/// that has signed data, however it is dated.
@Suite(.serialized) struct StrangerTests {
    /// Every report a user reads, as JSON, at its default as-of (the data horizon).
    static let reports: [[String]] = [
        ["states"], ["mrr"], ["cohorts"], ["eligibility"], ["ltv"],
        ["events", "--from", "2024-01-01", "--to", "2030-01-01"],
        ["recovery", "--from", "2024-01-01", "--to", "2030-01-01"],
        ["revenue", "--from", "2024-01-01", "--to", "2030-01-01"],
        ["refunds", "--from", "2024-01-01", "--to", "2030-01-01"],
        ["offers", "--from", "2024-01-01", "--to", "2030-01-01"],
    ]

    /// The reports, the subscriber's own, the data horizon and where `fetch notifications` resumes.
    static func everything(_ store: String, subscriber: String) throws -> [String] {
        var out: [String] = []
        for report in reports + [["subscriber", subscriber]] {
            let run = try Subdash.run(["report"] + report + ["--db", store, "--format", "json"])
            #expect(run.status == 0, "report \(report): \(run.stderr)")
            guard report[0] == "subscriber" else {
                out.append("\(report): \(run.stdout)")
                continue
            }
            // The subscriber's report counts the unsigned documents set aside: all else is the same.
            var json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            json["unverifiedDocuments"] = nil
            let text = String(decoding: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), as: UTF8.self)
            out.append("\(report): \(text)")
        }
        let database = try AppDatabase.open(path: store, readOnly: true)
        out.append("horizon: \(String(describing: try database.latestFactInstant()))")
        out.append("fetch resumes at: \(String(describing: try database.latestNotificationInstant()))")
        return out
    }

    /// `SampleData/examples/v1/REFUND.json` about `subscription` (its latest transaction
    /// `transactionId`), every `*_date_ms` at `instant`.
    static func refund(subscription: String, transactionId: String, at instant: Instant) throws -> Data {
        var text = try String(contentsOfFile: SampleData.examples + "/v1/REFUND.json", encoding: .utf8)
        text = text.replacingOccurrences(of: "1000000900000103", with: transactionId)
        text = text.replacingOccurrences(of: "1000000900000001", with: subscription)
        text = text.replacingOccurrences(
            of: #"("[a-z_]*_date_ms": *)"[0-9]+""#, with: "$1\"\(instant.milliseconds)\"", options: .regularExpression)
        return Data(text.utf8)
    }

    @Test func anUnsignedRefundAboutASignedSubscriptionChangesNoReport() throws {
        let directory = try TemporaryDirectory("stranger")
        defer { directory.remove() }
        let store = directory.path("store.sqlite")
        let database = try SampleDataStore.copyFile(.sharedSecret, to: store)
        let (subscription, transactionId) = try database.writer.read { db -> (String, String) in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT originalTransactionId, transactionId FROM "transaction"
                    WHERE signedDate IS NOT NULL ORDER BY purchaseDate DESC, transactionId LIMIT 1
                    """)!
            return (row[0], row[1])
        }
        let before = try Self.everything(store, subscriber: subscription)
        #expect(before[0].contains("\"active\""))

        let listener = try ListenerProcess(
            binary: try Subdash.binary(), store: store, extra: ["--trust-root", SampleData.trustRoot])
        defer { listener.stop() }
        let now = Instant(Date())

        // Dated three years ahead: nothing that has happened can be, signed or not.
        let ahead = try listener.http.post(
            "/notifications", Self.refund(subscription: subscription, transactionId: transactionId, at: now.adding(days: 3 * 366))
        )
        #expect((400..<500).contains(ahead.status), "\(ahead.status) \(ahead.body)")
        #expect(ahead.body.hasPrefix("rejected: "), "\(ahead.body)")
        #expect(ahead.body.contains("more than a day ahead of this machine's clock"), "\(ahead.body)")

        // Dated an hour ago: plausible, stored, but set aside; and later than any signed fact.
        let recent = try listener.http.post(
            "/notifications", Self.refund(subscription: subscription, transactionId: transactionId, at: now.adding(hours: -1)))
        #expect(recent.status < 500, "\(recent.status) \(recent.body)")
        #expect(!recent.body.hasPrefix("applied"), "\(recent.body)")
        #expect(try waitUntil(timeout: 5, { try database.pendingCount() == 0 }))

        let after = try Self.everything(store, subscriber: subscription)
        for (b, a) in zip(before, after) { #expect(a == b) }
        #expect(try database.unverifiedDocumentCount(originalTransactionId: subscription) == 1)
    }
}
