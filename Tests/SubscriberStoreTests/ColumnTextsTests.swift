import GRDB
import Testing

@testable import SubscriberStore

/// Texts grouped by their bytes (`ColumnTexts`, what offer conversion and movement group by):
/// the same text is one number wherever it occurs, and NULL, the empty text and texts that share
/// a prefix are each their own.
@Suite struct ColumnTextsTests {
    @Test func eachDistinctTextAndNullHasItsOwnNumber() throws {
        let queue = try DatabaseQueue()
        let numbers: ([Int], [String?]) = try queue.read { db in
            let statement = try db.makeStatement(
                sql: "SELECT column1 FROM (VALUES (''), (NULL), ('abc'), ('abc'), ('abd'), (NULL), ('ab'), ('é'), (''))")
            let rows = try Row.fetchCursor(statement)
            var texts = ColumnTexts()
            var numbers: [Int] = []
            while try rows.next() != nil { numbers.append(texts.number(statement.sqliteStatement, column: 0)) }
            return (numbers, texts.texts)
        }
        #expect(numbers.0 == [0, 1, 2, 2, 3, 1, 4, 5, 0])
        #expect(numbers.1 == ["", nil, "abc", "abd", "ab", "é"])
    }
}
