/// A row of numbered tabs (` 1 Subscribers  2 Subscriber …`), the active one highlighted. When
/// the row is wider than the area, inactive tabs take their short titles, the longest first, until
/// it fits.
public struct Tabs: Widget {
    public var titles: [String]
    public var active: Int
    /// A shorter title per tab (same order as `titles`); nil: no tab has one.
    public var shortTitles: [String]?

    public init(titles: [String], active: Int, shortTitles: [String]? = nil) {
        self.titles = titles
        self.active = active
        self.shortTitles = shortTitles
    }

    /// The titles drawn in `width` columns.
    func fitted(to width: Int) -> [String] {
        var shown = titles
        func total() -> Int { shown.reduce(0) { $0 + $1.displayWidth + 4 } }
        guard let shortTitles, shortTitles.count == titles.count else { return shown }
        while total() > width {
            let candidates = shown.indices.filter { $0 != active && shortTitles[$0].displayWidth < shown[$0].displayWidth }
            guard let longest = candidates.max(by: { shown[$0].displayWidth < shown[$1].displayWidth }) else { break }
            shown[longest] = shortTitles[longest]
        }
        return shown
    }

    public func render(in area: Rect, buffer: inout Buffer, palette: Palette) {
        guard !area.isEmpty else { return }
        buffer.fill(area.row(0), style: palette[.tab])
        var x = area.x
        for (index, title) in fitted(to: area.width).enumerated() {
            let label = " \(index + 1) \(title) "
            guard x < area.right else { break }
            x = buffer.set(
                string: label, at: Position(x: x, y: area.y), style: palette[index == active ? .tabActive : .tab],
                maxWidth: area.right - x)
        }
    }
}
