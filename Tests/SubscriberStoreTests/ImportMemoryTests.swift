import GRDB
import Testing

@testable import SubscriberStore

/// What an import keeps in memory for the whole of it stays inside a budget in bytes, whatever
/// the number of subscriptions (docs/performance.md, "An import's memory").
@Suite struct ImportMemoryTests {
    @Test func writtenVersionsStayInsideTheirBudget() {
        let budget = 64 << 10
        var versions = WrittenVersions(budgetBytes: budget)
        // 2,048 buckets of 16 bytes a generation, three quarters of them used.
        #expect(versions.generationCapacity == 1536)
        var largest = 0
        var forgotten = 0
        for i in 0..<20_000 {
            if !versions.insert("t\(i)", rank: "r") { forgotten += 1 }
            largest = max(largest, versions.tableBytes)
        }
        #expect(forgotten == 0)
        #expect(largest <= budget)
        #expect(versions.count <= 2 * 1536)
        // The latest versions are remembered; the first ones were forgotten (written again).
        let latest = versions.insert("t19999", rank: "r")
        let first = versions.insert("t0", rank: "r")
        // Another rank of the same transaction is another version.
        let otherRank = versions.insert("t19999", rank: "s")
        #expect(!latest)
        #expect(first)
        #expect(otherRank)
    }

    @Test func aVersionSeenAgainMovesToTheNewerGeneration() {
        var versions = WrittenVersions(budgetBytes: 64 << 10)
        _ = versions.insert("kept", rank: "r")
        // Seen again in each generation, it outlives many times the budget of other versions.
        var writtenAgain = 0
        for i in 0..<10_000 {
            _ = versions.insert("other\(i)", rank: "r")
            if i % 1000 == 0 && versions.insert("kept", rank: "r") { writtenAgain += 1 }
        }
        #expect(writtenAgain == 0)
    }

    /// The rebuild narrows its deriving reader's cache inside a read: SQLite takes the setting
    /// there (a refusal would leave the everyday 64 MiB, silently).
    @Test func aReaderTakesTheDerivingCacheSize() throws {
        let store = try AppDatabase.open(path: try Fixture.temporaryStorePath("cache"))
        let pool = try #require(store.writer as? DatabasePool)
        let size = try pool.read { db in
            try db.execute(sql: "PRAGMA cache_size = -\(16 * 1024)")
            return try Int.fetchOne(db, sql: "PRAGMA cache_size")
        }
        #expect(size == -16 * 1024)
    }

    /// The rebuild's pending ids: App Store ids kept as numbers, others as strings, every one given
    /// back as it was, each once, in chunks that cover the list.
    @Test func pendingIdsComeBackAsTheyWereInChunks() {
        var list = SubscriptionIdList()
        let ids = ["2000000000014000", "01", "1", "abc", "9999999999999999999", "99999999999999999999", "0", ""]
        for id in ids { list.append(id) }
        #expect(list.count == ids.count)
        let back = list.chunks(of: 3).flatMap { list[$0] }
        #expect(list.chunks(of: 3).map(\.count) == [3, 3, 2])
        #expect(back.count == ids.count)
        #expect(Set(back) == Set(ids))
        // Numbers first, in the order given, then the others.
        #expect(back == ["2000000000014000", "1", "9999999999999999999", "0", "01", "abc", "99999999999999999999", ""])
    }
}
