import Foundation
import GRDB

extension Database {
    /// `sql` without the `INDEXED BY` clauses whose index the schema this read sees does not have
    /// (the planner then picks a plan). A rebuild of many subscriptions sets the derived tables'
    /// indexes by time, product and cohort aside and builds them again at its end
    /// (``DerivedIndexes``): a reader in between must still answer, only slower, never fail with
    /// "no such index". Called inside the read transaction that runs the query, so both see the
    /// same schema.
    func presentIndexes(_ sql: String) throws -> String {
        let pattern = /INDEXED BY ([A-Za-z_][A-Za-z0-9_]*)/
        let named = Set(sql.matches(of: pattern).map { String($0.output.1) })
        guard !named.isEmpty else { return sql }
        let present = Set(
            try String.fetchAll(
                self, sql: "SELECT name FROM sqlite_schema WHERE type = 'index' AND name IN (SELECT value FROM json_each(?))",
                arguments: [String(decoding: try JSONEncoder().encode(named.sorted()), as: UTF8.self)]))
        guard present != named else { return sql }
        return sql.replacing(pattern) { match in present.contains(String(match.output.1)) ? String(match.output.0) : "" }
    }

    /// ``presentIndexes(_:)`` of an SQL literal.
    func presentIndexes(in sql: SQL) throws -> SQL {
        let (text, arguments) = try sql.build(self)
        return SQL(sql: try presentIndexes(text), arguments: arguments)
    }
}
