import ArgumentParser
import CursesBackend
import Foundation
import TerminalUI

struct Themes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "themes",
        abstract: "Check, list and preview theme files.",
        subcommands: [Check.self, List.self, Preview.self],
        defaultSubcommand: List.self
    )

    /// Where themes are looked for; shared by the subcommands.
    struct Location: ParsableArguments {
        @Option(
            name: .customLong("themes-dir"),
            help: "The bundled themes directory (default: the Themes/ found above the current directory or the executable).")
        var themesDirectory: String?

        var catalog: ThemeCatalog { ThemeCatalog.standard(themesDirectory: themesDirectory) }
    }
}

extension Themes {
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Parse theme files and report every broken line as file:line: reason.",
            discussion: "Without paths, checks every *.theme in the bundled Themes/ directory. Exits 1 when any file is broken.")

        @OptionGroup var location: Location

        @Argument(help: "Theme files or directories of them.")
        var paths: [String] = []

        func run() throws {
            var files: [String] = []
            if paths.isEmpty {
                guard let directory = location.catalog.bundledDirectory else {
                    throw ValidationError("no Themes/ directory found; pass theme files or --themes-dir")
                }
                files = ThemeCatalog.themeFiles(in: displayPath(directory))
            }
            for path in paths {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                    files += ThemeCatalog.themeFiles(in: path)
                } else {
                    files.append(path)
                }
            }
            var broken = 0
            for file in files {
                do {
                    let theme = try ThemeCatalog.load(path: file)
                    print("ok      \(file) (\(theme.name))")
                } catch {
                    broken += 1
                    FileHandle.standardError.write(Data((error.description + "\n").utf8))
                }
            }
            if broken > 0 {
                FileHandle.standardError.write(Data("\(broken) of \(files.count) theme files are broken\n".utf8))
                throw ExitCode(1)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the themes --theme can name, and where each comes from.")

        @OptionGroup var location: Location

        func run() throws {
            let rows = location.catalog.entries().map { entry -> [String] in
                guard let path = entry.path else {
                    return [entry.name, ThemeCatalog.builtin(entry.name)?.name ?? "", "built-in"]
                }
                let title = (try? ThemeCatalog.load(path: path).name) ?? "(broken: see subdash themes check)"
                return [entry.name, title, displayPath(path)]
            }
            let widths = (0..<2).map { column in rows.map { $0[column].displayWidth }.max() ?? 0 }
            for row in rows {
                print(row[0].padded(toWidth: widths[0]) + "  " + row[1].padded(toWidth: widths[1]) + "  " + row[2])
            }
        }
    }

    struct Preview: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a sample screen in a theme (t: next theme, :theme NAME, f: dialog, q: quit).")

        @OptionGroup var location: Location

        @Argument(help: "A theme name or path.")
        var theme: String = "default"

        @Option(help: "Colour (NO_COLOR also turns colour off under auto).")
        var color: ColorChoice = .auto

        func run() throws {
            let catalog = location.catalog
            var preview = ThemePreview(names: catalog.entries().map(\.name), theme: try catalog.load(theme))
            let backend = try CursesBackend(color: color)
            defer { backend.shutdown() }
            let terminal = Terminal(backend: backend)
            var message: String?
            while true {
                let palette = preview.theme.palette(for: backend.colorSupport)
                terminal.draw { buffer in preview.render(into: &buffer, palette: palette, support: backend.colorSupport) }
                guard let key = backend.readKey(timeout: .milliseconds(250)) else {
                    preview.tick += 1
                    continue
                }
                switch preview.handle(key) {
                case .quit:
                    backend.shutdown()
                    if let message { print(message) }
                    return
                case .load(let name):
                    do { preview.theme = try catalog.load(name) } catch { preview.status = error.description }
                case .redraw:
                    terminal.invalidate()
                case .none:
                    break
                }
                message = "last theme: \(preview.theme.name)"
            }
        }
    }
}

/// Paths under the current directory shown relative to it.
private func displayPath(_ path: String) -> String {
    let current = FileManager.default.currentDirectoryPath + "/"
    return path.hasPrefix(current) ? String(path.dropFirst(current.count)) : path
}

// MARK: - Preview screen

/// The sample screen of `subdash themes preview`: every widget in the theme's roles.
struct ThemePreview {
    enum Command {
        case quit
        case load(String)
        case redraw, none
    }

    var names: [String]
    var theme: Theme
    var selected = 1
    var marked: Set<Int> = [2]
    var prompt: Prompt?
    var dialog: Dialog?
    var status = "t next theme · : command · f dialog · space mark · q quit"
    var tick = 0

    mutating func handle(_ event: KeyEvent) -> Command {
        if var dialog {
            let outcome = dialog.handle(event)
            self.dialog = outcome == .pending ? dialog : nil
            if case .chosen(let index) = outcome { status = "chose \(dialog.buttons[index])" }
            return .none
        }
        if var prompt {
            switch prompt.handle(event) {
            case .editing: self.prompt = prompt
            case .cancelled: self.prompt = nil
            case .submitted(let text):
                self.prompt = nil
                let words = text.split(separator: " ").map(String.init)
                if words.first == "q" { return .quit }
                if words.first == "theme", words.count == 2 { return .load(words[1]) }
                status = "unknown command: \(TextSanitizer.strip(text))"
            }
            return .none
        }
        switch event.key {
        case .char("q"), .ctrl("c"): return .quit
        case .char("j"), .down: selected = min(Self.rows.count - 1, selected + 1)
        case .char("k"), .up: selected = max(0, selected - 1)
        case .char(" "): if marked.contains(selected) { marked.remove(selected) } else { marked.insert(selected) }
        case .char("t"):
            let index = names.firstIndex(of: nameKey) ?? -1
            return .load(names[(index + 1) % names.count])
        case .char(":"): prompt = Prompt(prefix: ":", candidates: ["q"] + names.map { "theme " + $0 })
        case .char("f"):
            dialog = Dialog(
                title: "Flag subscribers", message: "Flag \(max(1, marked.count)) subscribers for a win-back offer?",
                buttons: ["Flag", "Cancel"])
        case .resize: return .redraw
        default: status = "key: \(event)"
        }
        return .none
    }

    private var nameKey: String {
        names.first { $0 == theme.name.lowercased() } ?? names.first { theme.name.lowercased().hasPrefix($0) } ?? "default"
    }

    static let rows: [[String]] = [
        ["1000000101", "standard", "monthly", "14", "on"],
        ["1000000102", "freeTrial", "yearly", "0", "on"],
        ["1000000103", "billingRetry", "monthly", "7", "off"],
        ["1000000104", "gracePeriod", "monthly", "3", "on"],
        ["1000000105 日本", "expired", "weekly", "22", "off"],
    ]

    func render(into buffer: inout Buffer, palette: Palette, support: ColorSupport) -> Position? {
        let area = buffer.area
        guard area.width >= 60, area.height >= 20 else {
            buffer.set(
                string: "terminal too small: need 60×20, have \(area.width)×\(area.height)", at: Position(x: 0, y: 0),
                style: palette[.warning])
            return nil
        }
        let rows = Layout.vertical([.fixed(1), .fixed(1), .fill(), .fixed(1), .fixed(1)]).split(area)
        Tabs(titles: ["Subscribers", "Subscriber", "Cohorts", "States & Events", "Offers"], active: 0).render(
            in: rows[0], buffer: &buffer, palette: palette)
        Breadcrumbs(["Themes", theme.name, "preview (\(support))"]).render(in: rows[1], buffer: &buffer, palette: palette)
        let columns = Layout.horizontal([.percentage(55), .fill()]).split(rows[2])
        let left = Layout.vertical([.fixed(9), .fill()]).split(columns[0])

        Border(title: "Subscribers", focused: true).render(in: left[0], buffer: &buffer, palette: palette)
        let table = Table(
            columns: [
                .init("ID", width: .fill()), .init("State", width: .fixed(12)), .init("Plan", width: .fixed(7)),
                .init("Paid", width: .fixed(4), alignment: .right), .init("Auto", width: .fixed(4)),
            ],
            rows: Self.rows.enumerated().map { Table.Row($1, isMarked: marked.contains($0)) },
            selected: selected, sort: .init(column: 3, ascending: false), showsMarkGutter: true)
        table.render(in: Border.inner(left[0]), buffer: &buffer, palette: palette)

        Border(title: "Timeline").render(in: left[1], buffer: &buffer, palette: palette)
        let inner = Border.inner(left[1])
        let bar = TimelineBar(
            range: 0..<100,
            segments: [
                .init(start: 0, end: 10, role: .freeTrial), .init(start: 10, end: 30, role: .introductory),
                .init(start: 30, end: 55, role: .standard), .init(start: 55, end: 60, role: .gracePeriod),
                .init(start: 60, end: 68, role: .billingRetry), .init(start: 68, end: 72, role: .gap),
                .init(start: 72, end: 85, role: .winBackPeriod), .init(start: 85, end: 100, role: .refund),
            ], markers: [.init(at: 30), .init(at: 72)])
        bar.render(in: Rect(x: inner.x, y: inner.y, width: inner.width, height: 2), buffer: &buffer, palette: palette)
        var y = inner.y + 2
        for role in [ThemeRole.error, .warning, .success, .muted, .accent] where y < inner.bottom {
            buffer.set(
                string: "\(role.rawValue): the quick brown fox", at: Position(x: inner.x, y: y), style: palette[role],
                maxWidth: inner.width)
            y += 1
        }

        Border(title: "Cohorts").render(in: columns[1], buffer: &buffer, palette: palette)
        let right = Border.inner(columns[1])
        HeatGrid(
            rowLabels: ["2025-01", "2025-02", "2025-03", "2025-04", "avg"], columnLabels: ["M1", "M2", "M3", "M4", "M5"],
            values: [
                [0.92, 0.71, 0.55, 0.41, 0.30], [0.88, 0.64, 0.47, 0.19, nil], [0.81, 0.52, 0.05, nil, nil],
                [0.97, nil, nil, nil, nil], [0.9, 0.62, 0.36, 0.3, 0.3],
            ],
            selected: (1, 2)
        )
        .render(in: Rect(x: right.x, y: right.y, width: right.width, height: 6), buffer: &buffer, palette: palette)
        Sparkline(values: [1, 3, 2, 5, 8, 13, 8, 5, 3, 2, 1, 0, 2, 4, 6, 9, 12, 15, 11, 7])
            .render(in: Rect(x: right.x, y: right.y + 7, width: right.width, height: 1), buffer: &buffer, palette: palette)
        Spinner(tick: tick, label: "loading cohorts").render(
            in: Rect(x: right.x, y: right.y + 9, width: right.width, height: 1), buffer: &buffer, palette: palette)

        var cursor: Position?
        if let prompt {
            cursor = prompt.render(in: rows[3], buffer: &buffer, palette: palette)
        } else {
            buffer.fill(rows[3], style: palette[.statusBar])
            buffer.set(string: " " + status, at: Position(x: 0, y: rows[3].y), style: palette[.statusBar])
        }
        HelpBar(["?": "help", "t": "next theme", ":": "command", "f": "flag", "space": "mark", "q": "quit"])
            .render(in: rows[4], buffer: &buffer, palette: palette)
        dialog?.render(in: area, buffer: &buffer, palette: palette)
        return cursor
    }
}
