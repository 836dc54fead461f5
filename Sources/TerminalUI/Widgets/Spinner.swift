/// A busy indicator that advances one frame per tick, with a label.
public struct Spinner: Widget {
    public var tick: Int
    public var label: String
    /// Braille frames by default; ``asciiFrames`` for terminals without Unicode.
    public var frames: [String]

    public static let brailleFrames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    public static let asciiFrames = ["|", "/", "-", "\\"]

    public init(tick: Int, label: String = "", frames: [String] = Spinner.brailleFrames) {
        self.tick = tick
        self.label = label
        self.frames = frames
    }

    /// The frame shown at this tick.
    public var frame: String { frames[((tick % frames.count) + frames.count) % frames.count] }

    public func render(in area: Rect, buffer: inout Buffer, palette: Palette) {
        guard !area.isEmpty else { return }
        let x = buffer.set(string: frame, at: Position(x: area.x, y: area.y), style: palette[.accent], maxWidth: area.width)
        if !label.isEmpty {
            buffer.set(string: " " + label, at: Position(x: x, y: area.y), style: palette[.muted], maxWidth: area.right - x)
        }
    }
}
