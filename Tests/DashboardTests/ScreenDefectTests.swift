import Dashboard
import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI
import TestSupport
import Testing

private func started(_ runner: EffectRunner) -> AppState {
    var state = AppState(asOf: SampleStore.asOf, operatorName: "alice")
    drive(.start, &state, runner)
    return state
}

private func screen(_ state: AppState, width: Int = 80, height: Int = 24, palette: Palette = .builtinDefault(.none)) -> [String] {
    let backend = TestBackend(width: width, height: height, colorSupport: .none)
    Terminal(backend: backend).draw { buffer in render(state, into: &buffer, palette: palette) }
    return backend.lines
}

@Suite struct ScreenDefects {
    @Test func helpOverlayWrapsDescriptionsInsteadOfCuttingThem() throws {
        var state = AppState(asOf: SampleStore.asOf)
        state.pane = .offers
        state.overlay = .help
        for size in [(80, 24), (120, 40)] {
            let text = screen(state, width: size.0, height: size.1).map { line in
                // the overlay's description column, borders and key column stripped
                line.split(separator: "│").dropFirst().first.map { String($0.dropFirst(16)).trimmingCharacters(in: .whitespaces) }
                    ?? ""
            }.joined(separator: " ")
            #expect(text.contains("Flag the marked rows (or the cursor row) for an offer"), "at \(size)")
            #expect(text.contains("Mark the rows whose cell in this column matches a regular expression"), "at \(size)")
        }
    }

    @Test func keysTypedWhileTheTerminalIsTooSmallAreIgnored() throws {
        let backend = TestBackend(width: 60, height: 20, colorSupport: .none)
        let session = DashboardSession(
            backend: backend, runner: try SampleStore.runner(), palette: .builtinDefault(.none),
            state: AppState(asOf: SampleStore.asOf))
        session.apply(.start)
        session.settle()
        session.draw()
        #expect(backend.lines.contains { $0.contains("Terminal too small") })
        for key in ["3", "/", ":"] { session.press(KeyEvent(.char(Character(key)))) }
        #expect(session.state.pane == .subscribers && !session.state.shouldQuit && session.state.commandLine == nil)
        // Big enough again: keys count.
        backend.resize(width: 80, height: 24)
        session.press(KeyEvent(.resize))
        session.press(KeyEvent(.char("3")))
        #expect(session.state.pane == .cohorts)
    }

    /// A window that cannot grow is no trap: the screen says how to leave, and `q` and `ctrl-c` do.
    @Test(arguments: ["q", "ctrl-c"])
    func quitKeysWorkWhileTheTerminalIsTooSmall(_ chord: String) throws {
        let backend = TestBackend(width: 60, height: 20, colorSupport: .none)
        let session = DashboardSession(
            backend: backend, runner: try SampleStore.runner(), palette: .builtinDefault(.none),
            state: AppState(asOf: SampleStore.asOf))
        session.apply(.start)
        session.settle()
        session.draw()
        #expect(backend.lines.contains { $0.contains("q or ctrl-c quits") })
        for key in try KeyChord(parsing: chord).keys { session.press(key) }
        #expect(session.state.shouldQuit)
    }

    /// ctrl-c quits at every size and from every place: a pane, the `/` and `:` lines, the help
    /// overlay, the flag dialog.
    @Test func ctrlCQuitsFromEverywhere() throws {
        let runner = try SampleStore.runner()
        for (width, height) in [(80, 24), (200, 60)] {
            for opening in [[], ["/", "5", "0"], [":", "u"], ["?"], ["f"], ["3"], ["2"]] {
                let backend = TestBackend(width: width, height: height, colorSupport: .none)
                let session = DashboardSession(
                    backend: backend, runner: runner, palette: .builtinDefault(.none),
                    state: AppState(asOf: SampleStore.asOf, operatorName: "alice"))
                session.apply(.start)
                session.settle()
                for chord in opening {
                    for key in try KeyChord(parsing: chord).keys { session.press(key) }
                    session.settle()
                }
                #expect(!session.state.shouldQuit)
                session.press(KeyEvent.ctrl("c"))
                #expect(session.state.shouldQuit, "after \(opening) at \(width)×\(height)")
            }
        }
    }

    @Test func statesAndEventsFocusBorderFollowsTheCursor() throws {
        let runner = try SampleStore.runner()
        var state = started(runner)
        try keys("4", state: &state, runner: runner)
        let palette = Palette.builtinDefault(.truecolor)
        var buffer = view(state, size: Size(width: 80, height: 24), palette: palette)
        // The corners of the two tables' borders (row 2: under the tabs and the crumbs).
        let eventsCorner = (0..<80).last { buffer[$0, 2].symbol == "┌" }!
        #expect(buffer[0, 2].style == palette[.borderFocused])
        #expect(buffer[eventsCorner, 2].style == palette[.border])
        for _ in 0..<StatesEventsPane.stateRows.count { try keys("j", state: &state, runner: runner) }
        buffer = view(state, size: Size(width: 80, height: 24), palette: palette)
        #expect(buffer[0, 2].style == palette[.border])
        #expect(buffer[eventsCorner, 2].style == palette[.borderFocused])
    }

    @Test func lightThemeSetsItsBackgroundEverywhere() throws {
        let light = try ThemeCatalog(userDirectory: nil, bundledDirectory: packageRoot.appendingPathComponent("Themes").path)
            .load("light")
        let palette = light.palette(for: .truecolor)
        let white = palette[.text].background
        #expect(white != .default)
        #expect(palette[.header].background == white && palette[.muted].background == white)
        let buffer = view(AppState(asOf: SampleStore.asOf), size: Size(width: 80, height: 24), palette: palette)
        // Every cell but the ones with a background of their own (tabs, crumbs, the selection) is on white.
        #expect(buffer[40, 12].style.background == white)
        #expect(buffer[79, 23].style.background == white)
    }

    @Test func exportsGoToTheDownloadDirectoryOrHomeWithTheirFullPath() throws {
        #expect(
            EffectRunner.exportDirectory(
                option: nil, environment: ["XDG_DOWNLOAD_DIR": "/data/dl", "HOME": "/home/a"],
                currentDirectory: "/work") == "/data/dl")
        #expect(
            EffectRunner.exportDirectory(option: nil, environment: ["HOME": "/home/a"], currentDirectory: "/work") == "/home/a")
        #expect(
            EffectRunner.exportDirectory(option: "out/csv", environment: ["HOME": "/home/a"], currentDirectory: "/work")
                == "/work/out/csv")
        // The notice names the file by its full path.
        let export = try TemporaryDirectory("export")
        defer { export.remove() }
        let directory = export.path
        let db = try SampleStore.database()
        let runner = EffectRunner(
            analytics: SubscriberAnalytics(database: db),
            exportDirectory: EffectRunner.exportDirectory(environment: ["XDG_DOWNLOAD_DIR": directory]))
        var state = started(runner)
        try keys("ctrl-s", state: &state, runner: runner)
        let path = directory + "/subdash-subscribers-2025-06-15.csv"
        #expect(state.notice == "exported 24 rows to \(path)")
        #expect(FileManager.default.fileExists(atPath: path))
    }

    /// Issue 30 §3.10, the smaller ones.
    @Test func zeroDecimalCurrenciesHaveNoDecimals() {
        #expect(MoneyFormat.text(1_200_000, "JPY") == "1,200 JPY")
        #expect(MoneyFormat.text(-15_000_000, "KRW") == "-15,000 KRW")
        #expect(MoneyFormat.text(9_990, "USD") == "9.99 USD")
        #expect(MoneyFormat.number(1_234_560, currency: "EUR") == "1,234.56")
    }

    @Test func marksAreClearedOnceTheirFlagIsSet() throws {
        let runner = try SampleStore.runner()
        var state = started(runner)
        try keys("space", "space", state: &state, runner: runner)
        #expect(state.marks.count == 2)
        try keys("f", "enter", state: &state, runner: runner)
        #expect(state.notice?.hasPrefix("flagged for") == true, "\(state.notice ?? "")")
        #expect(state.marks.isEmpty)
    }

    @Test func clearingAFlagTakesANote() throws {
        let runner = try SampleStore.runner()
        var state = started(runner)
        try keys("f", "enter", state: &state, runner: runner)
        try keys("F", state: &state, runner: runner)
        #expect(state.confirmation?.clear == true)
        try keys("n", state: &state, runner: runner)
        #expect(state.commandLine?.kind == .note)
        for c in "asked to stop" { drive(.key(.char(c)), &state, runner) }
        try keys("enter", state: &state, runner: runner)
        #expect(state.confirmation?.note == "asked to stop")
        try keys("enter", state: &state, runner: runner)
        let log = try runner.analytics.database.flagLog()
        #expect(log.last?.note == "asked to stop", "\(log)")
    }

    @Test func theHeaderSaysReadOnly() throws {
        let runner = try SampleStore.runner()
        var state = AppState(asOf: SampleStore.asOf, readOnly: true)
        drive(.start, &state, runner)
        #expect(screen(state)[1].contains("read-only"))
        #expect(!screen(started(runner))[1].contains("read-only"))
    }

    @Test func exportingAnEmptyListWritesNothingAndSaysSo() throws {
        let export = try TemporaryDirectory("empty-export")
        defer { export.remove() }
        let runner = EffectRunner(
            analytics: SubscriberAnalytics(database: try SampleStore.database()), exportDirectory: export.path)
        var state = started(runner)
        try keys("/", state: &state, runner: runner)
        for c in "zzzz" { drive(.key(.char(c)), &state, runner) }
        try keys("enter", "ctrl-s", state: &state, runner: runner)
        #expect(state.notice == "nothing to export: the list is empty (no file written)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: export.path).isEmpty)
    }
}
