/// A horizontal bar of time segments, each coloured by a role, with point markers.
///
/// Time is any `Double` scale (the app passes seconds since the epoch). Each column shows the
/// segment covering its midpoint; later segments are drawn over earlier ones, so retry and
/// grace windows can be laid over periods. A role without a colour (no colour at all, or a theme that gives it none) has its own glyph.
public struct TimelineBar: Widget {
    public struct Segment: Hashable, Sendable {
        /// The half-open interval [start, end).
        public var start: Double
        public var end: Double
        public var role: ThemeRole
        public init(start: Double, end: Double, role: ThemeRole) {
            self.start = start
            self.end = end
            self.role = role
        }
    }

    public struct Marker: Hashable, Sendable {
        public var at: Double
        public var symbol: String
        public var role: ThemeRole
        public init(at: Double, symbol: String = "▲", role: ThemeRole = .marker) {
            self.at = at
            self.symbol = symbol
            self.role = role
        }
    }

    /// The time shown across the width.
    public var range: Range<Double>
    public var segments: [Segment]
    public var markers: [Marker]

    public init(range: Range<Double>, segments: [Segment], markers: [Marker] = []) {
        self.range = range
        self.segments = segments
        self.markers = markers
    }

    /// The glyph for a role: blocks in colour; distinct textures when colour is off.
    public static func glyph(for role: ThemeRole, colour: Bool) -> String {
        if role == .gap { return "─" }
        guard !colour else { return "█" }
        switch role {
        case .freeTrial: return "░"
        case .introductory: return "▒"
        case .promotional: return "▓"
        case .offerCode: return "▚"
        case .winBackPeriod: return "▞"
        case .gracePeriod: return "┅"
        case .billingRetry: return "x"
        case .refund: return "!"
        default: return "█"
        }
    }

    /// The glyph for a role drawn with `palette`: a block when the role has a colour of its own there,
    /// its texture when it has none (no colour, or a theme such as `mono` that gives the role none).
    public static func glyph(for role: ThemeRole, palette: Palette) -> String {
        glyph(for: role, colour: palette.support != .none && palette[role].foreground != .default)
    }

    /// The column of `time` in a bar `width` wide, or `nil` outside the range.
    public func column(of time: Double, width: Int) -> Int? {
        guard range.contains(time), width > 0, !range.isEmpty else { return nil }
        return min(width - 1, Int((time - range.lowerBound) / (range.upperBound - range.lowerBound) * Double(width)))
    }

    public func render(in area: Rect, buffer: inout Buffer, palette: Palette) {
        guard !area.isEmpty, !range.isEmpty else { return }
        let span = range.upperBound - range.lowerBound
        var shown: [Segment?] = Array(repeating: nil, count: area.width)
        for column in 0..<area.width {
            let middle = range.lowerBound + (Double(column) + 0.5) / Double(area.width) * span
            shown[column] = segments.last(where: { $0.start <= middle && middle < $0.end })
        }
        // A segment too short to hold a column's midpoint (a four-day refund on a two-year bar) still
        // gets the column its own midpoint falls in, unless that column is the only one of another
        // segment: a role that happened is never invisible when there is room for it.
        for segment in segments where segment.role != .gap && !shown.contains(segment) {
            guard let column = column(of: (segment.start + segment.end) / 2, width: area.width) else { continue }
            if let other = shown[column], shown.filter({ $0 == other }).count == 1 { continue }
            shown[column] = segment
        }
        for (column, segment) in shown.enumerated() {
            guard let segment else { continue }
            buffer.set(
                string: TimelineBar.glyph(for: segment.role, palette: palette), at: Position(x: area.x + column, y: area.y),
                style: palette[segment.role])
        }
        let markerRow = area.height >= 2 ? area.y + 1 : area.y
        for marker in markers {
            guard let column = column(of: marker.at, width: area.width) else { continue }
            buffer.set(
                string: marker.symbol, at: Position(x: area.x + column, y: markerRow), style: palette[marker.role],
                maxWidth: area.right - area.x - column)
        }
    }
}
