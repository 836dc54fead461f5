import Dashboard
import GRDB
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import Synchronization
import TerminalUI
import Testing

/// A failed query shows a sentence in the status line; SQLite's message goes to the log only.
@Suite struct StatusLineErrorTests {
    @Test func anSQLErrorShowsASentenceAndLogsTheStatement() throws {
        let db = try AppDatabase.inMemory()
        // A store whose schema no query expects: every list query fails in SQLite.
        try db.writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "DROP TABLE segment")
        }
        let logged = Mutex<[String]>([])
        let runner = EffectRunner(
            analytics: SubscriberAnalytics(database: db),
            log: { line in logged.withLock { $0.append(line) } })
        var state = AppState(asOf: Instant(parsing: "2025-03-10")!)
        drive(.start, &state, runner)
        let backend = TestBackend(width: 80, height: 24, colorSupport: .none)
        Terminal(backend: backend).draw { buffer in render(state, into: &buffer, palette: Palette.builtinDefault(.none)) }
        let screen = backend.lines.joined(separator: "\n")
        #expect(screen.contains("loading the subscribers failed: the store could not be read (--debug logs why)"), "\(screen)")
        #expect(!screen.contains("SELECT") && !screen.contains("SQLite error") && !screen.contains("segment"))
        let log = logged.withLock { $0 }.joined(separator: "\n")
        #expect(log.contains("loading the subscribers failed: SQLite error"))
        #expect(log.contains("segment"))
    }

    /// GRDB's errors that are not SQLite's name tables and columns too: the same sentence.
    @Test func grdbsOtherErrorsShowTheSentenceWithoutTableNames() {
        let error = RecordError.recordNotFound(databaseTableName: "segment", key: ["originalTransactionId": "1000".databaseValue])
        #expect("\(error)".contains("segment"))
        #expect(AppDatabase.failureReason(error) == "the store could not be read (--debug logs why)")
    }
}
