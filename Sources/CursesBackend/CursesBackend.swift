import CNcursesW
import Foundation
import TerminalUI

/// The terminal backend on ncursesw: the only code in subdash that touches curses.
///
/// Create it on the thread that will make every other call. It takes over the terminal in
/// `init` and gives it back in ``shutdown()`` — which also runs at exit and on SIGINT, SIGTERM,
/// SIGHUP, SIGQUIT and SIGSEGV (the signal is re-raised afterwards). Never print to stdout
/// while it is running.
public final class CursesBackend: TerminalBackend {
    public let colorSupport: ColorSupport
    private let window: UnsafeMutablePointer<WINDOW>
    private var palette: CursesPalette
    private var cursor: Position?
    private var isRunning = true

    /// Why curses could not start.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Takes over the terminal: locale, raw input, no echo, keypad, 25 ms ESC delay, colours.
    /// - Parameters:
    ///   - color: the `--color` choice; with `auto`, `NO_COLOR` turns colour off and
    ///     `COLORTERM=truecolor` turns 24-bit colour on where curses can show it.
    ///   - environment: read for `NO_COLOR`, `COLORTERM` and `TERM`.
    public init(color: ColorChoice = .auto, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        // Without the locale, curses treats UTF-8 as Latin-1 and wide characters break.
        setlocale(LC_ALL, "")
        guard cnc_start() == 1, let screen = cnc_stdscr() else {
            throw StartError(
                description: "cannot start the terminal UI (TERM=\(environment["TERM"] ?? "unset"); is stdin/stdout a terminal?)")
        }
        window = screen
        cnc_mark_active()
        cnc_install_exit_handlers()
        raw()
        noecho()
        nonl()
        keypad(window, true)
        set_escdelay(25)
        curs_set(0)

        var support = ColorSupport.none
        if has_colors() {
            start_color()
            use_default_colors()
            support = ColorSupport.detect(choice: color, environment: environment, terminalColors: Int(cnc_colors()))
        }
        let colors = Int(cnc_colors())
        let direct = colors >= 0x1000000
        let dynamic = !direct && colors >= 256 && can_change_color()
        if support == .truecolor && !direct && !dynamic { support = .ansi256 }
        colorSupport = support
        palette = CursesPalette(colors: colors, pairs: Int(cnc_color_pairs()), direct: direct, dynamic: dynamic)
    }

    deinit { shutdown() }

    /// Gives the terminal back (`endwin`). Idempotent; later calls do nothing.
    public func shutdown() {
        guard isRunning else { return }
        isRunning = false
        cnc_shutdown()
    }

    public var size: Size { Size(width: Int(cnc_getmaxx(window)), height: Int(cnc_getmaxy(window))) }

    // MARK: - Output

    public func draw(_ runs: [BufferRun]) {
        guard isRunning else { return }
        for run in runs {
            // ncurses lays a wide character over two columns itself: send only lead cells.
            let leads = run.cells.filter { !$0.isContinuation }
            guard !leads.isEmpty else { continue }
            var cells = [cchar_t](repeating: cchar_t(), count: leads.count)
            for (index, cell) in leads.enumerated() {
                let (attributes, pair) = palette.attributesAndPair(for: cell.style)
                var codepoints = cell.symbol.unicodeScalars.map(\.value)
                if codepoints.isEmpty { codepoints = [0x20] }
                _ = cnc_setcchar(&cells[index], codepoints, Int32(codepoints.count), attributes, Int32(pair))
            }
            _ = cnc_add_cells(window, Int32(run.y), Int32(run.x), cells, Int32(cells.count))
        }
    }

    public func setCursor(_ position: Position?) { cursor = position }

    public func clear() {
        guard isRunning else { return }
        werase(window)
        clearok(window, true)
    }

    public func flush() {
        guard isRunning else { return }
        if let cursor {
            wmove(window, Int32(cursor.y), Int32(cursor.x))
            curs_set(1)
        } else {
            curs_set(0)
        }
        wnoutrefresh(window)
        doupdate()
    }

    // MARK: - Input

    public func readKey(timeout: Duration?) -> KeyEvent? {
        guard isRunning else { return nil }
        wtimeout(
            window,
            timeout.map { Int32(clamping: $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) }
                ?? -1)
        var code: UInt32 = 0
        let status = cnc_get_wch(window, &code)
        guard let key = CursesBackend.decode(status: status, code: code) else { return nil }
        guard key == .esc else { return KeyEvent(key) }
        // ncurses already waited ESCDELAY for a known sequence; a character right behind the
        // ESC means the terminal sent alt-<key>.
        wtimeout(window, 0)
        var next: UInt32 = 0
        let nextStatus = cnc_get_wch(window, &next)
        guard let altKey = CursesBackend.decode(status: nextStatus, code: next), altKey != .esc else { return KeyEvent(.esc) }
        return KeyEvent(altKey, alt: true)
    }

    /// Blocks in `poll` on the terminal and `wake` together, so nothing runs until a key, a
    /// resize (the signal interrupts the wait), a wake-up or the timeout.
    public func readKey(timeout: Duration?, wake: WakeSignal) -> KeyEvent? {
        guard isRunning else { return nil }
        // Keys curses has already read (a paste, the rest of a sequence) never show on the descriptor.
        if let key = readKey(timeout: .zero) { return key }
        var watched = [
            pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake.fileDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        let milliseconds =
            timeout.map { Int32(clamping: $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) }
            ?? -1
        let ready = poll(&watched, 2, milliseconds)
        if ready > 0, watched[1].revents != 0 { wake.drain() }
        if ready > 0, watched[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0, watched[0].revents & Int16(POLLIN) == 0 {
            // The terminal is gone: waiting the timeout out keeps a hung-up loop from spinning.
            if milliseconds > 0 { usleep(UInt32(milliseconds) * 1000) }
            return nil
        }
        return readKey(timeout: .zero)
    }

    /// Turns what `wget_wch` returned into a key; `nil` for ERR (timeout) and unknown codes.
    static func decode(status: Int32, code: UInt32) -> Key? {
        if status == cnc_key_code_yes() { return functionKey(Int32(bitPattern: code)) }
        guard status == OK else { return nil }
        switch code {
        case 0: return .ctrlSpace
        case 9: return .tab
        case 10, 13: return .enter
        case 8, 127: return .backspace
        case 27: return .esc
        case 1...26: return .ctrl(Character(Unicode.Scalar(UInt8(0x60 + code))))
        case 28: return .ctrl("\\")
        case 29: return .ctrl("]")
        case 30: return .ctrl("^")
        case 31: return .ctrl("_")
        case 0x80..<0xA0: return nil
        default: return Unicode.Scalar(code).map { .char(Character($0)) }
        }
    }

    private static func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_IC: return .insert
        case KEY_BTAB: return .backTab
        case KEY_ENTER: return .enter
        case cnc_key_resize(): return .resize
        case (cnc_key_f(1))...(cnc_key_f(63)): return .function(Int(code - cnc_key_f0()))
        default: return nil
        }
    }
}
