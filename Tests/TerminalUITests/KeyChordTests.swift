import Foundation
import Testing

@testable import TerminalUI

@Suite struct KeyChordTests {
    @Test(arguments: [
        ("ctrl-s", [KeyEvent(.ctrl("s"))], "ctrl-s"),
        ("C-S", [KeyEvent(.ctrl("s"))], "ctrl-s"),
        ("g s", [KeyEvent(.char("g")), KeyEvent(.char("s"))], "g s"),
        ("shift-tab", [KeyEvent(.backTab)], "shift-tab"),
        ("shift-g", [KeyEvent(.char("G"))], "G"),
        ("?", [KeyEvent(.char("?"))], "?"),
        ("-", [KeyEvent(.char("-"))], "-"),
        ("space", [KeyEvent(.char(" "))], "space"),
        ("ctrl-space", [KeyEvent(.ctrlSpace)], "ctrl-space"),
        ("alt-x", [KeyEvent(.char("x"), alt: true)], "alt-x"),
        ("enter esc", [KeyEvent(.enter), KeyEvent(.esc)], "enter esc"),
        ("pgup pgdn home end", [KeyEvent(.pageUp), KeyEvent(.pageDown), KeyEvent(.home), KeyEvent(.end)], "pgup pgdn home end"),
        ("up ↓", [KeyEvent(.up), KeyEvent(.down)], "↑ ↓"),
        ("f5", [KeyEvent(.function(5))], "f5"),
        ("ctrl-\\", [KeyEvent(.ctrl("\\"))], "ctrl-\\"),
    ])
    func parsesAndDisplays(text: String, keys: [KeyEvent], display: String) throws {
        let chord = try KeyChord(parsing: text)
        #expect(chord.keys == keys)
        #expect(chord.description == display)
        #expect(try KeyChord(parsing: chord.description) == chord)
    }

    @Test(arguments: [
        ("", "no key given"),
        ("ctrl-1", "\"ctrl-1\" is not a control key (ctrl-a…ctrl-z, ctrl-space, ctrl-\\, ctrl-], ctrl-^, ctrl-_)"),
        ("shift-up", "\"shift-up\" cannot be told apart by a terminal (only shift-tab and shift-letter)"),
        ("hyper-x", "unknown key \"hyper-x\""),
        ("f99", "unknown key \"f99\""),
    ])
    func rejects(text: String, reason: String) {
        #expect(throws: KeyChordError(text: text, reason: reason)) { try KeyChord(parsing: text) }
    }

    @Test func prefixMatching() throws {
        let chord = try KeyChord(parsing: "g s")
        #expect(chord.hasPrefix([.char("g")]))
        #expect(chord.hasPrefix([.char("g"), .char("s")]))
        #expect(!chord.hasPrefix([.char("s")]))
    }
}

@Suite struct TextSanitizerTests {
    @Test(arguments: [
        ("plain text", "plain text"),
        ("\u{1B}[31mred\u{1B}[0m", "red"),
        ("title\u{1B}]0;pwned\u{07}after", "titleafter"),
        ("osc\u{1B}]8;;http://x\u{1B}\\link", "osclink"),
        ("a\u{9B}2Jb", "ab"),
        ("bell\u{07}back\u{08}", "bellback"),
        ("line\none\ttwo\r\n", "line one two "),
        ("c1\u{85}\u{9C}x", "c1x"),
        ("rtl\u{202E}gnp.exe", "rtlgnp.exe"),
        ("日本\u{1B}(Bok", "日本ok"),
        ("trailing\u{1B}", "trailing"),
    ])
    func strips(input: String, output: String) {
        #expect(TextSanitizer.strip(input) == output)
    }
}

@Suite struct ColorSupportTests {
    @Test func detection() {
        #expect(ColorSupport.detect(choice: .auto, environment: [:], terminalColors: 256) == .ansi256)
        #expect(ColorSupport.detect(choice: .auto, environment: ["COLORTERM": "truecolor"], terminalColors: 256) == .truecolor)
        #expect(ColorSupport.detect(choice: .auto, environment: [:], terminalColors: 8) == .ansi16)
        #expect(ColorSupport.detect(choice: .auto, environment: ["NO_COLOR": "1"], terminalColors: 256) == .none)
        #expect(ColorSupport.detect(choice: .auto, environment: ["NO_COLOR": ""], terminalColors: 256) == .ansi256)
        #expect(ColorSupport.detect(choice: .auto, environment: ["TERM": "dumb"], terminalColors: 256) == .none)
        #expect(ColorSupport.detect(choice: .always, environment: ["NO_COLOR": "1"], terminalColors: 256) == .ansi256)
        #expect(ColorSupport.detect(choice: .always, environment: [:], terminalColors: -1) == .ansi16)
        #expect(ColorSupport.detect(choice: .never, environment: [:], terminalColors: 256) == .none)
    }

    @Test func pickTakesTheFirstUsableAlternative() {
        let alternatives: [Color] = [.rgb(1, 2, 3), .indexed(75), .named(.cyan)]
        #expect(ColorSupport.truecolor.pick(alternatives) == .rgb(1, 2, 3))
        #expect(ColorSupport.ansi256.pick(alternatives) == .indexed(75))
        #expect(ColorSupport.ansi16.pick(alternatives) == .named(.cyan))
        #expect(ColorSupport.none.pick(alternatives) == .default)
        #expect(ColorSupport.ansi16.pick([.indexed(75)]) == .named(.brightBlue))
        #expect(ColorSupport.ansi256.pick([]) == .default)
    }

    @Test func nearestPaletteColours() {
        #expect(ColorSupport.nearest256(red: 0x5f, green: 0xaf, blue: 0xff) == 75)
        #expect(ColorSupport.nearest256(red: 0, green: 0, blue: 0) == 16)
        #expect(ColorSupport.nearest256(red: 0xee, green: 0xee, blue: 0xee) == 255)
        #expect(ColorSupport.nearest256(red: 0x30, green: 0x30, blue: 0x30) == 236)
        #expect(ColorSupport.nearest16(red: 250, green: 10, blue: 10) == .brightRed)
        #expect(ColorSupport.nearest16(red: 0, green: 150, blue: 0) == .green)
    }
}

@Suite struct VisibleTextTests {
    @Test(arguments: [
        ("plain text, ünïcode 日本", "plain text, ünïcode 日本"),
        ("evil\u{1B}]0;pwned\u{07}\u{1B}[2J", "evil\\x1b]0;pwned\\x07\\x1b[2J"),
        ("clip\u{1B}]52;c;aGk=\u{1B}\\", "clip\\x1b]52;c;aGk=\\x1b\\"),
        ("a\u{9B}2Jb\u{7F}", "a\\x9b2Jb\\x7f"),
        ("line\none\ttwo\r", "line\\x0aone\\x09two\\x0d"),
        ("rtl\u{202E}gnp.exe\u{2066}x\u{2069}", "rtl\\u{202E}gnp.exe\\u{2066}x\\u{2069}"),
        ("nul\u{0}", "nul\\x00"),
    ])
    func controlsAreShownNotActedOn(input: String, output: String) {
        #expect(TextSanitizer.visible(input) == output)
    }

    @Test func linesKeepTheirBreaks() {
        #expect(TextSanitizer.visibleLines("a\u{1B}[31m\nb\n") == "a\\x1b[31m\nb\n")
        #expect(TextSanitizer.visibleLines("a\r\nb") == "a\\x0d\nb")
    }

    @Test func jsonKeepsItsMeaningAndLosesWhatATerminalWouldActOn() throws {
        let value = "type\u{9B}2J\u{85}\u{202E}x\u{2066}\u{2028}\u{7F}"
        let json = String(
            decoding: try JSONSerialization.data(withJSONObject: ["t": value], options: [.prettyPrinted]), as: UTF8.self)
        let shown = TextSanitizer.jsonVisible(json)
        #expect(shown.contains(#""type\u009b2J\u0085\u202ex\u2066\u2028\u007f""#), "\(shown)")
        #expect(!shown.unicodeScalars.contains { TextSanitizer.needsEscape($0) && !["\n", " "].contains($0) })
        let back = try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: String]
        #expect(back == ["t": value])
    }
}
