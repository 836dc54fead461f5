/// A table of text rows with a header, a selected row, marked rows and a sort indicator.
///
/// The app owns selection, marks (as ids) and the scroll offset; it hands the table the rows
/// to show with their marks already mapped. Use ``scrollOffset(selected:offset:visibleRows:)``
/// to keep the selection in view from frame to frame.
public struct Table: Widget {
    public struct Column: Hashable, Sendable {
        public var title: String
        /// Width of the column (`.fixed`, `.percentage`, `.min` or `.fill`), shared like ``Layout``.
        public var width: Constraint
        public var alignment: Alignment
        /// Cut text from the start rather than the end (`…pro.monthly`): for ids whose end differs.
        public var keepsEnd: Bool

        public init(_ title: String, width: Constraint, alignment: Alignment = .left, keepsEnd: Bool = false) {
            self.title = title
            self.width = width
            self.alignment = alignment
            self.keepsEnd = keepsEnd
        }
    }

    public struct Row: Hashable, Sendable {
        public var cells: [String]
        public var isMarked: Bool
        /// A role for the whole row (say `error`), instead of `text`.
        public var role: ThemeRole?

        public init(_ cells: [String], isMarked: Bool = false, role: ThemeRole? = nil) {
            self.cells = cells
            self.isMarked = isMarked
            self.role = role
        }
    }

    /// Which column the rows are sorted by, shown as ↑ or ↓ after its title.
    public struct Sort: Hashable, Sendable {
        public var column: Int
        public var ascending: Bool
        public init(column: Int, ascending: Bool) {
            self.column = column
            self.ascending = ascending
        }
    }

    public var columns: [Column]
    public var rows: [Row]
    public var selected: Int?
    /// The first row shown (adjusted when drawing so that `selected` is visible).
    public var offset: Int
    public var sort: Sort?
    public var showsHeader: Bool
    /// Reserves a one-column gutter that shows `*` on marked rows (marks stay visible without colour).
    public var showsMarkGutter: Bool

    public init(
        columns: [Column], rows: [Row], selected: Int? = nil, offset: Int = 0, sort: Sort? = nil,
        showsHeader: Bool = true, showsMarkGutter: Bool = false
    ) {
        self.columns = columns
        self.rows = rows
        self.selected = selected
        self.offset = offset
        self.sort = sort
        self.showsHeader = showsHeader
        self.showsMarkGutter = showsMarkGutter
    }

    /// Column widths sized by their content: each column wants its widest cell (its title
    /// included), at least `minimums`; when they do not all fit in `width`, the widest column
    /// gives up a cell first, then whichever is widest then, never below its minimum; room left
    /// over goes to the columns that `grow`, evenly (the last one when none does).
    public static func contentWidths(wanted: [Int], minimums: [Int], grow: [Bool], in width: Int, spacing: Int = 1) -> [Int] {
        guard !wanted.isEmpty else { return [] }
        var widths = zip(wanted, minimums).map { Swift.max($0, $1) }
        let available = Swift.max(0, width - spacing * (wanted.count - 1))
        var total = widths.reduce(0, +)
        while total > available {
            let shrinkable = widths.indices.filter { widths[$0] > minimums[$0] }
            guard let widest = shrinkable.max(by: { widths[$0] < widths[$1] }) else { break }
            // The widest loses down to the next widest (or its minimum, or what is needed) at once.
            let next = shrinkable.filter { $0 != widest }.map { widths[$0] }.max() ?? minimums[widest]
            let step = Swift.max(1, Swift.min(widths[widest] - Swift.max(next, minimums[widest]), total - available))
            widths[widest] -= step
            total -= step
        }
        if total < available {
            let growing = grow.indices.filter { grow[$0] }
            let targets = growing.isEmpty ? [widths.count - 1] : growing
            var extra = available - total
            for (n, index) in targets.enumerated() {
                let share = extra / (targets.count - n)
                widths[index] += share
                extra -= share
            }
        }
        return widths
    }

    /// The offset that keeps `selected` within `visibleRows` rows, moving as little as possible.
    public static func scrollOffset(selected: Int?, offset: Int, visibleRows: Int) -> Int {
        guard let selected, visibleRows > 0 else { return max(0, offset) }
        if selected < offset { return max(0, selected) }
        if selected >= offset + visibleRows { return selected - visibleRows + 1 }
        return max(0, offset)
    }

    public func render(in area: Rect, buffer: inout Buffer, palette: Palette) {
        guard !area.isEmpty else { return }
        let gutter = showsMarkGutter ? 1 : 0
        let body = Rect(x: area.x + gutter, y: area.y, width: area.width - gutter, height: area.height)
        let cells = Layout.horizontal(columns.map(\.width), spacing: 1).split(body)
        var y = area.y
        if showsHeader {
            buffer.fill(area.row(0), style: palette[.header])
            for (index, column) in columns.enumerated() {
                let rect = cells[index]
                var title = column.title
                var indicatorWidth = 0
                if let sort, sort.column == index { indicatorWidth = 1 }
                title = title.truncated(toWidth: rect.width - indicatorWidth)
                let text =
                    column.alignment == .right
                    ? title.padded(toWidth: rect.width - indicatorWidth, alignment: .right)
                    : title
                let end = buffer.set(string: text, at: Position(x: rect.x, y: y), style: palette[.header], maxWidth: rect.width)
                if let sort, sort.column == index, rect.width > 0 {
                    buffer.set(
                        string: sort.ascending ? "↑" : "↓", at: Position(x: min(end, rect.right - 1), y: y),
                        style: palette[.header].patched(with: palette[.sortIndicator]))
                }
            }
            y += 1
        }
        let visible = area.bottom - y
        let first = Table.scrollOffset(selected: selected, offset: offset, visibleRows: visible)
        for (index, row) in rows.enumerated().dropFirst(first).prefix(max(0, visible)) {
            let isSelected = index == selected
            var style = palette[row.role ?? .text]
            if row.isMarked { style = style.patched(with: palette[.marked]) }
            if isSelected {
                style = palette[.selection].patched(with: Style(attributes: row.isMarked ? palette[.marked].attributes : []))
            }
            let line = Rect(x: area.x, y: y, width: area.width, height: 1)
            buffer.fill(line, style: style)
            if showsMarkGutter && row.isMarked { buffer.set(string: "*", at: Position(x: area.x, y: y), style: style) }
            for (column, rect) in zip(columns.indices, cells) where column < row.cells.count {
                var cell = row.cells[column]
                if columns[column].keepsEnd { cell = cell.truncatedKeepingEnd(toWidth: rect.width) }
                let text = cell.padded(toWidth: rect.width, alignment: columns[column].alignment)
                buffer.set(string: text, at: Position(x: rect.x, y: y), style: style, maxWidth: rect.width)
            }
            y += 1
        }
    }
}
