import TerminalUI

/// A message overlay (`:support`, `:log`) as drawn: its lines wrapped as the dialog wraps them
/// and, when they are more than the screen holds, a window on them with a last line saying how
/// many lie below. j/k, up/down, pgup/pgdn (space), g and G scroll it as they move in the lists
/// (docs/keybindings.md); any other key closes it.
struct MessageOverlay {
    var title: String
    /// Every line, cleaned (the lines are the dashboard's own, what they quote is not) and wrapped.
    var lines: [String]
    /// The lines the dialog has room for on a screen of `rows` rows (its border, padding and
    /// button take five).
    var room: Int

    init(title: String, text: String, rows: Int) {
        self.title = clean(title)
        let message = text.split(separator: "\n", omittingEmptySubsequences: false).map { clean(String($0)) }
            .joined(separator: "\n")
        // The dashboard is at least 80 columns wide: the dialog's text is 60 (Dialog.frame).
        lines = Dialog.wrap(message, width: 60)
        room = max(2, rows - 5)
    }

    var scrolls: Bool { lines.count > room }

    /// The first line shown at most: the last page fills the window.
    var lastFirst: Int { scrolls ? lines.count - (room - 1) : 0 }

    func dialog(scroll: Int) -> Dialog {
        guard scrolls else { return Dialog(title: title, message: lines.joined(separator: "\n")) }
        let first = min(max(0, scroll), lastFirst)
        let shown = lines[first..<min(lines.count, first + room - 1)]
        let below = lines.count - first - shown.count
        let position =
            below > 0
            ? "↓ \(below) more line\(below == 1 ? "" : "s") (j/k, pgdn/pgup, g/G)"
            : "end (\(lines.count) lines; k, pgup or g scroll back)"
        return Dialog(
            title: title + " · \(first + 1)–\(first + shown.count) of \(lines.count)",
            message: (shown + [position]).joined(separator: "\n"))
    }
}

/// Scrolls a message overlay taller than the screen; false: the key is not a scrolling one (or
/// the message fits), and closes it.
func scrollMessage(_ state: inout AppState, title: String, text: String, _ event: KeyEvent) -> Bool {
    let overlay = MessageOverlay(
        title: title, text: text, rows: state.screenRows ?? DashboardView.minimumSize.height)
    guard overlay.scrolls else { return false }
    let page = max(1, overlay.room - 2)
    let first = min(max(0, state.messageScroll), overlay.lastFirst)
    let next: Int
    switch event.key {
    case .char("j"), .down: next = first + 1
    case .char("k"), .up: next = first - 1
    case .pageDown, .char(" "): next = first + page
    case .pageUp: next = first - page
    case .char("g"), .home: next = 0
    case .char("G"), .end: next = overlay.lastFirst
    default: return false
    }
    state.messageScroll = min(max(0, next), overlay.lastFirst)
    return true
}
