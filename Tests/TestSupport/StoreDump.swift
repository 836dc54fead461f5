import Foundation
import GRDB
import SubscriberStore

/// Every table's content as sorted text lines, for comparing two stores. The archive's
/// `source` and `id` are left out: where and in which order a document was first seen depends
/// on the order of the input by nature. So do the archive's compressed bytes: its dictionaries
/// are trained on the first documents of their kind (docs/architecture.md, "A dictionary per kind
/// of body"), so a body is compared by the bytes it gives back, and a dictionary by its kind.
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
            let left: Set<String> =
                switch name {
                case "document": ["source", "id", "body", "bodyEncoding", "bodyDictionary"]
                case "archiveDictionary": ["id", "dictionary"]
                default: []
                }
            tables[name] = try Row.fetchAll(db, sql: "SELECT * FROM \"\(name)\"").map { row in
                var fields: [String] = row.columnNames.filter { !left.contains($0) }.map { "\($0)=\(row[$0] as DatabaseValue)" }
                if name == "document" {
                    fields.append("restored=\(try database.restoreArchived(row, db).map(fingerprint) ?? "none")")
                }
                return fields.joined(separator: " ")
            }.sorted()
        }
        return tables
    }
}

/// FNV-1a of `bytes` and their count: enough to tell two archived documents apart in a dump.
func fingerprint(_ bytes: Data) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
    }
    return "\(bytes.count):\(String(hash, radix: 16))"
}
