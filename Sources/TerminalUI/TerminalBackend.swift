/// What draws a ``Buffer`` on a terminal and reads keys from it.
///
/// ``CursesBackend`` is the real one, ``TestBackend`` the in-memory one for tests. All calls
/// come from one thread; a backend is not meant to be shared.
public protocol TerminalBackend: AnyObject {
    /// The current size in cells (re-read after a ``Key/resize``).
    var size: Size { get }
    /// The colours this terminal shows, after `--color`, `NO_COLOR` and `COLORTERM`.
    var colorSupport: ColorSupport { get }
    /// Draws changed runs of cells (from ``Buffer/diff(from:)``); shown at the next ``flush()``.
    func draw(_ runs: [BufferRun])
    /// Shows the cursor at a position, or hides it with `nil`.
    func setCursor(_ position: Position?)
    /// Forgets what is on screen: the next frame is drawn in full.
    func clear()
    /// Makes what was drawn visible.
    func flush()
    /// The next key, waiting at most `timeout` (`nil` waits forever); `nil` when none came.
    func readKey(timeout: Duration?) -> KeyEvent?
    /// The next key, waiting at most `timeout` (`nil` waits forever) or until `wake` is
    /// signalled; `nil` when none came. A backend that cannot watch `wake` waits for keys only.
    func readKey(timeout: Duration?, wake: WakeSignal) -> KeyEvent?
}

extension TerminalBackend {
    public func readKey(timeout: Duration?, wake: WakeSignal) -> KeyEvent? { readKey(timeout: timeout) }
}
