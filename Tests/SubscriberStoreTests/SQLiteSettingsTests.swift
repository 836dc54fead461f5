import Testing

@testable import SubscriberStore

/// SQLite's process-wide settings (CSQLiteSettings), made when the program is loaded.
@Suite struct SQLiteSettingsTests {
    /// With memory statistics on, every allocation of every connection takes one process-wide
    /// mutex, and pane 6's sections, read on two cores, wait on each other.
    @Test func memoryStatisticsAreOffBeforeAnyConnectionOpens() throws {
        #expect(AppDatabase.memoryStatisticsOff, "sqlite3_config ran after SQLite had started, or not at all")
        let store = try AppDatabase.inMemory()
        #expect(try store.pendingCount() == 0)
        #expect(AppDatabase.sqliteMemory().highest == 0, "SQLite counted its allocations: the statistics are on")
    }
}
