/// A centred box with a title, a message and buttons, such as "Flag 12 subscribers? [Flag] [Cancel]".
///
/// A value in the app's state: ``handle(_:)`` moves between buttons and answers, ``render``
/// draws it over whatever is below.
public struct Dialog: Hashable, Sendable {
    public enum Outcome: Hashable, Sendable {
        case pending
        /// Enter on a button (its index), or the button's first letter.
        case chosen(Int)
        /// Esc.
        case cancelled
    }

    public var title: String
    public var message: String
    public var buttons: [String]
    public var selectedButton: Int

    public init(title: String, message: String, buttons: [String] = ["OK"], selectedButton: Int = 0) {
        self.title = title
        self.message = message
        self.buttons = buttons
        self.selectedButton = selectedButton
    }

    public mutating func handle(_ event: KeyEvent) -> Outcome {
        switch event.key {
        case .left, .backTab, .char("h"): selectedButton = max(0, selectedButton - 1)
        case .right, .tab, .char("l"): selectedButton = min(buttons.count - 1, selectedButton + 1)
        case .enter: return .chosen(selectedButton)
        case .esc: return .cancelled
        case .char(let c):
            if let index = buttons.firstIndex(where: { $0.first?.lowercased() == c.lowercased() }) { return .chosen(index) }
        default: break
        }
        return .pending
    }

    /// The message broken into lines of at most `width` columns, at spaces where possible.
    public static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                var word = String(word)
                while word.displayWidth > width {
                    if !line.isEmpty {
                        lines.append(line)
                        line = ""
                    }
                    let head = word.truncated(toWidth: width, ellipsis: "")
                    lines.append(head)
                    word = String(word.dropFirst(head.count))
                }
                if line.isEmpty {
                    line = word
                } else if line.displayWidth + 1 + word.displayWidth <= width {
                    line += " " + word
                } else {
                    lines.append(line)
                    line = word
                }
            }
            lines.append(line)
        }
        return lines
    }

    private var buttonRow: String { buttons.map { "[ \($0) ]" }.joined(separator: "  ") }

    /// The box this dialog takes inside `area`.
    public func frame(in area: Rect) -> Rect {
        let maxInner = max(1, min(area.width - 4, 60))
        let wrapped = Dialog.wrap(message, width: maxInner)
        let inner = min(maxInner, max(title.displayWidth + 2, buttonRow.displayWidth, wrapped.map(\.displayWidth).max() ?? 0))
        return area.centered(Size(width: inner + 4, height: wrapped.count + 5))
    }

    public func render(in area: Rect, buffer: inout Buffer, palette: Palette) {
        let box = frame(in: area)
        guard box.width >= 4, box.height >= 3 else { return }
        Border(title: title, focused: true, fill: .dialog).render(in: box, buffer: &buffer, palette: palette)
        let inner = box.inset(horizontal: 2, vertical: 1)
        let lines = Dialog.wrap(message, width: inner.width)
        for (index, line) in lines.enumerated() where inner.y + 1 + index < inner.bottom - 1 {
            buffer.set(
                string: line, at: Position(x: inner.x, y: inner.y + 1 + index), style: palette[.dialog], maxWidth: inner.width)
        }
        var x = inner.x + max(0, (inner.width - buttonRow.displayWidth) / 2)
        let y = inner.bottom - 1
        for (index, button) in buttons.enumerated() {
            if index > 0 { x += 2 }
            let style = index == selectedButton ? palette[.selection] : palette[.dialog]
            x = buffer.set(string: "[ \(button) ]", at: Position(x: x, y: y), style: style, maxWidth: inner.right - x)
        }
    }
}

extension Dialog: Widget {}
