import GRDB

extension AppDatabase {
    /// The sentence for a store error with no more useful advice.
    static let unreadable = "the store could not be read (--debug logs why)"

    /// What went wrong with the store and what to do, short enough for an 80-column status line;
    /// nil when `error` is not GRDB's. GRDB's own message (with the statement it ran) is for
    /// logs only.
    public static func failureReason(_ error: any Error) -> String? {
        // GRDB's other errors quote SQL, columns or tables too: a user sees the same sentence.
        if error is RowDecodingError || error is RecordError { return Self.unreadable }
        guard let error = error as? DatabaseError else { return nil }
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return "the store is busy; try again in a moment"
        case .SQLITE_READONLY:
            return "the store is read-only here; restart with write access"
        case .SQLITE_FULL:
            return "the disk is full; free some space and try again"
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return "the store is damaged; import into a new store"
        case .SQLITE_CANTOPEN, .SQLITE_IOERR:
            return "the store file cannot be read; check it is still there"
        default:
            return Self.unreadable
        }
    }
}
