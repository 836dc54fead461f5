/// The navigation path (` Subscribers › 1000000123 › Timeline `), the last crumb active.
/// When too wide, crumbs are dropped from the left and replaced by `…`.
public struct Breadcrumbs: Widget {
    public var crumbs: [String]
    public static let separator = " › "

    public init(_ crumbs: [String]) { self.crumbs = crumbs }

    /// The columns all the crumbs take when none is dropped.
    public var width: Int {
        crumbs.reduce(0) { $0 + $1.displayWidth + 2 } + max(0, crumbs.count - 1) * Breadcrumbs.separator.displayWidth
    }

    public func render(in area: Rect, buffer: inout Buffer, palette: Palette) {
        guard !area.isEmpty, !crumbs.isEmpty else { return }
        var shown = crumbs
        var elided = false
        func width(_ parts: [String]) -> Int {
            parts.reduce(0) { $0 + $1.displayWidth + 2 } + max(0, parts.count - 1) * Breadcrumbs.separator.displayWidth
                + (elided ? 1 + Breadcrumbs.separator.displayWidth : 0)
        }
        while shown.count > 1 && width(shown) > area.width {
            shown.removeFirst()
            elided = true
        }
        var x = area.x
        if elided {
            x = buffer.set(
                string: "…" + Breadcrumbs.separator, at: Position(x: x, y: area.y), style: palette[.crumb],
                maxWidth: area.right - x)
        }
        for (index, crumb) in shown.enumerated() {
            let isLast = index == shown.count - 1
            let room = area.right - x
            x = buffer.set(
                string: " " + crumb.truncated(toWidth: max(0, room - 2)) + " ", at: Position(x: x, y: area.y),
                style: palette[isLast ? .crumbActive : .crumb], maxWidth: room)
            if !isLast {
                x = buffer.set(
                    string: Breadcrumbs.separator, at: Position(x: x, y: area.y), style: palette[.muted], maxWidth: area.right - x
                )
            }
        }
    }
}
