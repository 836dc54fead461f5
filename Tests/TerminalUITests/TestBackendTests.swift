import Foundation
import Testing

@testable import TerminalUI

@Suite struct TestBackendTests {
    @Test func terminalDrawsOnlyWhatChangedAndTracksTheCursor() {
        let backend = TestBackend(width: 10, height: 2)
        let terminal = Terminal(backend: backend)
        let palette = Palette.builtinDefault(backend.colorSupport)
        terminal.draw { buffer in
            buffer.set(string: "hello", at: Position(x: 0, y: 0), style: palette[.title])
            return nil
        }
        #expect(backend.lines == ["hello     ", "          "])
        #expect(backend.flushCount == 1)
        var drawn = 0
        final class Counter: TerminalBackend {
            let inner: TestBackend
            var cells = 0
            init(_ inner: TestBackend) { self.inner = inner }
            var size: Size { inner.size }
            var colorSupport: ColorSupport { inner.colorSupport }
            func draw(_ runs: [BufferRun]) {
                cells += runs.reduce(0) { $0 + $1.cells.count }
                inner.draw(runs)
            }
            func setCursor(_ position: Position?) { inner.setCursor(position) }
            func clear() { inner.clear() }
            func flush() { inner.flush() }
            func readKey(timeout: Duration?) -> KeyEvent? { inner.readKey(timeout: timeout) }
        }
        let counter = Counter(TestBackend(width: 10, height: 2))
        let counted = Terminal(backend: counter)
        counted.draw { buffer in
            buffer.set(string: "hello", at: Position(x: 0, y: 0))
            return nil
        }
        drawn = counter.cells
        #expect(drawn == 20)
        counted.draw { buffer in
            buffer.set(string: "help", at: Position(x: 0, y: 0))
            return Position(x: 4, y: 0)
        }
        #expect(counter.cells - drawn == 2)  // "p" and the blank after it
        #expect(counter.inner.lines == ["help      ", "          "])
        #expect(counter.inner.cursor == Position(x: 4, y: 0))
    }

    @Test func styleMapShowsRolesPerCell() {
        let backend = TestBackend(width: 8, height: 1, colorSupport: .ansi16)
        let palette = Palette.builtinDefault(.ansi16)
        Terminal(backend: backend).draw { buffer in
            HelpBar(["q": "quit"]).render(in: buffer.area, buffer: &buffer, palette: palette)
            buffer.set(string: "!", at: Position(x: 7, y: 0), style: palette[.error])
            return nil
        }
        #expect(backend.lines == ["q quit !"])
        #expect(backend.styleMap(palette: palette, roles: ["K": .helpKey, "t": .helpText]) == ["Ktttttt?"])
    }

    @Test func keysAndResize() throws {
        let backend = TestBackend(width: 4, height: 2)
        try backend.press("g s", "ctrl-s")
        backend.resize(width: 6, height: 3)
        #expect(backend.readKey(timeout: nil) == .char("g"))
        #expect(backend.readKey(timeout: nil) == .char("s"))
        #expect(backend.readKey(timeout: nil) == .ctrl("s"))
        #expect(backend.readKey(timeout: nil) == KeyEvent(.resize))
        #expect(backend.readKey(timeout: .zero) == nil)
        #expect(backend.size == Size(width: 6, height: 3))
    }

    @Test func aResizedFrameIsDrawnInFull() {
        let backend = TestBackend(width: 4, height: 1)
        let terminal = Terminal(backend: backend)
        terminal.draw { buffer in
            buffer.set(string: "abcd", at: Position(x: 0, y: 0))
            return nil
        }
        backend.resize(width: 6, height: 1)
        terminal.draw { buffer in
            buffer.set(string: "abcdef", at: Position(x: 0, y: 0))
            return nil
        }
        #expect(backend.lines == ["abcdef"])
    }
}

@Suite struct WakeSignalTests {
    private func readable(_ fd: Int32) -> Bool {
        var watched = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&watched, 1, 0) == 1
    }

    /// What ends the dashboard's wait for a key when a query answers.
    @Test func aSignalWakesAWaitUntilDrained() {
        let wake = WakeSignal()
        #expect(!readable(wake.fileDescriptor))
        wake.signal()
        wake.signal()
        #expect(readable(wake.fileDescriptor))
        wake.drain()
        #expect(!readable(wake.fileDescriptor))
    }
}
