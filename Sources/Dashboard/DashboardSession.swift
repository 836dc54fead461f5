import Foundation
import TerminalUI
import ThreadKit

/// The dashboard's run loop on any ``TerminalBackend``: curses in `subdash dashboard`, a
/// ``TestBackend`` in tests and in the frame-time benchmark.
///
/// All of it runs on one thread (the curses rule): keys and query results become actions for
/// ``update(_:_:)``, effects go to the ``EffectRunner``'s queue, frames are drawn by diff.
public final class DashboardSession<Backend: TerminalBackend> {
    public private(set) var state: AppState
    public let terminal: Terminal<Backend>
    public let runner: EffectRunner
    public var palette: Palette
    /// How often the store is checked for changes by others (``Action/tick``).
    public var tickInterval: Duration = .seconds(1)
    /// Effects handed to the runner whose answers have not been applied yet.
    public private(set) var pending = 0

    private let mailbox = Mailbox()
    private let clock = ContinuousClock()
    private var lastTick: ContinuousClock.Instant
    private var lastKey: ContinuousClock.Instant
    /// The theme `palette` was resolved from after a `:theme`; nil: the one given at start.
    private var shownTheme: Theme?
    /// The state the last frame was drawn from.
    private var drawnState: AppState?

    public init(backend: Backend, runner: EffectRunner, palette: Palette, state: AppState = AppState()) {
        terminal = Terminal(backend: backend)
        self.runner = runner
        self.palette = palette
        self.state = state
        lastTick = clock.now
        lastKey = clock.now
    }

    public var backend: Backend { terminal.backend }

    /// Runs until the user quits. Between keys it sleeps: the wait ends at a key, an answer
    /// from the effect queue (``WakeSignal``), or the next store check (``tickInterval``), so an
    /// idle dashboard wakes about once a second.
    public func run() {
        apply(.start)
        while !state.shouldQuit { step(timeout: untilNextWakeUp()) }
    }

    /// How long the loop may sleep: until the next tick, or until a half-typed key sequence
    /// (`g` …) times out.
    public func untilNextWakeUp() -> Duration {
        let now = clock.now
        var until = lastTick + tickInterval
        if !state.pendingKeys.isEmpty { until = min(until, lastKey + .seconds(1)) }
        return max(.milliseconds(1), until - now)
    }

    /// One turn of the loop: draw, wait up to `timeout` for a key (or an answer from the effect
    /// queue), apply it and whatever results arrived, and tick when a tick is due.
    public func step(timeout: Duration) {
        draw()
        if let key = backend.readKey(timeout: timeout, wake: mailbox.wake) {
            // Results that came in while waiting came before the key: apply them first, so an
            // enter typed the instant a list is drawn acts on that list.
            applyArrived(waiting: false)
            press(key)
            lastKey = clock.now
        } else if !state.pendingKeys.isEmpty, clock.now - lastKey >= .seconds(1) {
            // `g` and then nothing for a second: the sequence is dropped.
            apply(.keyTimeout)
        }
        applyArrived(waiting: false)
        if clock.now - lastTick >= tickInterval {
            lastTick = clock.now
            apply(.tick)
        }
    }

    public func press(_ key: KeyEvent) {
        if key.key == .resize { terminal.invalidate() }
        // "Terminal too small" hides the panes: a key typed at it would act on what nobody sees,
        // except the two that quit (the screen says so), so a window that cannot grow is no trap.
        let size = backend.size
        let minimum = DashboardView.minimumSize
        guard key.key == .resize || (size.width >= minimum.width && size.height >= minimum.height) else {
            if DashboardView.quitsAtAnySize(key) { apply(.quit) }
            return
        }
        state.screenRows = size.height
        apply(.key(key))
    }

    /// Updates the state and starts the effects it asks for.
    public func apply(_ action: Action) {
        let effects = update(&state, action)
        pending += effects.count
        let mailbox = mailbox
        for effect in effects { runner.run(effect) { mailbox.post($0) } }
    }

    /// Applies answers until no effect is outstanding (waiting for them), so the next frame shows
    /// everything the last key asked for: what tests and the frame benchmark use.
    public func settle() {
        while pending > 0 { applyArrived(waiting: true) }
    }

    /// Applies answers until `shown` holds of the state or no effect is outstanding: the frame a
    /// pane that fills in section by section (pane 6) first has something to show.
    public func settle(until shown: (AppState) -> Bool) {
        while pending > 0, !shown(state) { applyArrived(waiting: true) }
    }

    /// Draws the current state as one frame, unless the screen already shows it: a wake-up that
    /// changed nothing on screen (a store check that found no change) costs no rendering.
    public func draw() {
        if state.theme != shownTheme, let theme = state.theme {
            // `:theme` switched: resolve the new palette once, then repaint every cell.
            palette = theme.palette(for: backend.colorSupport)
            shownTheme = theme
            terminal.invalidate()
        }
        var shown = state
        // Whether a store check is on its way is not drawn.
        shown.storeWatch.checking = false
        if shown == drawnState, let frame = terminal.previousFrame, frame.size == backend.size { return }
        let state = state
        let palette = palette
        terminal.draw { buffer in render(state, into: &buffer, palette: palette) }
        drawnState = shown
    }

    private func applyArrived(waiting: Bool) {
        for action in mailbox.take(waiting: waiting) {
            pending -= 1
            apply(action)
        }
    }
}

/// Answers from the effect queue, waiting for the UI thread to pick them up.
private final class Mailbox: Sendable {
    private let actions = BlockingChannel<Action>(capacity: .max)
    /// Signalled with each answer: it ends the run loop's wait for a key.
    let wake = WakeSignal()

    func post(_ action: Action) {
        actions.send(action)
        wake.signal()
    }

    /// What arrived; with `waiting`, blocks until at least one action is there.
    func take(waiting: Bool) -> [Action] { actions.receiveAll(waiting: waiting) }
}
