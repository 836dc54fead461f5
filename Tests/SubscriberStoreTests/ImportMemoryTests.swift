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
        for i in 0..<20_000 {
            #expect(versions.insert("t\(i)", rank: "r"))
            #expect(versions.tableBytes <= budget)
        }
        #expect(versions.count <= 2 * 1536)
        // The latest versions are remembered; the first ones were forgotten (written again).
        #expect(!versions.insert("t19999", rank: "r"))
        #expect(versions.insert("t0", rank: "r"))
        // Another rank of the same transaction is another version.
        #expect(versions.insert("t19999", rank: "s"))
    }

    @Test func aVersionSeenAgainMovesToTheNewerGeneration() {
        var versions = WrittenVersions(budgetBytes: 64 << 10)
        #expect(versions.insert("kept", rank: "r"))
        // Seen again in each generation, it outlives many times the budget of other versions.
        for i in 0..<10_000 {
            _ = versions.insert("other\(i)", rank: "r")
            if i % 1000 == 0 { #expect(!versions.insert("kept", rank: "r")) }
        }
        #expect(!versions.insert("kept", rank: "r"))
    }
}
