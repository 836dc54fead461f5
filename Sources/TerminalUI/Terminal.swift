/// Draws whole frames through a backend, sending only what changed since the last frame.
///
/// Each ``draw(_:)`` renders a complete frame into a fresh buffer of the backend's current
/// size, diffs it against the previous frame and hands the changed runs to the backend.
public final class Terminal<Backend: TerminalBackend> {
    public let backend: Backend
    /// The last frame drawn, `nil` before the first or after ``invalidate()``.
    public private(set) var previousFrame: Buffer?

    public init(backend: Backend) { self.backend = backend }

    /// Renders one frame. `render` fills the buffer and returns where the cursor goes (or `nil`).
    public func draw(_ render: (inout Buffer) -> Position?) {
        var frame = Buffer(size: backend.size)
        let cursor = render(&frame)
        if let previousFrame, previousFrame.size == frame.size {
            backend.draw(frame.diff(from: previousFrame))
        } else {
            backend.clear()
            backend.draw(frame.diff(from: Buffer(width: 0, height: 0)))
        }
        backend.setCursor(cursor)
        backend.flush()
        previousFrame = frame
    }

    /// Makes the next frame a full redraw (after a resize or when the screen was disturbed).
    public func invalidate() { previousFrame = nil }
}
