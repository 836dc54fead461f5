/// A row of numbered tabs (` 1 Subscribers  2 Subscriber …`), the active one highlighted.
public struct Tabs: Widget {
    public var titles: [String]
    public var active: Int

    public init(titles: [String], active: Int) {
        self.titles = titles
        self.active = active
    }

    public func render(in area: Rect, buffer: inout Buffer, palette: Palette) {
        guard !area.isEmpty else { return }
        buffer.fill(area.row(0), style: palette[.tab])
        var x = area.x
        for (index, title) in titles.enumerated() {
            let label = " \(index + 1) \(title) "
            guard x < area.right else { break }
            x = buffer.set(
                string: label, at: Position(x: x, y: area.y), style: palette[index == active ? .tabActive : .tab],
                maxWidth: area.right - x)
        }
    }
}
