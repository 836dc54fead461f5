import Foundation
import GRDB
import Testing

@testable import SubscriberStore

/// The store owns its schema (docs/architecture.md, "The store's tables"): no other target names a table or
/// an index in SQL, so renaming one is a change to `SubscriberStore` alone, checked at compile and
/// test time instead of failing a report at run time.
@Suite struct SchemaOwnershipTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every Swift file under Sources/ except the store's, with its path relative to the package.
    static func sourcesOutsideStore() throws -> [(path: String, text: String)] {
        let sources = root.appendingPathComponent("Sources")
        let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        var files: [(String, String)] = []
        while let url = walker?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let path = String(url.path.dropFirst(root.path.count + 1))
            if path.hasPrefix("Sources/SubscriberStore/") { continue }
            files.append((path, try String(contentsOf: url, encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// Tables and indexes of a fresh store, as SQLite lists them.
    static func schemaNames() throws -> (tables: [String], indexes: [String]) {
        let database = try AppDatabase.inMemory()
        return try database.writer.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT type, name FROM sqlite_master
                    WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'
                    """)
            return (
                rows.filter { $0["type"] == "table" }.map { $0["name"] }, rows.filter { $0["type"] == "index" }.map { $0["name"] }
            )
        }
    }

    /// Where a name stands in SQL: after a keyword that takes a table or an index. Tables such as
    /// `event`, `run` or `period` are also domain words, so they count only there; an index name
    /// counts anywhere (comments naming an index go stale as surely as hints do).
    static func sqlUses(of table: String, in text: String) -> Bool {
        let keyword = #"\b(FROM|JOIN|INTO|UPDATE|TABLE|INDEXED BY|ON)\s+"?"#
        let pattern = keyword + NSRegularExpression.escapedPattern(for: table) + #""?(?![A-Za-z0-9_])"#
        return text.range(of: pattern, options: .regularExpression) != nil
    }

    @Test func noTableOrIndexNameOutsideTheStore() throws {
        let (tables, indexes) = try Self.schemaNames()
        #expect(tables.contains("segment") && indexes.contains("run_cohortEnd"))
        var offences: [String] = []
        for (path, text) in try Self.sourcesOutsideStore() {
            for table in tables where Self.sqlUses(of: table, in: text) { offences.append("\(path): table \(table)") }
            for index in indexes
            where text.range(
                of: #"(?<![A-Za-z0-9_])"# + index + #"(?![A-Za-z0-9_])"#,
                options: .regularExpression) != nil
            {
                offences.append("\(path): index \(index)")
            }
        }
        #expect(offences == [], "\(offences.joined(separator: "\n"))")
    }

    @Test func analyticsReadsRowsByColumnName() throws {
        let positional = try Self.sourcesOutsideStore().filter { file in
            file.path.hasPrefix("Sources/SubscriberAnalytics/")
                && (file.text.range(of: #"\b(row|r|\$0|\$1)\??\[[0-9]"#, options: .regularExpression) != nil
                    || file.text.range(of: #"\bsql:"#, options: .regularExpression) != nil)
        }.map(\.path)
        #expect(positional == [])
    }

    /// The check itself: a query naming a table, an index hint and a positional read are found.
    @Test func theChecksFindWhatTheyLookFor() {
        #expect(Self.sqlUses(of: "segment", in: #"SELECT state FROM segment WHERE "end" > ?"#))
        #expect(Self.sqlUses(of: "transaction", in: #"SELECT MAX(purchaseDate) FROM "transaction""#))
        #expect(!Self.sqlUses(of: "segment", in: "the segment covering as-of"))
        #expect(!Self.sqlUses(of: "segment", in: "SELECT * FROM segmentDay"))
    }
}
