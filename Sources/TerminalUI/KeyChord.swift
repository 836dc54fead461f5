/// A sequence of key presses bound to one action, such as `g s` or `ctrl-s`.
///
/// Parsed from the notation key maps use: keys separated by spaces; each key is a single
/// character (`?`, `G`, `-`), a name (`enter`, `esc`, `tab`, `space`, `backspace`, `delete`,
/// `insert`, `up`/`↑`, `down`/`↓`, `left`/`←`, `right`/`→`, `pgup`, `pgdn`, `home`, `end`,
/// `f1`…`f63`), or a modified key: `ctrl-x`, `ctrl-space`, `alt-x`, `shift-tab`, `shift-x` (= `X`).
public struct KeyChord: Hashable, Sendable, CustomStringConvertible {
    public var keys: [KeyEvent]

    public init(_ keys: [KeyEvent]) { self.keys = keys }

    /// Parses the notation above.
    public init(parsing text: String) throws(KeyChordError) {
        let tokens = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard !tokens.isEmpty else { throw KeyChordError(text: text, reason: "no key given") }
        keys = try tokens.map { token throws(KeyChordError) in try KeyChord.parseKey(token, in: text) }
    }

    /// The chord as written in key maps and shown in help: `g s`, `ctrl-s`, `shift-tab`.
    public var description: String { keys.map(\.description).joined(separator: " ") }

    /// Whether `pressed` is the start of (or the whole of) this chord.
    public func hasPrefix(_ pressed: [KeyEvent]) -> Bool {
        pressed.count <= keys.count && Array(keys.prefix(pressed.count)) == pressed
    }

    private static let named: [String: Key] = [
        "enter": .enter, "return": .enter, "esc": .esc, "escape": .esc, "tab": .tab, "backtab": .backTab,
        "space": .char(" "), "backspace": .backspace, "bs": .backspace, "delete": .delete, "del": .delete,
        "insert": .insert, "ins": .insert, "up": .up, "↑": .up, "down": .down, "↓": .down,
        "left": .left, "←": .left, "right": .right, "→": .right, "pgup": .pageUp, "pageup": .pageUp,
        "pgdn": .pageDown, "pagedown": .pageDown, "home": .home, "end": .end,
    ]

    private static func parseKey(_ token: String, in text: String) throws(KeyChordError) -> KeyEvent {
        let lower = token.lowercased()
        if let key = named[lower] { return KeyEvent(key) }
        if token.count == 1 { return KeyEvent(.char(token.first!)) }
        if lower.hasPrefix("f"), let n = Int(lower.dropFirst()), (1...63).contains(n) { return KeyEvent(.function(n)) }
        for prefix in ["alt-", "m-"] where lower.hasPrefix(prefix) {
            var inner = try parseKey(String(token.dropFirst(prefix.count)), in: text)
            guard !inner.alt else { break }
            inner.alt = true
            return inner
        }
        if lower.hasPrefix("ctrl-") || lower.hasPrefix("c-") {
            let rest = String(token.drop { $0 != "-" }.dropFirst())
            if rest.lowercased() == "space" { return KeyEvent(.ctrlSpace) }
            if rest.count == 1, let c = rest.lowercased().first, c.isASCII, c.isLetter || "\\]^_".contains(c) {
                return KeyEvent(.ctrl(c))
            }
            throw KeyChordError(
                text: text,
                reason: "\"\(token)\" is not a control key (ctrl-a…ctrl-z, ctrl-space, ctrl-\\, ctrl-], ctrl-^, ctrl-_)")
        }
        if lower.hasPrefix("shift-") {
            let rest = String(token.dropFirst("shift-".count))
            if rest.lowercased() == "tab" { return KeyEvent(.backTab) }
            if rest.count == 1, let c = rest.first, c.isLetter { return KeyEvent(.char(Character(c.uppercased()))) }
            throw KeyChordError(
                text: text, reason: "\"\(token)\" cannot be told apart by a terminal (only shift-tab and shift-letter)")
        }
        throw KeyChordError(text: text, reason: "unknown key \"\(token)\"")
    }
}

/// Why a key chord string does not parse.
public struct KeyChordError: Error, Hashable, Sendable, CustomStringConvertible {
    public var text: String
    public var reason: String
    public var description: String { "key \"\(text)\": \(reason)" }
}
