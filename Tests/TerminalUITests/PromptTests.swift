import Testing

@testable import TerminalUI

@Suite struct PromptTests {
    func type(_ text: String, into prompt: inout Prompt) {
        for c in text { _ = prompt.handle(.char(c)) }
    }

    @Test func editsAtTheCursor() {
        var prompt = Prompt(prefix: ":")
        type("asof 2025", into: &prompt)
        _ = prompt.handle(.init(.home))
        _ = prompt.handle(.init(.delete))
        _ = prompt.handle(.char("A"))
        _ = prompt.handle(.init(.end))
        _ = prompt.handle(.init(.backspace))
        #expect(prompt.value == "Asof 202")
        _ = prompt.handle(.ctrl("w"))
        #expect(prompt.value == "Asof ")
        _ = prompt.handle(.ctrl("u"))
        #expect(prompt.value == "")
        #expect(prompt.handle(.init(.esc)) == .cancelled)
    }

    @Test func historyRecallsOlderEntriesAndReturnsToTheDraft() {
        var prompt = Prompt(prefix: ":", history: ["asof 2025-06-30", "theme mono"])
        type("pro", into: &prompt)
        _ = prompt.handle(.init(.up))
        #expect(prompt.value == "theme mono")
        _ = prompt.handle(.init(.up))
        _ = prompt.handle(.init(.up))
        #expect(prompt.value == "asof 2025-06-30")
        _ = prompt.handle(.init(.down))
        _ = prompt.handle(.init(.down))
        #expect(prompt.value == "pro")
        #expect(prompt.handle(.init(.enter)) == .submitted("pro"))
        #expect(prompt.history.last == "pro")
    }

    @Test func tabCompletesCommonPrefixThenCycles() {
        var prompt = Prompt(prefix: ":", candidates: ["theme default", "theme mono", "asof", "q"])
        type("th", into: &prompt)
        _ = prompt.handle(.init(.tab))
        #expect(prompt.value == "theme ")
        _ = prompt.handle(.init(.tab))
        #expect(prompt.value == "theme default")
        _ = prompt.handle(.init(.tab))
        #expect(prompt.value == "theme mono")
        var single = Prompt(prefix: ":", candidates: ["asof", "q"])
        type("a", into: &single)
        _ = single.handle(.init(.tab))
        #expect(single.value == "asof")
    }

    @Test func rendersPrefixTextHintsAndCursor() {
        var prompt = Prompt(prefix: "/", candidates: ["alpha", "alps"])
        type("al", into: &prompt)
        _ = prompt.handle(.init(.left))
        var buffer = Buffer(width: 20, height: 1)
        let cursor = prompt.render(in: buffer.area, buffer: &buffer, palette: .builtinDefault(.ansi256))
        #expect(buffer.lines() == ["/al  alpha alps     "])
        #expect(cursor == Position(x: 2, y: 0))
        // After a space the hints name only the word being completed.
        var command = Prompt(prefix: ":", candidates: ["theme default", "theme mono", "asof"])
        type("theme ", into: &command)
        var line = Buffer(width: 30, height: 1)
        command.render(in: line.area, buffer: &line, palette: .builtinDefault(.none))
        #expect(line.lines() == [":theme   default mono         "])
    }

    @Test func longTextScrollsToKeepTheCursorVisible() {
        var prompt = Prompt(prefix: ":")
        type("abcdefghijkl", into: &prompt)
        var buffer = Buffer(width: 8, height: 1)
        let cursor = prompt.render(in: buffer.area, buffer: &buffer, palette: .builtinDefault(.none))
        #expect(buffer.lines() == [":ghijkl "])  // the last column is kept for the cursor
        #expect(cursor == Position(x: 7, y: 0))
    }
}
