/// A one-line editable input (`:` command line, `/` filter) with a cursor, history and completion.
///
/// A value the app keeps in its state: feed it keys with ``handle(_:)`` and draw it with
/// ``render(in:buffer:palette:)``, which returns where the terminal cursor should be.
public struct Prompt: Hashable, Sendable {
    /// What a key did to the prompt.
    public enum Outcome: Hashable, Sendable {
        /// The text or cursor changed, or the key was ignored; keep editing.
        case editing
        /// Enter: the text, also appended to the history.
        case submitted(String)
        /// Esc (or ctrl-c).
        case cancelled
    }

    /// Shown before the text: `:` or `/`.
    public var prefix: String
    public private(set) var text: [Character]
    /// Cursor position as an index into ``text`` (0…count).
    public private(set) var cursor: Int
    /// Earlier submissions, oldest first.
    public private(set) var history: [String]
    /// Words the text can be completed to with tab (for example command names).
    public var candidates: [String]

    private var historyIndex: Int?
    private var draft: [Character] = []
    /// While tab steps through several matches: them, and the one shown.
    private var cycleMatches: [String] = []
    private var cycleIndex: Int?

    public init(prefix: String, text: String = "", history: [String] = [], candidates: [String] = []) {
        self.prefix = prefix
        self.text = Array(text)
        cursor = self.text.count
        self.history = history
        self.candidates = candidates
    }

    /// The text being edited.
    public var value: String { String(text) }

    /// Candidates that start with the current text.
    public var matches: [String] { candidates.filter { $0.hasPrefix(value) && $0 != value } }

    // MARK: - Editing

    public mutating func handle(_ event: KeyEvent) -> Outcome {
        if event.key != .tab { cycleIndex = nil }
        if event.alt {
            if event.key == .backspace { deleteWordBackward() }
            return .editing
        }
        switch event.key {
        case .char(let c):
            text.insert(c, at: cursor)
            cursor += 1
            historyIndex = nil
        case .backspace, .ctrl("h"):
            if cursor > 0 {
                text.remove(at: cursor - 1)
                cursor -= 1
            }
        case .delete, .ctrl("d"):
            if cursor < text.count { text.remove(at: cursor) }
        case .left, .ctrl("b"): cursor = max(0, cursor - 1)
        case .right, .ctrl("f"): cursor = min(text.count, cursor + 1)
        case .home, .ctrl("a"): cursor = 0
        case .end, .ctrl("e"): cursor = text.count
        case .ctrl("u"):
            text.removeSubrange(0..<cursor)
            cursor = 0
        case .ctrl("k"): text.removeSubrange(cursor..<text.count)
        case .ctrl("w"): deleteWordBackward()
        case .up, .ctrl("p"): recall(older: true)
        case .down, .ctrl("n"): recall(older: false)
        case .tab: complete()
        case .enter:
            let submitted = value
            if !submitted.isEmpty && history.last != submitted { history.append(submitted) }
            historyIndex = nil
            return .submitted(submitted)
        case .esc, .ctrl("c"):
            historyIndex = nil
            return .cancelled
        default:
            break
        }
        return .editing
    }

    /// Replaces the text (cursor at the end), as when opening the prompt afresh.
    public mutating func setText(_ newText: String) {
        text = Array(newText)
        cursor = text.count
        historyIndex = nil
    }

    private mutating func deleteWordBackward() {
        var start = cursor
        while start > 0 && text[start - 1] == " " { start -= 1 }
        while start > 0 && text[start - 1] != " " { start -= 1 }
        text.removeSubrange(start..<cursor)
        cursor = start
    }

    private mutating func recall(older: Bool) {
        guard !history.isEmpty else { return }
        if historyIndex == nil {
            guard older else { return }
            draft = text
            historyIndex = history.count
        }
        let next = historyIndex! + (older ? -1 : 1)
        if next < 0 { return }
        if next >= history.count {
            historyIndex = nil
            text = draft
        } else {
            historyIndex = next
            text = Array(history[next])
        }
        cursor = text.count
    }

    /// One match: take it. Several: extend to their common prefix, or, when that adds nothing,
    /// step through them on each further tab.
    private mutating func complete() {
        if let index = cycleIndex {
            let next = (index + 1) % cycleMatches.count
            cycleIndex = next
            setText(cycleMatches[next])
            return
        }
        let found = matches
        guard !found.isEmpty else { return }
        if found.count == 1 {
            setText(found[0])
            return
        }
        let common = found.dropFirst().reduce(found[0]) { String($0.commonPrefix(with: $1)) }
        if common.count > text.count {
            setText(common)
        } else {
            cycleMatches = found
            cycleIndex = 0
            setText(found[0])
        }
    }

    // MARK: - Drawing

    /// Draws the prompt on the first row of `area`, scrolled so the cursor shows, with the
    /// remaining matches after the text when there is room. Returns the cursor position.
    @discardableResult
    public func render(in area: Rect, buffer: inout Buffer, palette: Palette) -> Position? {
        guard !area.isEmpty else { return nil }
        let style = palette[.prompt]
        buffer.fill(area.row(0), style: style)
        var x = buffer.set(
            string: prefix, at: Position(x: area.x, y: area.y), style: palette[.accent].patched(with: Style(attributes: .bold)),
            maxWidth: area.width)
        let room = area.right - x - 1
        guard room > 0 else { return Position(x: min(x, area.right - 1), y: area.y) }
        // Scroll so that the cursor column stays inside the room.
        var first = 0
        while DisplayWidth.of(String(text[first..<cursor])) > room { first += 1 }
        let visible = String(text[first...])
        let cursorX = x + DisplayWidth.of(String(text[first..<cursor]))
        x = buffer.set(string: visible, at: Position(x: x, y: area.y), style: style, maxWidth: area.right - x)
        // The matches by the word being typed: after `theme `, `default mono …`, not `theme default theme mono …`.
        let typedWords = value.lastIndex(of: " ").map { value.distance(from: value.startIndex, to: $0) + 1 } ?? 0
        let hint = matches.map { String($0.dropFirst(typedWords)) }
        if !hint.isEmpty && x + 3 < area.right {
            buffer.set(
                string: "  " + hint.joined(separator: " "), at: Position(x: x, y: area.y), style: palette[.muted],
                maxWidth: area.right - x)
        }
        return Position(x: cursorX, y: area.y)
    }
}
