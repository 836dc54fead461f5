/// An in-memory terminal for tests: it keeps the screen the app drew and replays queued keys.
public final class TestBackend: TerminalBackend {
    /// What is on the simulated screen.
    public private(set) var screen: Buffer
    public var colorSupport: ColorSupport
    /// Where the cursor is shown, `nil` when hidden.
    public private(set) var cursor: Position?
    /// How many frames were flushed.
    public private(set) var flushCount = 0
    /// How many cells the last ``draw(_:)`` calls since the last flush touched (to test diffing).
    public private(set) var cellsDrawnSinceFlush = 0
    /// Keys ``readKey(timeout:)`` will return, first first.
    public var pendingKeys: [KeyEvent] = []

    public init(width: Int, height: Int, colorSupport: ColorSupport = .truecolor) {
        screen = Buffer(width: width, height: height)
        self.colorSupport = colorSupport
    }

    public var size: Size { screen.size }

    public func draw(_ runs: [BufferRun]) {
        for run in runs {
            for (offset, cell) in run.cells.enumerated() where run.x + offset < screen.width && run.y < screen.height {
                screen[run.x + offset, run.y] = cell
            }
            cellsDrawnSinceFlush += run.cells.count
        }
    }

    public func setCursor(_ position: Position?) { cursor = position }

    public func clear() { screen = Buffer(size: screen.size) }

    public func flush() {
        flushCount += 1
        cellsDrawnSinceFlush = 0
    }

    public func readKey(timeout: Duration?) -> KeyEvent? {
        pendingKeys.isEmpty ? nil : pendingKeys.removeFirst()
    }

    /// Queues keys written as key chords: `press("g s", "enter")`.
    public func press(_ chords: String...) throws(KeyChordError) {
        for chord in chords { pendingKeys += try KeyChord(parsing: chord).keys }
    }

    /// Simulates the user resizing the window: a new blank screen and a queued ``Key/resize``.
    public func resize(width: Int, height: Int) {
        screen = Buffer(width: width, height: height)
        pendingKeys.append(KeyEvent(.resize))
    }

    // MARK: - Snapshots

    /// The screen's rows as text.
    public var lines: [String] { screen.lines() }

    /// One character per cell naming its style, for snapshot tests of colours and roles:
    /// a cell whose style is in `legend` shows that character, the plain style `plain`, any
    /// other `unknown`. Continuation cells repeat their lead's character.
    public func styleMap(_ legend: [Character: Style], plain: Character = ".", unknown: Character = "?") -> [String] {
        var byStyle: [Style: Character] = [:]
        for (character, style) in legend.sorted(by: { $0.key < $1.key }) where byStyle[style] == nil {
            byStyle[style] = character
        }
        return (0..<screen.height).map { y in
            String(
                (0..<screen.width).map { x -> Character in
                    let style = screen[x, y].style
                    return byStyle[style] ?? (style == .plain ? plain : unknown)
                })
        }
    }

    /// ``styleMap(_:plain:unknown:)`` with the legend given as roles of a palette.
    public func styleMap(palette: Palette, roles: [Character: ThemeRole], plain: Character = ".", unknown: Character = "?")
        -> [String]
    {
        styleMap(roles.mapValues { palette[$0] }, plain: plain, unknown: unknown)
    }
}
