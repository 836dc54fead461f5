import Foundation
import GRDB
import SubscriptionModel
import SubscriptionTimeline
import TestSupport
import Testing

@testable import SubscriberStore

/// How a cut bucket of MRR movement reads the kept changes (`AppDatabase.mrrChangeGroups`): a
/// subscription is one id in one environment, whatever its id's text, and its first change's
/// keys before and last change's keys after are what it moved between.
@Suite struct MRRChangeGroupTests {
    static let monthly = MRRKey(offerKind: "standard", productId: "m", currency: "USD", price: 9990, monthlyTwelfths: 12)
    static let yearly = MRRKey(offerKind: "standard", productId: "y", currency: "USD", price: 99990, monthlyTwelfths: 1)

    /// Rows as (id, environment, at, before, after, firstCharge).
    func store(_ rows: [(String, String, Int64, [MRRKey], [MRRKey], Int64)]) throws -> AppDatabase {
        let store = try AppDatabase(DatabaseQueue())
        try store.writer.write { db in
            for (id, environment, at, before, after, firstCharge) in rows {
                try db.execute(
                    sql: """
                        INSERT INTO mrrChange (environment, at, originalTransactionId, beforeKeys, afterKeys, firstCharge, count)
                        VALUES (?, ?, ?, ?, ?, ?, 1)
                        """,
                    arguments: [
                        environment, at, id, MRRKey.signature(before), MRRKey.signature(after), firstCharge,
                    ])
            }
        }
        return store
    }

    func text(_ groups: [MRRChangeGroup]) -> [String] {
        groups.map { g in
            "\(g.span) \(MRRKey.signature(g.before)) > \(MRRKey.signature(g.after)) new=\(g.isNew) ×\(g.count)"
        }.sorted()
    }

    @Test func idsThatReadAsOneNumberAreStillTwoSubscriptions() throws {
        let (m, y) = ([Self.monthly], [Self.yearly])
        let db = try store([
            // "0123" and "123" and "123 " are three subscriptions; so is a long id past Int64.
            ("0123", "Production", 150, [], m, 150),
            ("123", "Production", 150, [], m, 150),
            ("123 ", "Production", 150, [], m, 150),
            ("12345678901234567890123", "Production", 150, [], m, 150),
            ("12345678901234567890124", "Production", 160, [], m, 150),
            // One subscription changing three times in the span: its first before, last after.
            ("9", "Production", 110, m, [], 10),
            ("9", "Production", 120, [], y, 10),
            ("9", "Production", 130, y, m, 10),
            // At the span's start (in MRR there already) and between spans: in none.
            ("7", "Production", 100, [], m, 100),
            ("8", "Production", 201, m, [], 50),
            // In the second span.
            ("6", "Production", 260, m, y, 5),
            // The same id in another environment is counted there.
            ("123", "Sandbox", 150, [], m, 150),
        ])
        let groups = try db.mrrChangeGroups([(100, 200), (250, 300)], environments: [.production, .sandbox])
        let (ms, ys) = (MRRKey.signature(m), MRRKey.signature(y))
        #expect(
            text(groups)
                == [
                    // Production's five new ones, then Sandbox's.
                    "0  > \(ms) new=true ×5", "0  > \(ms) new=true ×1",
                    "0 \(ms) > \(ms) new=false ×1",
                    "1 \(ms) > \(ys) new=false ×1",
                ].sorted())
    }
}
