import Foundation
import TerminalUI
import TestSupport
import Testing

/// Snapshot files of whole screens: the text, then a map with one character per cell naming its
/// style, then a legend that says which theme roles each character stands for and what it is.
///
/// Files live in `Tests/DashboardTests/Snapshots/NAME.txt`. A missing file is recorded (and the
/// test fails, so a run that records never passes unseen); `SNAPSHOT_RECORD=1 swift test --filter
/// DashboardSnapshots` re-records them all after a deliberate change of the screens.
enum Snapshot {
    static let directory = packageRoot.appendingPathComponent("Tests/DashboardTests/Snapshots")
    static var recording: Bool {
        ProcessInfo.processInfo.environment["SNAPSHOT_RECORD"].map { !$0.isEmpty && $0 != "0" } ?? false
    }

    /// The snapshot text of `screen` drawn with `palette`.
    static func render(_ screen: Buffer, palette: Palette) -> String {
        // Letters by first appearance (row by row), so a file only changes where the screen does.
        let symbols = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var letters: [Style: Character] = [.plain: "."]
        var order: [Style] = []
        var map: [String] = []
        for y in 0..<screen.height {
            var line = ""
            for x in 0..<screen.width {
                let style = screen[x, y].style
                if letters[style] == nil {
                    letters[style] = order.count < symbols.count ? symbols[order.count] : "?"
                    order.append(style)
                }
                line.append(letters[style]!)
            }
            map.append(line)
        }
        let roles = Dictionary(grouping: ThemeRole.allCases, by: { palette[$0] })
        var text = screen.lines().joined(separator: "\n")
        text += "\n-- styles --\n" + map.joined(separator: "\n")
        text += "\n-- legend --\n"
        for style in order {
            let names = roles[style]?.map(\.rawValue).joined(separator: " ") ?? "(composite)"
            text += "\(letters[style]!) \(names) = \(describe(style))\n"
        }
        return text
    }

    static func describe(_ style: Style) -> String {
        var parts = ["fg " + describe(style.foreground), "bg " + describe(style.background)]
        if !style.attributes.isEmpty { parts.append(style.attributes.names) }
        return parts.joined(separator: " · ")
    }

    static func describe(_ color: Color) -> String {
        switch color {
        case .default: "default"
        case .named(let named): named.themeName
        case .indexed(let index): "\(index)"
        case .rgb(let r, let g, let b): String(format: "#%02x%02x%02x", r, g, b)
        }
    }

    /// Compares `screen` with the file `name`.txt, recording it when missing or when asked to.
    static func assertMatches(
        _ screen: Buffer, palette: Palette, named name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let actual = render(screen, palette: palette)
        let url = directory.appendingPathComponent(name + ".txt")
        let expected = try? String(contentsOf: url, encoding: .utf8)
        if recording || expected == nil {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try actual.write(to: url, atomically: true, encoding: .utf8)
            } catch {
                Issue.record("cannot write \(url.path): \(error)", sourceLocation: sourceLocation)
            }
            Issue.record(
                "recorded snapshot \(name).txt: check it, then run again without SNAPSHOT_RECORD",
                sourceLocation: sourceLocation)
            return
        }
        guard let expected, expected != actual else { return }
        let a = actual.components(separatedBy: "\n")
        let e = expected.components(separatedBy: "\n")
        let line = (0..<min(a.count, e.count)).first { a[$0] != e[$0] } ?? min(a.count, e.count)
        Issue.record(
            """
            snapshot \(name).txt differs at line \(line + 1):
              expected: \(line < e.count ? e[line] : "<end>")
              actual:   \(line < a.count ? a[line] : "<end>")
            If the change is intended: SNAPSHOT_RECORD=1 swift test --filter DashboardSnapshots
            """, sourceLocation: sourceLocation)
    }
}
