import GRDB

extension AppDatabase {
    /// What went wrong with the store, as a sentence for someone at a screen; nil when `error` is
    /// not SQLite's. SQLite's own message (with the statement it ran) is for logs only.
    public static func failureReason(_ error: any Error) -> String? {
        guard let error = error as? DatabaseError else { return nil }
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return "the store is busy (another program is writing it); try again in a moment"
        case .SQLITE_READONLY:
            return "the store cannot be written here; restart with write access"
        case .SQLITE_FULL:
            return "the disk is full; free some space and try again"
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return "the store file is damaged; import the data again into a new store"
        case .SQLITE_CANTOPEN, .SQLITE_IOERR:
            return "the store file could not be read; check that it is still there and readable"
        default:
            return "the store could not be read; restart with --debug 2>FILE to log why"
        }
    }
}
