/// A grid of rates 0…1 coloured by the heat roles; `nil` cells (not known yet, censored) show `–`.
///
/// Without colour (or with a theme whose heat roles have none) each cell starts with a shade
/// glyph from ` ░▒▓█` so the heat still shows (unless the text fills the cell, as `100%` in four columns).
public struct HeatGrid: Widget {
    public var rowLabels: [String]
    public var columnLabels: [String]
    /// `values[row][column]`, each a rate in 0…1 or `nil`.
    public var values: [[Double?]]
    /// Columns per cell, not counting the one-column gap after it.
    public var cellWidth: Int
    public var selected: (row: Int, column: Int)?
    /// The text shown in a cell; by default a whole percentage (`42%`).
    public var format: @Sendable (Double) -> String

    public static let shades: [String] = [" ", "░", "▒", "▓", "█"]

    public init(
        rowLabels: [String], columnLabels: [String], values: [[Double?]], cellWidth: Int = 5,
        selected: (row: Int, column: Int)? = nil,
        format: @escaping @Sendable (Double) -> String = HeatGrid.percentage
    ) {
        self.rowLabels = rowLabels
        self.columnLabels = columnLabels
        self.values = values
        self.cellWidth = cellWidth
        self.selected = selected
        self.format = format
    }

    /// `0.423` → `42%`.
    @Sendable public static func percentage(_ rate: Double) -> String {
        "\(Int((min(1, max(0, rate)) * 100).rounded()))%"
    }

    /// The shade glyph for a rate: ` ` below 20 %, `█` from 80 %.
    public static func shade(for rate: Double) -> String {
        shades[min(shades.count - 1, max(0, Int(rate * Double(shades.count))))]
    }

    public func render(in area: Rect, buffer: inout Buffer, palette: Palette) {
        guard !area.isEmpty else { return }
        let labelWidth = min(area.width, (rowLabels.map(\.displayWidth).max() ?? 0))
        let header = palette[.header]
        var x = area.x + labelWidth + 1
        buffer.fill(area.row(0), style: .plain)
        for label in columnLabels where x < area.right {
            buffer.set(
                string: label.padded(toWidth: cellWidth, alignment: .right), at: Position(x: x, y: area.y),
                style: header, maxWidth: area.right - x)
            x += cellWidth + 1
        }
        for (rowIndex, label) in rowLabels.enumerated() {
            let y = area.y + 1 + rowIndex
            guard y < area.bottom else { break }
            buffer.set(
                string: label.padded(toWidth: labelWidth), at: Position(x: area.x, y: y), style: palette[.text],
                maxWidth: labelWidth)
            var x = area.x + labelWidth + 1
            let row = rowIndex < values.count ? values[rowIndex] : []
            for columnIndex in columnLabels.indices where x < area.right {
                let room = min(cellWidth, area.right - x)
                let isSelected = selected.map { $0.row == rowIndex && $0.column == columnIndex } ?? false
                if let rate = columnIndex < row.count ? row[columnIndex] : nil {
                    var style = palette[Palette.heatRole(for: rate)]
                    let colourless = style.background == .default && style.foreground == .default
                    if isSelected { style = style.patched(with: palette[.selection]).adding(.reverse) }
                    let text: String
                    if colourless, format(rate).displayWidth < cellWidth {
                        text = HeatGrid.shade(for: rate) + format(rate).padded(toWidth: cellWidth - 1, alignment: .right)
                    } else {
                        text = format(rate).padded(toWidth: cellWidth, alignment: .right)
                    }
                    buffer.set(string: text, at: Position(x: x, y: y), style: style, maxWidth: room)
                } else {
                    // Not known yet: a dash, so an unknown rate never reads as an empty (or zero) one.
                    let style = isSelected ? palette[.selection] : palette[.muted]
                    let text = columnIndex < row.count ? "–".padded(toWidth: cellWidth, alignment: .right) : ""
                    buffer.set(string: text.padded(toWidth: cellWidth), at: Position(x: x, y: y), style: style, maxWidth: room)
                }
                x += cellWidth + 1
            }
        }
    }
}
