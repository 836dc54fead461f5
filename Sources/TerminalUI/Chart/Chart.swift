/// The characters a chart draws with.
public enum ChartGlyphs: String, Sendable, CaseIterable {
    /// Braille dots, 2 × 4 to a cell, for lines; block shades for bars.
    case braille
    /// Half blocks (1 × 2 to a cell) for lines; block shades for bars.
    case block
    /// Plain ASCII for terminals and fonts without either.
    case ascii

    /// Braille in a UTF-8 locale (`LC_ALL`, else `LC_CTYPE`, else `LANG` names UTF-8), blocks otherwise.
    public static func forLocale(_ environment: [String: String]) -> ChartGlyphs {
        let locale =
            [environment["LC_ALL"], environment["LC_CTYPE"], environment["LANG"]]
            .compactMap { $0 }.first { !$0.isEmpty } ?? ""
        let upper = locale.uppercased()
        return upper.contains("UTF-8") || upper.contains("UTF8") ? .braille : .block
    }

    /// Dots per cell across and down for lines.
    var resolution: (x: Int, y: Int) {
        switch self {
        case .braille: (2, 4)
        case .block: (1, 2)
        case .ascii: (1, 1)
        }
    }

    /// The fill of the k-th bar series: a pattern, so stacked bars are told apart without colour.
    public func barFill(_ k: Int) -> String {
        let fills = self == .ascii ? ["#", "=", "+", ":", "%", "o"] : ["█", "▓", "▒", "░", "▚", "▞"]
        return fills[k % fills.count]
    }

    /// How a line series shows in a legend.
    var lineSample: String { self == .ascii ? "-*-" : self == .block ? "▄▀▄" : "⠤⠒⠤" }
    /// How a dashed line shows in a legend.
    var dashedLineSample: String { self == .ascii ? ". ." : self == .block ? "▄ ▄" : "⠄⠂⠄" }
    /// The mark of a bucket without data (a gap, unlike a zero).
    var gapMark: String { self == .ascii ? ":" : "┊" }
    var axis: (vertical: String, tick: String, zero: String) {
        self == .ascii ? ("|", "+", "-") : ("│", "┤", "┼")
    }
}

/// A chart widget over a ``ChartModel``: a title with a legend that gives way when the width is
/// short, value labels on the left (thousands separators, the unit), bucket labels underneath,
/// lines for stocks (braille dots, half blocks or ASCII), stacked bars for flows with a pattern
/// per series (positive above the zero line, negative below), gaps marked `┊`, incomplete
/// buckets dimmed, the cursor's label reversed.
public struct Chart: Widget {
    public var model: ChartModel
    public var glyphs: ChartGlyphs
    /// The bucket under the cursor, if any: its label is always shown.
    public var cursor: Int?

    public init(model: ChartModel, glyphs: ChartGlyphs = .braille, cursor: Int? = nil) {
        self.model = model
        self.glyphs = glyphs
        self.cursor = cursor
    }

    /// The legend entries: a sample of each series and its name.
    func legendEntries(nameLength: Int? = nil) -> [String] {
        var bar = 0
        return model.series.map { s in
            let name = nameLength.map { String(s.name.prefix($0)) } ?? s.name
            switch s.kind {
            case .line: return (s.dashed ? glyphs.dashedLineSample : glyphs.lineSample) + " " + name
            case .bar:
                defer { bar += 1 }
                return glyphs.barFill(bar) + " " + name
            }
        }
    }

    public func render(in area: Rect, buffer: inout Buffer, palette: Palette) {
        guard area.width >= 12, area.height >= 4 else {
            buffer.set(string: model.title, at: Position(x: area.x, y: area.y), style: palette[.title], maxWidth: area.width)
            return
        }
        // Title, then the legend when it fits on the same row: whole, else names cut to 4
        // characters, else none.
        let titleEnd = buffer.set(
            string: model.title, at: Position(x: area.x, y: area.y), style: palette[.title], maxWidth: area.width)
        for entries in [legendEntries(), legendEntries(nameLength: 4)] where !entries.isEmpty {
            let legendWidth = entries.reduce(0) { $0 + $1.displayWidth } + 2 * (entries.count - 1)
            guard titleEnd + 3 + legendWidth <= area.right else { continue }
            var x = area.right - legendWidth
            for (s, entry) in zip(model.series, entries) {
                x = buffer.set(string: entry, at: Position(x: x, y: area.y), style: palette[s.role]) + 2
            }
            break
        }
        let plotTop = area.y + 1
        let plotRows = area.height - 2
        let labelRow = area.bottom - 1

        // The buckets shown: all when each gets a column, else the latest that fit.
        let n = model.count
        guard n > 0 else {
            buffer.set(string: "no data", at: Position(x: area.x, y: plotTop), style: palette[.muted], maxWidth: area.width)
            return
        }

        // Value axis: round ticks over the values of the buckets shown.
        func scale(for shown: Range<Int>) -> (low: Double, high: Double, ticks: [Double]) {
            var (low, high) = model.valueRange(shown)
            if high <= low {
                high = low + 1
                if low > 0 && model.series.allSatisfy({ $0.kind == .line }) { low = max(0, low - 1) }
            }
            return ChartModel.niceScale(low: low, high: high, count: max(2, min(6, plotRows / 2 + 1)))
        }
        var (low, high, ticks) = scale(for: 0..<n)
        let tickDecimals = model.tickDecimals(ticks)
        var labelWidth = ticks.map { model.format($0, decimals: tickDecimals).displayWidth }.max() ?? 1
        if let unit = model.unit { labelWidth = max(labelWidth, unit.displayWidth) }
        let plotX = area.x + labelWidth + 1
        let plotWidth = area.right - plotX
        guard plotWidth > 0 else { return }
        let first = max(0, n - plotWidth)
        if first > 0 { (low, high, ticks) = scale(for: first..<n) }
        let shown = n - first
        let slot = max(1, plotWidth / shown)

        // Value → position from the plot's top edge, in cells (0…plotRows).
        func position(_ v: Double) -> Double { (high - v) / (high - low) * Double(plotRows) }
        func row(_ v: Double) -> Int { min(plotRows - 1, max(0, Int(position(v)))) }

        // Axis and tick labels; the unit above the ticks when there is room.
        let muted = palette[.muted]
        for r in 0..<plotRows {
            buffer.set(string: glyphs.axis.vertical, at: Position(x: plotX - 1, y: plotTop + r), style: muted)
        }
        var usedRows: Set<Int> = []
        for t in ticks {
            let r = row(t)
            guard !usedRows.contains(r) else { continue }
            usedRows.insert(r)
            let text = model.format(t, decimals: tickDecimals)
            buffer.set(
                string: text.padded(toWidth: labelWidth, alignment: .right), at: Position(x: area.x, y: plotTop + r),
                style: palette[.text])
            buffer.set(
                string: t == 0 && low < 0 ? glyphs.axis.zero : glyphs.axis.tick, at: Position(x: plotX - 1, y: plotTop + r),
                style: muted)
        }
        if let unit = model.unit {
            // Under the value labels, beside the bucket labels.
            buffer.set(
                string: unit.padded(toWidth: labelWidth, alignment: .right), at: Position(x: area.x, y: labelRow),
                style: muted)
        }

        // Gaps: a bucket where no series has a value.
        for i in first..<n where model.series.allSatisfy({ i >= $0.values.count || $0.values[i] == nil }) {
            let x = plotX + (i - first) * slot + (slot - 1) / 2
            for r in 0..<plotRows {
                buffer.set(string: glyphs.gapMark, at: Position(x: x, y: plotTop + r), style: muted)
            }
        }

        // Bars: stacked per bucket, each series its pattern, whole cells (a bar narrower than the
        // slot leaves a column between buckets).
        let barWidth = slot > 2 ? slot - 1 : slot
        let barSeries = model.series.enumerated().filter { $0.element.kind == .bar }
        // The cells bars fill: a dashed comparison line passes behind them, never through them.
        var barCells: Set<Position> = []
        for i in first..<n {
            var up = 0.0
            var down = 0.0
            for (k, (_, s)) in barSeries.enumerated() {
                guard i < s.values.count, let v = s.values[i], v != 0 else { continue }
                let (from, to): (Double, Double) = v > 0 ? (up, up + v) : (down + v, down)
                if v > 0 { up += v } else { down += v }
                let top = Int(position(to).rounded())
                let bottom = Int(position(from).rounded())
                guard bottom > top else { continue }
                var style = palette[s.role]
                if model.incomplete.contains(i) { style = style.adding(.dim) }
                for r in max(0, top)..<min(plotRows, bottom) {
                    for dx in 0..<barWidth {
                        barCells.insert(Position(x: plotX + (i - first) * slot + dx, y: plotTop + r))
                        buffer.set(
                            string: glyphs.barFill(k), at: Position(x: plotX + (i - first) * slot + dx, y: plotTop + r),
                            style: style)
                    }
                }
            }
        }

        // Lines: dots joined bucket to bucket, broken at gaps.
        let (dx, dy) = glyphs.resolution
        for s in model.series where s.kind == .line {
            var dots = DotCanvas(width: plotWidth * dx, height: plotRows * dy)
            var previous: (Int, Int)?
            for i in first..<n {
                guard i < s.values.count, let v = s.values[i] else {
                    previous = nil
                    continue
                }
                let x = (i - first) * slot * dx + (slot * dx - 1) / 2
                let y = min(plotRows * dy - 1, max(0, Int((position(v) * Double(dy)).rounded(.down))))
                if let (px, py) = previous { dots.line(from: (px, py), to: (x, y)) } else { dots.set(x, y) }
                previous = (x, y)
            }
            // A dashed line keeps every other pair of dot columns (ASCII: every other column).
            if s.dashed { dots.dash(period: dx == 1 ? 2 : 4) }
            for r in 0..<plotRows {
                for c in 0..<plotWidth {
                    guard let glyph = dots.glyph(column: c, row: r, glyphs: glyphs),
                        !(s.dashed && barCells.contains(Position(x: plotX + c, y: plotTop + r)))
                    else { continue }
                    var style = palette[s.role]
                    let bucket = first + c / slot
                    if model.incomplete.contains(bucket) { style = style.adding(.dim) }
                    buffer.set(string: glyph, at: Position(x: plotX + c, y: plotTop + r), style: style)
                }
            }
        }

        // Bucket labels: the cursor's, then the first and each that fits after the one before.
        var cursorSpan: Range<Int>?
        if let cursor, cursor >= first, cursor < n {
            let text = model.labels[cursor]
            let x = max(plotX, min(plotX + (cursor - first) * slot, area.right - text.displayWidth))
            buffer.set(string: text, at: Position(x: x, y: labelRow), style: palette[.selection], maxWidth: area.right - x)
            cursorSpan = (x - 1)..<(x + text.displayWidth + 1)
        }
        var nextFree = plotX
        for i in first..<n where i != cursor {
            let x = plotX + (i - first) * slot
            let text = model.labels[i]
            let span = x..<(x + text.displayWidth)
            guard x >= nextFree, span.upperBound <= area.right, !(cursorSpan?.overlaps(span) ?? false) else { continue }
            var style = palette[.text]
            if model.incomplete.contains(i) { style = style.adding(.dim) }
            buffer.set(string: text, at: Position(x: x, y: labelRow), style: style)
            nextFree = span.upperBound + 1
        }
    }
}

/// A grid of dots that turns into glyphs cell by cell.
struct DotCanvas {
    let width: Int
    let height: Int
    private var dots: [Bool]

    init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        dots = Array(repeating: false, count: self.width * self.height)
    }

    mutating func set(_ x: Int, _ y: Int) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        dots[y * width + x] = true
    }

    /// Clears the second half of every `period` dot columns: a solid line becomes a dashed one.
    mutating func dash(period: Int) {
        guard period > 1 else { return }
        for x in 0..<width where x % period >= period / 2 {
            for y in 0..<height { dots[y * width + x] = false }
        }
    }

    func isSet(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < width && y < height && dots[y * width + x] }

    /// Bresenham's line between two dots.
    mutating func line(from a: (Int, Int), to b: (Int, Int)) {
        var (x, y) = a
        let (dx, dy) = (abs(b.0 - a.0), -abs(b.1 - a.1))
        let (sx, sy) = (a.0 < b.0 ? 1 : -1, a.1 < b.1 ? 1 : -1)
        var error = dx + dy
        while true {
            set(x, y)
            if x == b.0 && y == b.1 { return }
            let e2 = 2 * error
            if e2 >= dy {
                error += dy
                x += sx
            }
            if e2 <= dx {
                error += dx
                y += sy
            }
        }
    }

    /// The cell's glyph, nil when no dot of it is set.
    func glyph(column c: Int, row r: Int, glyphs: ChartGlyphs) -> String? {
        let (rx, ry) = glyphs.resolution
        switch glyphs {
        case .braille:
            // U+2800 + dot bits: left column 1, 2, 4, 64 top to bottom; right 8, 16, 32, 128.
            let bits: [[UInt32]] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]]
            var value: UInt32 = 0
            for x in 0..<rx {
                for y in 0..<ry where isSet(c * rx + x, r * ry + y) { value |= bits[x][y] }
            }
            return value == 0 ? nil : String(Character(Unicode.Scalar(0x2800 + value)!))
        case .block:
            let (top, bottom) = (isSet(c, r * 2), isSet(c, r * 2 + 1))
            return top && bottom ? "█" : top ? "▀" : bottom ? "▄" : nil
        case .ascii:
            return isSet(c, r) ? "*" : nil
        }
    }
}
