import Foundation
import TestSupport
import Testing

/// A generated store with commitments, imported and read by `report mrr` as a user runs them.
@Suite("generated commitments imported")
struct CommitmentImportTests {
    /// Seed 3, 12 subscribers, 2025 in v2: four commitments run at the end, checked by hand from
    /// the documents' latest transactions: FRA payment 6 of 12 (commitment auto-renew turned off;
    /// the payments still count), DEU payment 8, GBR payment 3 at 4.99 GBP, JPN payment 1 at 900
    /// yen. Committed revenue is the payments not yet charged: EUR (12 − 6 + 12 − 8) × 5.99 =
    /// 59.90, GBP 9 × 4.99 = 44.91, JPY 11 × 900 = 9,900; MRR one monthly payment each.
    @Test func reportMRRCountsTheGeneratedCommitments() throws {
        let dir = TemporaryDirectory.uniquePath("sim-commit-import")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/gen"
        let db = dir + "/store.sqlite"
        let generated = try Subdash.run([
            "generate", "--subscribers", "12", "--seed", "3", "--versions", "v2", "--start", "2025-01", "--months", "12",
            "--commitment-share", "0.4", "--out", out,
        ])
        #expect(generated.status == 0, "\(generated.stderr)")
        let imported = try Subdash.run(["import", "--db", db, "--trust-root", out + "/test-root.pem", out], timeout: 120)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect((imported.stdout + imported.stderr).contains(" 0 rejected"), "\(imported.stdout)\(imported.stderr)")
        let mrr = try Subdash.run(["report", "mrr", "--db", db, "--plan", "monthly", "--format", "json"])
        #expect(mrr.status == 0, "\(mrr.stderr)")
        let rows = try #require(
            (try JSONSerialization.jsonObject(with: Data(mrr.stdout.utf8)) as? [String: Any])?["rows"] as? [[String: Any]])
        func row(_ currency: String) -> [Double] {
            guard let r = rows.first(where: { $0["currency"] as? String == currency }) else { return [] }
            return ["subscriptions", "mrr", "commitments", "committed"].map { (r[$0] as? NSNumber)?.doubleValue ?? .nan }
        }
        #expect(rows.count == 3)
        #expect(row("EUR") == [2, 11.98, 2, 59.9])
        #expect(row("GBP") == [1, 4.99, 1, 44.91])
        #expect(row("JPY") == [1, 900, 1, 9900])
        // The US storefront has none: with both plans, USD shows subscriptions but no commitment.
        let all = try Subdash.run(["report", "mrr", "--db", db, "--format", "json"])
        let usd = (try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [String: Any])?["rows"] as? [[String: Any]]
        let usdRow = try #require(usd?.first { $0["currency"] as? String == "USD" })
        #expect((usdRow["subscriptions"] as? NSNumber)?.intValue == 3 && (usdRow["commitments"] as? NSNumber)?.intValue == 0)
    }
}
