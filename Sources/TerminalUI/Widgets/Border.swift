/// A box-drawing frame with an optional title on its top edge.
public struct Border: Widget {
    public var title: String?
    public var focused: Bool
    /// Style of the inside (filled when not `nil`).
    public var fill: ThemeRole?

    public init(title: String? = nil, focused: Bool = false, fill: ThemeRole? = nil) {
        self.title = title
        self.focused = focused
        self.fill = fill
    }

    /// The area inside the frame.
    public static func inner(_ area: Rect) -> Rect { area.inset(by: 1) }

    public func render(in area: Rect, buffer: inout Buffer, palette: Palette) {
        guard area.width >= 2, area.height >= 2 else { return }
        if let fill { buffer.fill(area, style: palette[fill]) }
        let style = palette[focused ? .borderFocused : .border]
        let background = fill.map { palette[$0] } ?? .plain
        let line = background.patched(with: style)
        let (left, right, top, bottom) = (area.left, area.right - 1, area.top, area.bottom - 1)
        for x in (left + 1)..<right {
            buffer.set(string: "─", at: Position(x: x, y: top), style: line)
            buffer.set(string: "─", at: Position(x: x, y: bottom), style: line)
        }
        for y in (top + 1)..<bottom {
            buffer.set(string: "│", at: Position(x: left, y: y), style: line)
            buffer.set(string: "│", at: Position(x: right, y: y), style: line)
        }
        buffer.set(string: "┌", at: Position(x: left, y: top), style: line)
        buffer.set(string: "┐", at: Position(x: right, y: top), style: line)
        buffer.set(string: "└", at: Position(x: left, y: bottom), style: line)
        buffer.set(string: "┘", at: Position(x: right, y: bottom), style: line)
        if let title, area.width > 4 {
            let text = " " + title.truncated(toWidth: area.width - 4) + " "
            buffer.set(string: text, at: Position(x: left + 1, y: top), style: background.patched(with: palette[.title]))
        }
    }
}
