import Testing

@testable import TerminalUI

@Suite struct ThemeParserTests {
    @Test func parsesColoursFallbacksAndAttributes() throws {
        let source = """
            # a comment
            name = "Test"
            text      = "#d0d0d0/252/white"   # trailing comment
            selection = "fg=#000000/16/black bg=#5fafff/75/cyan bold mono=reverse"
            muted     = "grey dim"
            border    = ""
            """
        let theme = try ThemeParser.parse(source, file: "t.theme")
        #expect(theme.name == "Test")
        #expect(theme.spec(for: .text) == StyleSpec(foreground: [.rgb(0xd0, 0xd0, 0xd0), .indexed(252), .named(.white)]))
        #expect(
            theme.spec(for: .selection)
                == StyleSpec(
                    foreground: [.rgb(0, 0, 0), .indexed(16), .named(.black)],
                    background: [.rgb(0x5f, 0xaf, 0xff), .indexed(75), .named(.cyan)],
                    attributes: .bold, mono: .reverse))
        #expect(theme.spec(for: .muted) == StyleSpec(foreground: [.named(.brightBlack)], attributes: .dim))
        #expect(theme.spec(for: .border) == StyleSpec())
        // Roles the file leaves out come from the built-in default.
        #expect(theme.spec(for: .heat3) == Theme.builtinDefault.spec(for: .heat3))
    }

    @Test func resolvesForEachColorSupport() throws {
        let theme = try ThemeParser.parse(
            #"selection = "fg=#000000/16/black bg=#5fafff/75/cyan bold mono=reverse""#, file: "t.theme")
        let truecolor = theme.palette(for: .truecolor)[.selection]
        #expect(truecolor == Style(foreground: .rgb(0, 0, 0), background: .rgb(0x5f, 0xaf, 0xff), attributes: .bold))
        #expect(
            theme.palette(for: .ansi256)[.selection]
                == Style(foreground: .indexed(16), background: .indexed(75), attributes: .bold))
        #expect(
            theme.palette(for: .ansi16)[.selection]
                == Style(foreground: .named(.black), background: .named(.cyan), attributes: .bold))
        #expect(theme.palette(for: .none)[.selection] == Style(attributes: .reverse))
    }

    @Test func hexOnlyIsDowngradedToNearest() throws {
        let theme = try ThemeParser.parse(##"accent = "#5fafff""##, file: "t.theme")
        #expect(theme.palette(for: .truecolor)[.accent].foreground == .rgb(0x5f, 0xaf, 0xff))
        #expect(theme.palette(for: .ansi256)[.accent].foreground == .indexed(75))
        #expect(theme.palette(for: .ansi16)[.accent].foreground == .named(.brightBlue))
        // Index 196 (#ff0000) at 16 colours is bright red.
        #expect(ColorSupport.ansi16.downgrade(.indexed(196)) == .named(.brightRed))
        #expect(ColorSupport.ansi256.downgrade(.rgb(0x80, 0x80, 0x80)) == .indexed(244))
        #expect(ColorSupport.ansi256.downgrade(.rgb(0xff, 0x87, 0x00)) == .indexed(208))
    }

    @Test func withoutColourOnlyAttributesRemain() throws {
        let palette = Theme.builtinDefault.palette(for: .none)
        for role in ThemeRole.allCases {
            #expect(palette[role].foreground == .default, "\(role)")
            #expect(palette[role].background == .default, "\(role)")
        }
        #expect(palette[.selection].attributes == .reverse)
        #expect(palette[.title].attributes.contains(.bold))
        #expect(palette[.marked].attributes == [.bold, .underline])
    }

    @Test(arguments: [
        ("text = \"#12345g\"", 1, "unknown colour \"#12345g\" (hex colours are #rrggbb)"),
        ("text = \"300\"", 1, "colour index 300 is out of range 0…255"),
        (
            "text = \"fuchsia\"", 1,
            "unknown word \"fuchsia\" (expected colours, fg=…, bg=…, bold, dim, italic, underline, reverse or mono=…)"
        ),
        ("text = \"bright-cyn\"", 1, "unknown colour \"bright-cyn\""),
        (
            "text = \"red blink\"", 1,
            "unknown word \"blink\" (expected colours, fg=…, bg=…, bold, dim, italic, underline, reverse or mono=…)"
        ),
        ("text = \"red fg=blue\"", 1, "foreground given twice"),
        ("text = \"bg=red bg=blue\"", 1, "background given twice"),
        (
            "text = \"mono=flashy\"", 1,
            "unknown attribute \"flashy\" in mono= (use bold, dim, italic, underline, reverse or none)"
        ),
        ("\n\ntxet = \"red\"", 3, "unknown role \"txet\" (did you mean \"text\"?)"),
        ("wibble = \"red\"", 1, "unknown role \"wibble\""),
        ("text = red", 1, "value of \"text\" must be in double quotes, with only a # comment after it"),
        ("text = \"red\" extra", 1, "value of \"text\" must be in double quotes, with only a # comment after it"),
        ("# ok\ntext \"red\"", 2, "expected key = \"value\""),
        ("text = \"red\"\ntext = \"blue\"", 2, "\"text\" is set twice (first on line 1)"),
    ])
    func brokenLinesAreReportedWithFileAndLine(source: String, line: Int, message: String) {
        #expect(throws: ThemeError.invalid([ThemeDiagnostic(file: "Themes/broken.theme", line: line, message: message)])) {
            try ThemeParser.parse(source, file: "Themes/broken.theme")
        }
    }

    @Test func everyBadLineIsReportedAtOnce() {
        let source = "text = \"#12345g\"\nmuted = \"dim\"\naccent = \"bold blink\"\n"
        do {
            _ = try ThemeParser.parse(source, file: "Themes/broken.theme")
            Issue.record("expected an error")
        } catch {
            #expect(
                error.description == """
                    Themes/broken.theme:1: unknown colour "#12345g" (hex colours are #rrggbb)
                    Themes/broken.theme:3: unknown word "blink" (expected colours, fg=…, bg=…, bold, dim, italic, underline, reverse or mono=…)
                    """)
        }
    }

    @Test func crlfLineEndingsParse() throws {
        let theme = try ThemeParser.parse("# c\r\ntext = \"red\"\r\n", file: "t.theme")
        #expect(theme.spec(for: .text).foreground == [.named(.red)])
    }
}
