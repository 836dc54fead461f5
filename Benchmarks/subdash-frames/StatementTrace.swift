import Foundation
import GRDB
import GRDBSQLite
import SubscriberStore

/// `--trace`: every statement the dashboard runs, with what SQLite did for it (VM steps, steps of
/// full scans, sorts), on stderr: figures that do not depend on how loaded the machine is.
enum StatementTrace {
    /// Opens `path` (a copy: the connection is writable so each reader can be traced) with every
    /// connection reporting its statements.
    static func open(path: String) throws -> AppDatabase {
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA cache_size = -65536")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            sqlite3_trace_v2(
                db.sqliteConnection, UInt32(SQLITE_TRACE_PROFILE),
                { _, _, p, x in
                    guard let p, let x else { return 0 }
                    let statement = OpaquePointer(p)
                    let nanoseconds = x.assumingMemoryBound(to: Int64.self).pointee
                    let steps = sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_VM_STEP, 0)
                    let scans = sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0)
                    let sorts = sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_SORT, 0)
                    let sql =
                        sqlite3_expanded_sql(statement).map { pointer in
                            defer { sqlite3_free(pointer) }
                            return String(cString: pointer)
                        } ?? ""
                    let line = String(
                        format: "steps %9d  fullscan %8d  sorts %d  %8.2f ms  ", steps, scans, sorts, Double(nanoseconds) / 1e6)
                    StatementTrace.write(line + sql.split(whereSeparator: \.isNewline).joined(separator: " ") + "\n")
                    return 0
                }, nil)
        }
        return try AppDatabase(try DatabasePool(path: path, configuration: config), path: path)
    }

    /// A heading between the phases of the run.
    static func phase(_ name: String) { write("## \(name)\n") }

    static func write(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
