/// A one-row chart of values with the eight block levels `▁▂▃▄▅▆▇█`.
public struct Sparkline: Widget {
    public var values: [Double]
    /// The value drawn as a full block; by default the largest value.
    public var maximum: Double?
    public var role: ThemeRole

    public static let levels: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    public init(values: [Double], maximum: Double? = nil, role: ThemeRole = .accent) {
        self.values = values
        self.maximum = maximum
        self.role = role
    }

    /// The glyphs for the last `width` values: a space for 0 (or less), else one of eight levels.
    public func glyphs(width: Int) -> String {
        let shown = values.suffix(max(0, width))
        let top = maximum ?? (shown.max() ?? 0)
        return String(
            shown.map { value -> Character in
                guard value > 0, top > 0 else { return " " }
                let level = Int((min(value, top) / top * Double(Sparkline.levels.count)).rounded(.up)) - 1
                return Sparkline.levels[max(0, min(Sparkline.levels.count - 1, level))]
            })
    }

    public func render(in area: Rect, buffer: inout Buffer, palette: Palette) {
        guard !area.isEmpty else { return }
        buffer.set(
            string: glyphs(width: area.width), at: Position(x: area.x, y: area.bottom - 1), style: palette[role],
            maxWidth: area.width)
    }
}
