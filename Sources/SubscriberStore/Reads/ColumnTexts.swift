import GRDB
import GRDBSQLite

/// The texts of a column read straight from its bytes, each distinct one (and NULL) numbered the
/// first time it is seen: a read that groups many rows by a few texts finds each row's group
/// without making a string of it. Used where the grouping, not SQLite, is the cost
/// (docs/performance.md, "A cut month without a sort").
struct ColumnTexts {
    /// By a hash of the bytes: the texts with that hash, with their numbers.
    private var numbers: [UInt64: [(bytes: [UInt8], number: Int)]] = [:]
    private var nullNumber: Int?
    /// The texts by number (nil: NULL).
    private(set) var texts: [String?] = []

    /// The number of the current row's text in `column`.
    mutating func number(_ statement: OpaquePointer, column: Int32) -> Int {
        if sqlite3_column_type(statement, column) == SQLITE_NULL {
            if let nullNumber { return nullNumber }
            texts.append(nil)
            nullNumber = texts.count - 1
            return texts.count - 1
        }
        let bytes = Self.bytes(statement, column: column)
        // FNV-1a: a few texts, each read many times.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        if let known = numbers[hash]?.first(where: { $0.bytes.elementsEqual(bytes) }) { return known.number }
        texts.append(String(decoding: bytes, as: UTF8.self))
        numbers[hash, default: []].append((Array(bytes), texts.count - 1))
        return texts.count - 1
    }

    /// The current row's text in `column` as bytes, valid until the statement steps again.
    static func bytes(_ statement: OpaquePointer, column: Int32) -> UnsafeBufferPointer<UInt8> {
        // The text first, then its length (sqlite3_column_bytes' documented order).
        let start = sqlite3_column_text(statement, column)
        return UnsafeBufferPointer(start: start, count: Int(sqlite3_column_bytes(statement, column)))
    }
}
