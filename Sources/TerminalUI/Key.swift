/// A key as the app sees it, after the backend decoded the terminal's bytes.
public enum Key: Hashable, Sendable {
    /// A printable character, `" "` for space; shifted letters arrive as capitals.
    case char(Character)
    /// Control plus a character: `ctrl("s")` for ctrl-s. Letters are lowercase.
    case ctrl(Character)
    /// ctrl-space (the terminal sends NUL).
    case ctrlSpace
    case enter, esc, tab, backTab, backspace, delete, insert
    case up, down, left, right, pageUp, pageDown, home, end
    /// F1…F63.
    case function(Int)
    /// The terminal changed size; ask the backend for the new one.
    case resize
}

/// One key press: a key and whether alt (meta, or an ESC prefix) was held.
public struct KeyEvent: Hashable, Sendable, CustomStringConvertible {
    public var key: Key
    public var alt: Bool

    public init(_ key: Key, alt: Bool = false) {
        self.key = key
        self.alt = alt
    }

    /// A printable character key.
    public static func char(_ character: Character) -> KeyEvent { KeyEvent(.char(character)) }
    /// A control-key press.
    public static func ctrl(_ character: Character) -> KeyEvent { KeyEvent(.ctrl(character)) }

    /// The name used in key maps, help bars and `docs/keybindings.md`: `ctrl-s`, `shift-tab`, `?`, `space`, `↑`.
    public var description: String {
        let name: String
        switch key {
        case .char(" "): name = "space"
        case .char(let c): name = String(c)
        case .ctrl(let c): name = "ctrl-" + String(c)
        case .ctrlSpace: name = "ctrl-space"
        case .enter: name = "enter"
        case .esc: name = "esc"
        case .tab: name = "tab"
        case .backTab: name = "shift-tab"
        case .backspace: name = "backspace"
        case .delete: name = "delete"
        case .insert: name = "insert"
        case .up: name = "↑"
        case .down: name = "↓"
        case .left: name = "←"
        case .right: name = "→"
        case .pageUp: name = "pgup"
        case .pageDown: name = "pgdn"
        case .home: name = "home"
        case .end: name = "end"
        case .function(let n): name = "f\(n)"
        case .resize: name = "resize"
        }
        return alt ? "alt-" + name : name
    }
}
