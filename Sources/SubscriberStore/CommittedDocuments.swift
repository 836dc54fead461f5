import GRDB

/// What an import has committed so far, for an import the store stopped (disk full, I/O
/// error): documents are numbered in the order they are written, so the ones after the
/// import's starting mark are exactly the ones it committed.
extension AppDatabase {
    /// The id of the last document stored (0 in an empty store): an import's starting mark.
    public func lastDocumentId() throws -> Int64 {
        try writer.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM document") ?? 0 }
    }

    /// Documents stored after `mark`, by outcome (`applied`, `rejected`…).
    public func documentOutcomes(after mark: Int64) throws -> [String: Int] {
        try writer.read { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT outcome, COUNT(*) FROM document WHERE id > ? GROUP BY outcome", arguments: [mark])
            {
                counts[row[0] as String] = row[1] as Int
            }
            return counts
        }
    }
}
