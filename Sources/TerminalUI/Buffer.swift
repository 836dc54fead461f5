/// A width × height grid of cells that widgets draw into; backends show it.
///
/// Writing never goes outside the buffer (or the optional clip width). Wide graphemes take a
/// lead cell and a continuation cell; overwriting either half of one blanks the other half,
/// so the grid never holds half a character.
public struct Buffer: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int, filling cell: Cell = .blank) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: cell, count: self.width * self.height)
    }

    public init(size: Size) { self.init(width: size.width, height: size.height) }

    /// A buffer holding `lines` in the plain style, as wide as the widest line (for expected values).
    public init(lines: [String]) {
        self.init(width: lines.map(\.displayWidth).max() ?? 0, height: lines.count)
        for (row, line) in lines.enumerated() { set(string: line, at: Position(x: 0, y: row)) }
    }

    public var area: Rect { Rect(x: 0, y: 0, width: width, height: height) }
    public var size: Size { Size(width: width, height: height) }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[index(x, y)] }
        set { put(newValue, x: x, y: y) }
    }

    /// The cell at a position, or `nil` outside the buffer.
    public func cell(at position: Position) -> Cell? {
        area.contains(position) ? cells[index(position.x, position.y)] : nil
    }

    private func index(_ x: Int, _ y: Int) -> Int {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "cell (\(x), \(y)) outside \(width)×\(height)")
        return y * width + x
    }

    // MARK: - Writing

    /// Writes `string` from `position` in `style`, clipped to the buffer and to `maxWidth`
    /// columns, measured per grapheme cluster. Control characters are skipped (sanitise payload text with ``TextSanitizer`` first),
    /// zero-width graphemes are dropped, a wide grapheme that does not fit entirely is not drawn.
    /// - Returns: the column after the last one written.
    @discardableResult
    public mutating func set(string: String, at position: Position, style: Style = .plain, maxWidth: Int? = nil) -> Int {
        guard position.y >= 0, position.y < height else { return position.x }
        let limit = min(width, maxWidth.map { position.x + max(0, $0) } ?? width)
        var x = position.x
        // Only what can fit is shaped: a megabyte of combining marks costs what a cell costs.
        let budget = max(0, limit - min(x, limit)) * Self.scalarsPerCell + Self.scalarsPerCell
        for character in String(String.UnicodeScalarView(string.unicodeScalars.prefix(budget))) {
            let (symbol, w) = Self.shaped(character)
            if w == 0 { continue }
            if x + w > limit { break }
            if x >= 0 { put(Cell(symbol: symbol, style: style), x: x, y: position.y) }
            x += w
        }
        return x
    }

    /// Scalars kept of one grapheme cluster: a base and a few combining marks, what a terminal
    /// cell holds (ncurses keeps five).
    static let scalarsPerCell = 5

    /// What is drawn for one grapheme cluster, and its width. A zero-width-joiner sequence is
    /// drawn as its first emoji (terminals disagree on whether they join it, and the screen
    /// would shift where they do not); an overlong cluster keeps its first scalars.
    static func shaped(_ character: Character) -> (String, Int) {
        let scalars = character.unicodeScalars
        if scalars.contains("\u{200D}"), let first = scalars.first {
            let single = Character(first)
            return (String(single), DisplayWidth.of(single))
        }
        if scalars.count > scalarsPerCell {
            let kept = String(String.UnicodeScalarView(scalars.prefix(scalarsPerCell)))
            return (kept, DisplayWidth.of(Character(kept)))
        }
        return (String(character), DisplayWidth.of(character))
    }

    /// Sets the style of every cell in `rect` (clipped), keeping the symbols.
    public mutating func setStyle(_ style: Style, in rect: Rect) {
        let clipped = rect.intersection(area)
        for y in clipped.top..<clipped.bottom {
            for x in clipped.left..<clipped.right { cells[y * width + x].style = style }
        }
    }

    /// Fills `rect` (clipped) with `symbol` (one narrow grapheme) in `style`.
    public mutating func fill(_ rect: Rect, symbol: String = " ", style: Style = .plain) {
        let clipped = rect.intersection(area)
        for y in clipped.top..<clipped.bottom {
            for x in clipped.left..<clipped.right { put(Cell(symbol: symbol, style: style), x: x, y: y) }
        }
    }

    /// Puts one cell, keeping wide graphemes whole: a wide lead also writes its continuation
    /// (or a blank when it would stick out), and any wide grapheme it cuts in half is blanked.
    private mutating func put(_ cell: Cell, x: Int, y: Int) {
        guard x >= 0, x < width, y >= 0, y < height else { return }
        let row = y * width
        var cell = cell
        let wide = !cell.isContinuation && cell.width == 2
        if wide && x + 1 >= width { cell.symbol = " " }
        // Blank the lead of a wide grapheme whose continuation we overwrite.
        if cells[row + x].isContinuation, x > 0 { cells[row + x - 1] = Cell(symbol: " ", style: cells[row + x - 1].style) }
        let span = (wide && x + 1 < width) ? 2 : 1
        // Blank the continuation of a wide grapheme whose lead we overwrite.
        let after = x + span
        if after < width, cells[row + after].isContinuation {
            cells[row + after] = Cell(symbol: " ", style: cells[row + after].style)
        }
        cells[row + x] = cell
        if span == 2 { cells[row + x + 1] = .continuation(style: cell.style) }
    }

    // MARK: - Reading

    /// Each row as text (continuation cells skipped), trailing spaces kept.
    public func lines() -> [String] {
        (0..<height).map { y in
            var line = ""
            for x in 0..<width where !cells[y * width + x].isContinuation { line += cells[y * width + x].symbol }
            return line
        }
    }

    // MARK: - Diff

    /// The runs of cells that differ from `old`, row by row, left to right. A run never starts
    /// on a continuation cell (it takes in its wide lead). A buffer of another size differs everywhere.
    public func diff(from old: Buffer) -> [BufferRun] {
        var runs: [BufferRun] = []
        let sameSize = old.width == width && old.height == height
        for y in 0..<height {
            var x = 0
            while x < width {
                let i = y * width + x
                guard !sameSize || cells[i] != old.cells[i] else {
                    x += 1
                    continue
                }
                var start = x
                if cells[i].isContinuation && start > 0 { start -= 1 }
                var end = x + 1
                while end < width,
                    !sameSize || cells[y * width + end] != old.cells[y * width + end]
                        || cells[y * width + end].isContinuation
                {
                    end += 1
                }
                runs.append(BufferRun(x: start, y: y, cells: Array(cells[(y * width + start)..<(y * width + end)])))
                x = end
            }
        }
        return runs
    }
}

/// A horizontal run of changed cells: what a backend redraws.
public struct BufferRun: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var cells: [Cell]
    public init(x: Int, y: Int, cells: [Cell]) {
        self.x = x
        self.y = y
        self.cells = cells
    }
}
