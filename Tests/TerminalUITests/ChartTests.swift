import Testing

@testable import TerminalUI

@Suite struct ChartTests {
    let palette = Palette.builtinDefault(.ansi256)
    let mono = Palette.builtinDefault(.none)

    func draw(_ chart: Chart, width: Int, height: Int, palette: Palette? = nil) -> Buffer {
        var buffer = Buffer(width: width, height: height)
        chart.render(in: buffer.area, buffer: &buffer, palette: palette ?? self.palette)
        return buffer
    }

    /// Active subscribers: 0, 10, 20, a gap, 40, the last month incomplete.
    var line: ChartModel {
        ChartModel(
            title: "active", labels: ["2025-01", "2025-02", "2025-03", "2025-04", "2025-05"], incomplete: [4],
            series: [ChartModel.Series(name: "active", kind: .line, values: [0, 10, 20, nil, 40], role: .accent)])
    }

    /// Movement: new and expansion above the axis, churn below, in USD.
    var bars: ChartModel {
        ChartModel(
            title: "MRR movement", labels: ["Jan", "Feb", "Mar"],
            series: [
                ChartModel.Series(name: "new", kind: .bar, values: [2000, 1000, 0], role: .success),
                ChartModel.Series(name: "expansion", kind: .bar, values: [1000, 0, 0], role: .standard),
                ChartModel.Series(name: "churn", kind: .bar, values: [-1000, -2000, 0], role: .error),
            ], unit: "USD", decimals: 2)
    }

    /// A stock as a braille line: 0 at the bottom, 20 half way, 40 at the top; April has no data
    /// (a dotted column, not a zero); May is not complete (dimmed).
    @Test func lineInBrailleWithAGapAndAnIncompleteBucket() {
        let buffer = draw(Chart(model: line, glyphs: .braille), width: 40, height: 8)
        #expect(
            buffer.lines() == [
                "active                        ⠤⠒⠤ active",
                "40┤                        ┊      ⠁     ",
                "  │                        ┊            ",
                "  │                        ┊            ",
                "20┤             ⣀⡠⠔⠊⠁      ┊            ",
                "  │        ⣀⡠⠤⠒⠉           ┊            ",
                " 0┤   ⣀⠤⠔⠊⠉                ┊            ",
                "   2025-01       2025-03       2025-05  ",
            ])
        // The incomplete bucket's point and label are dimmed; the others are not.
        #expect(buffer[34, 1].style.attributes.contains(.dim))
        #expect(buffer[31, 7].style.attributes.contains(.dim))
        #expect(!buffer[16, 4].style.attributes.contains(.dim))
        #expect(buffer[16, 4].style == palette[.accent])
    }

    @Test func lineInBlocksAndInASCII() {
        #expect(
            draw(Chart(model: line, glyphs: .block), width: 40, height: 8).lines() == [
                "active                        ▄▀▄ active",
                "40┤                        ┊      ▀     ",
                "  │                        ┊            ",
                "  │                        ┊            ",
                "20┤              ▄▄▀▀      ┊            ",
                "  │         ▄▄▄▀▀          ┊            ",
                " 0┤   ▄▄▀▀▀▀               ┊            ",
                "   2025-01       2025-03       2025-05  ",
            ])
        #expect(
            draw(Chart(model: line, glyphs: .ascii), width: 40, height: 8).lines() == [
                "active                        -*- active",
                "40+                        :      *     ",
                "  |                        :            ",
                "  |                        :            ",
                "20+              ****      :            ",
                "  |       *******          :            ",
                " 0+   ****                 :            ",
                "   2025-01       2025-03       2025-05  ",
            ])
    }

    /// Flows as signed stacked bars: January's new (2,000) under its expansion (1,000) above the
    /// axis and churn (−1,000) below it; February's churn twice as deep; March all zero (nothing
    /// drawn, unlike a gap). Each series has its own pattern, so the chart reads without colour.
    @Test func signedStackedBarsWithPatterns() {
        let expected = [
            "MRR movement     █ new  ▓ expansion  ▒ churn",
            " 4,000┤                                     ",
            "      │▓▓▓▓▓▓▓▓▓▓▓                          ",
            " 2,000┤███████████                          ",
            "      │███████████                          ",
            "     0┼███████████ ███████████              ",
            "      │▒▒▒▒▒▒▒▒▒▒▒ ▒▒▒▒▒▒▒▒▒▒▒              ",
            "-2,000┤            ▒▒▒▒▒▒▒▒▒▒▒              ",
            "   USD Jan         Feb         Mar          ",
        ]
        let coloured = draw(Chart(model: bars, glyphs: .braille), width: 44, height: 9)
        #expect(coloured.lines() == expected)
        #expect(coloured[8, 3].style == palette[.success])
        #expect(coloured[8, 6].style == palette[.error])
        // Without colour the same patterns are drawn.
        #expect(draw(Chart(model: bars, glyphs: .braille), width: 44, height: 9, palette: mono).lines() == expected)
        #expect(
            draw(Chart(model: bars, glyphs: .ascii), width: 44, height: 9).lines() == [
                "MRR movement     # new  = expansion  + churn",
                " 4,000+                                     ",
                "      |===========                          ",
                " 2,000+###########                          ",
                "      |###########                          ",
                "     0-########### ###########              ",
                "      |+++++++++++ +++++++++++              ",
                "-2,000+            +++++++++++              ",
                "   USD Jan         Feb         Mar          ",
            ])
    }

    /// The legend gives way: names cut to four characters, then none; the title stays.
    /// A comparison (the previous period) is a dashed line, told apart from a solid one without
    /// colour, that passes behind bars rather than through them.
    @Test func aDashedComparisonLinePassesBehindBars() {
        let model = ChartModel(
            title: "renewals", labels: ["A", "B", "C", "D"],
            series: [
                ChartModel.Series(name: "now", kind: .bar, values: [4, 4, 0, 0], role: .standard),
                ChartModel.Series(name: "before", kind: .line, values: [2, 2, 2, 2], role: .muted, dashed: true),
            ])
        let buffer = draw(Chart(model: model, glyphs: .ascii), width: 30, height: 7)
        let lines = buffer.lines()
        #expect(lines[0].hasSuffix("# now  . . before"), "the legend shows the dashed sample")
        // At 2 the line is hidden where the bars (up to 4) are, dashed where they are not.
        let row = lines.first { $0.hasPrefix("2+") } ?? ""
        #expect(row.contains("#"))
        #expect(row.contains("* *") && !row.contains("**"))
    }

    @Test func legendGivesWayWhenSpaceIsShort() {
        #expect(
            draw(Chart(model: bars, glyphs: .block), width: 36, height: 9).lines()[0]
                == "MRR movement   █ new  ▓ expa  ▒ chur")
        let narrow = draw(Chart(model: bars, glyphs: .block), width: 24, height: 9).lines()
        #expect(narrow[0] == "MRR movement            ")
        #expect(narrow[8] == "   USD Jan  Feb  Mar    ")
    }

    /// More buckets than columns: the latest that fit, with their labels; the cursor's label
    /// is always shown (reversed).
    @Test func latestBucketsWhenNarrowAndTheCursorLabel() {
        let values: [Double?] = (1...40).map { Double($0) }
        let model = ChartModel(
            title: "t", labels: (1...40).map { "d\($0)" },
            series: [ChartModel.Series(name: "n", kind: .bar, values: values, role: .standard)])
        let buffer = draw(Chart(model: model, glyphs: .ascii, cursor: 38), width: 20, height: 5)
        #expect(
            buffer.lines() == [
                "t                # n",
                "50+                 ",
                "  |  ###############",
                " 0+#################",
                "   d24 d28 d32   d39",
            ])
        #expect(buffer[17, 4].style == palette[.selection])
        #expect(buffer[3, 4].style == palette[.text])
    }

    @Test func ticksAndNumbers() {
        #expect(ChartModel.ticks(low: 0, high: 37, count: 5) == [0, 10, 20, 30])
        #expect(ChartModel.ticks(low: -2000, high: 3000, count: 4) == [-2000, 0, 2000])
        #expect(ChartModel.grouped(1_234_567.891, decimals: 2) == "1,234,567.89")
        #expect(ChartModel.grouped(-0.004, decimals: 2) == "0.00")
        #expect(ChartModel.grouped(-1500, decimals: 0) == "-1,500")
        #expect(ChartGlyphs.forLocale(["LANG": "en_US.UTF-8"]) == .braille)
        #expect(ChartGlyphs.forLocale(["LC_ALL": "C", "LANG": "en_US.UTF-8"]) == .block)
        #expect(ChartGlyphs.forLocale([:]) == .block)
    }
}
