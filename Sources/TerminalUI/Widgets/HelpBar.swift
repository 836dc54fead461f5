/// Key hints on one row (`? help  / filter  q quit`), as many whole hints as fit.
public struct HelpBar: Widget {
    public struct Item: Hashable, Sendable {
        public var key: String
        public var description: String
        public init(key: String, description: String) {
            self.key = key
            self.description = description
        }
    }

    public var items: [Item]

    public init(items: [Item]) { self.items = items }

    public init(_ pairs: KeyValuePairs<String, String>) {
        items = pairs.map { Item(key: $0.key, description: $0.value) }
    }

    /// How many items fit whole in `width` columns (two spaces between items).
    public func fittingCount(width: Int) -> Int {
        var used = 0
        for (index, item) in items.enumerated() {
            let itemWidth = item.key.displayWidth + 1 + item.description.displayWidth + (index > 0 ? 2 : 0)
            if used + itemWidth > width { return index }
            used += itemWidth
        }
        return items.count
    }

    public func render(in area: Rect, buffer: inout Buffer, palette: Palette) {
        guard !area.isEmpty else { return }
        buffer.fill(area.row(0), style: palette[.helpText])
        var x = area.x
        let count = fittingCount(width: area.width)
        for (index, item) in items.prefix(max(1, count)).enumerated() {
            if index > 0 { x += 2 }
            x = buffer.set(string: item.key, at: Position(x: x, y: area.y), style: palette[.helpKey], maxWidth: area.right - x)
            x += 1
            if count == 0 {
                // Not even one whole hint fits: show what does.
                buffer.set(
                    string: item.description.truncated(toWidth: area.right - x), at: Position(x: x, y: area.y),
                    style: palette[.helpText], maxWidth: area.right - x)
            } else {
                x = buffer.set(
                    string: item.description, at: Position(x: x, y: area.y), style: palette[.helpText], maxWidth: area.right - x)
            }
        }
    }
}
