import Foundation
import GRDB
import GRDBSQLite

/// A value the import binds straight into a prepared statement.
///
/// The import writes hundreds of thousands of rows, and building a `StatementArguments` array of
/// `DatabaseValue`s for each one cost more than SQLite's own work (perf: a quarter of the rebuild
/// of derived rows). Statements stay GRDB's (prepared, cached, finalised by it); only the per-row
/// binding is done here, through a parameter pack so nothing is boxed or allocated per value.
protocol SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32)
}

/// SQLite copies the bytes before the call returns (SQLITE_TRANSIENT).
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension String: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) {
        var text = self
        text.withUTF8 { utf8 in
            _ = sqlite3_bind_text(
                statement, index,
                UnsafeRawPointer(utf8.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                    .assumingMemoryBound(to: CChar.self), Int32(utf8.count), transient)
        }
    }
}

extension Int64: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) { sqlite3_bind_int64(statement, index, self) }
}

extension Int: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) { sqlite3_bind_int64(statement, index, Int64(self)) }
}

extension Bool: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) { sqlite3_bind_int64(statement, index, self ? 1 : 0) }
}

extension Double: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) { sqlite3_bind_double(statement, index, self) }
}

extension Data: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) {
        withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(
                statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!,
                Int32(bytes.count), transient)
        }
    }
}

extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) {
        if let value = self { value.bind(to: statement, at: index) } else { sqlite3_bind_null(statement, index) }
    }
}

extension DatabaseValue {
    fileprivate func bindValue(to statement: OpaquePointer, at index: Int32) {
        switch storage {
        case .null: sqlite3_bind_null(statement, index)
        case .int64(let value): sqlite3_bind_int64(statement, index, value)
        case .double(let value): sqlite3_bind_double(statement, index, value)
        case .string(let value): (value as any SQLiteBindable).bind(to: statement, at: index)
        case .blob(let value): (value as any SQLiteBindable).bind(to: statement, at: index)
        }
    }
}

extension Statement {
    /// Executes the statement once with `key`'s values, then `counts`, in parameter order (a row of
    /// a table of counts): no `StatementArguments` is built. GRDB's initialiser from a sequence
    /// reads each value through a key path made at run time, which was 38% of the listener's
    /// derivation (docs/performance.md, "The listener's derivation").
    func run(_ db: Database, key: [DatabaseValue], counts: [Int] = []) throws {
        let handle = sqliteStatement
        sqlite3_reset(handle)
        var index: Int32 = 0
        for value in key {
            index += 1
            value.bindValue(to: handle, at: index)
        }
        for count in counts {
            index += 1
            sqlite3_bind_int64(handle, index, Int64(count))
        }
        precondition(
            index == sqlite3_bind_parameter_count(handle),
            "\(index) values bound to \(sqlite3_bind_parameter_count(handle)) parameters: \(sql)")
        try step(db, handle)
    }

    /// Resets the statement and binds `values` in parameter order; every parameter must get one.
    private func bind<each Value: SQLiteBindable>(_ values: repeat each Value) -> OpaquePointer {
        let handle = sqliteStatement
        sqlite3_reset(handle)
        var index: Int32 = 0
        for value in repeat each values {
            index += 1
            value.bind(to: handle, at: index)
        }
        precondition(
            index == sqlite3_bind_parameter_count(handle),
            "\(index) values bound to \(sqlite3_bind_parameter_count(handle)) parameters: \(sql)")
        return handle
    }

    /// Executes the statement once with `values` in parameter order. Throws SQLite's error
    /// (constraint violations included) as `execute(arguments:)` does.
    func run<each Value: SQLiteBindable>(_ db: Database, _ values: repeat each Value) throws {
        try step(db, bind(repeat each values))
    }

    /// Steps a bound statement to its end and clears it.
    private func step(_ db: Database, _ handle: OpaquePointer) throws {
        let code = sqlite3_step(handle)
        let failure = code == SQLITE_DONE || code == SQLITE_ROW ? nil : String(cString: sqlite3_errmsg(db.sqliteConnection))
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        if let failure { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: failure, sql: sql) }
    }
}

/// The current row of a stepped statement, read column by column without `Row` boxes.
struct ColumnReader {
    let statement: OpaquePointer

    func isNull(_ i: Int32) -> Bool { sqlite3_column_type(statement, i) == SQLITE_NULL }

    func text(_ i: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, i) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, i))), as: UTF8.self)
    }

    func optionalText(_ i: Int32) -> String? { isNull(i) ? nil : text(i) }
    func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(statement, i) }
    func optionalInt64(_ i: Int32) -> Int64? { isNull(i) ? nil : int64(i) }
    func optionalInt(_ i: Int32) -> Int? { isNull(i) ? nil : Int(int64(i)) }
    func bool(_ i: Int32) -> Bool { int64(i) != 0 }
    func optionalBool(_ i: Int32) -> Bool? { isNull(i) ? nil : bool(i) }
}

extension Statement {
    /// Runs a query with `values` bound and calls `row` for each result row.
    func forEachRow<each Value: SQLiteBindable>(
        _ db: Database, _ values: repeat each Value,
        row: (ColumnReader) throws -> Void
    ) throws {
        let handle = bind(repeat each values)
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        let reader = ColumnReader(statement: handle)
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code),
                    message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
            }
            try row(reader)
        }
    }
}
