import GRDB
import SubscriberStore

/// Every table's content as sorted text lines, for comparing two stores. The archive's
/// `source` and `id` are left out: where and in which order a document was first seen depends
/// on the order of the input by nature.
public func storeDump(_ database: AppDatabase) throws -> [String: [String]] {
    try database.writer.read { db in
        var tables: [String: [String]] = [:]
        let names = try String.fetchAll(
            db,
            sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'
                ORDER BY name
                """)
        for name in names {
            tables[name] = try Row.fetchAll(db, sql: "SELECT * FROM \"\(name)\"").map { row in
                row.columnNames.filter { !(name == "document" && ($0 == "source" || $0 == "id")) }
                    .map { "\($0)=\(row[$0] as DatabaseValue)" }.joined(separator: " ")
            }.sorted()
        }
        return tables
    }
}
