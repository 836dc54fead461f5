import Testing

@testable import TerminalUI

@Suite struct WidgetTests {
    let palette = Palette.builtinDefault(.ansi256)
    let mono = Palette.builtinDefault(.none)

    func draw(_ widget: some Widget, width: Int, height: Int, palette: Palette? = nil) -> Buffer {
        var buffer = Buffer(width: width, height: height)
        widget.render(in: buffer.area, buffer: &buffer, palette: palette ?? self.palette)
        return buffer
    }

    // MARK: Table

    var table: Table {
        Table(
            columns: [.init("ID", width: .fill()), .init("Paid", width: .fixed(4), alignment: .right)],
            rows: (1...5).map { Table.Row(["sub\($0)", "\($0 * 3)"], isMarked: $0 == 2) },
            selected: 3, offset: 0, sort: .init(column: 1, ascending: false), showsMarkGutter: true)
    }

    @Test func tableDrawsHeaderSortIndicatorMarksAndScrollsToSelection() {
        let buffer = draw(table, width: 12, height: 4)
        #expect(
            buffer.lines() == [
                " ID     Pa…↓",
                "*sub2      6",
                " sub3      9",
                " sub4     12",
            ])
        #expect(buffer[1, 0].style == palette[.header])
        #expect(buffer[11, 0].style == palette[.header].patched(with: palette[.sortIndicator]))
        #expect(buffer[3, 1].style == palette[.text].patched(with: palette[.marked]))
        #expect(buffer[3, 3].style == palette[.selection])
        #expect(buffer[3, 2].style == palette[.text])
    }

    @Test func scrollOffsetKeepsSelectionVisible() {
        #expect(Table.scrollOffset(selected: 3, offset: 0, visibleRows: 3) == 1)
        #expect(Table.scrollOffset(selected: 0, offset: 2, visibleRows: 3) == 0)
        #expect(Table.scrollOffset(selected: 3, offset: 2, visibleRows: 3) == 2)
        #expect(Table.scrollOffset(selected: nil, offset: 2, visibleRows: 3) == 2)
    }

    @Test func tableWithoutColourStillShowsSelectionAndMarks() {
        let buffer = draw(table, width: 12, height: 4, palette: mono)
        #expect(buffer[3, 3].style == Style(attributes: .reverse))
        #expect(buffer[3, 1].style.attributes == [.bold, .underline])
    }

    // MARK: HeatGrid

    @Test func heatGridColoursRatesAndDashesCensoredCells() {
        let grid = HeatGrid(
            rowLabels: ["2025-01", "2025-02"], columnLabels: ["M1", "M2"],
            values: [[0.95, 0.5], [0.1, nil]], cellWidth: 4)
        let buffer = draw(grid, width: 18, height: 3)
        #expect(
            buffer.lines() == [
                "          M1   M2 ",
                "2025-01  95%  50% ",
                "2025-02  10%    – ",
            ])
        #expect(buffer[9, 1].style == palette[.heat5])
        #expect(buffer[14, 1].style == palette[.heat3])
        #expect(buffer[9, 2].style == palette[.heat0])
        #expect(buffer[16, 2].style == palette[.muted])
    }

    @Test func heatGridUsesShadesWithoutColour() {
        let grid = HeatGrid(rowLabels: ["a"], columnLabels: ["1", "2", "3", "4"], values: [[0.95, 0.5, nil, 1]], cellWidth: 4)
        #expect(
            draw(grid, width: 22, height: 2, palette: mono).lines() == [
                "     1    2    3    4 ",
                "a █95% ▒50%    – 100% ",
            ])
        #expect(HeatGrid.shade(for: 0) == " ")
        #expect(HeatGrid.shade(for: 0.25) == "░")
        #expect(HeatGrid.shade(for: 1) == "█")
    }

    // MARK: Sparkline, TimelineBar

    @Test func sparklineScalesToTheMaximumAndShowsTheLatestValues() {
        #expect(Sparkline(values: [0, 1, 2, 4, 8]).glyphs(width: 5) == " ▁▂▄█")
        #expect(Sparkline(values: [0, 1, 2, 4, 8]).glyphs(width: 3) == "▂▄█")
        #expect(Sparkline(values: [5, 10], maximum: 20).glyphs(width: 2) == "▂▄")
        let buffer = draw(Sparkline(values: [1, 2], role: .success), width: 3, height: 2)
        #expect(buffer.lines() == ["   ", "▄█ "])
        #expect(buffer[0, 1].style == palette[.success])
    }

    @Test func timelineBarDrawsSegmentsAndMarkers() {
        let bar = TimelineBar(
            range: 0..<10,
            segments: [
                .init(start: 0, end: 4, role: .freeTrial), .init(start: 4, end: 8, role: .standard),
                .init(start: 6, end: 7, role: .billingRetry), .init(start: 8, end: 9, role: .gap),
            ], markers: [.init(at: 4, symbol: "▲")])
        let buffer = draw(bar, width: 10, height: 2)
        #expect(buffer.lines() == ["████████─ ", "    ▲     "])
        #expect(buffer[0, 0].style == palette[.freeTrial])
        #expect(buffer[6, 0].style == palette[.billingRetry])
        #expect(buffer[4, 1].style == palette[.marker])
        #expect(draw(bar, width: 10, height: 1, palette: mono).lines() == ["░░░░▲█x█─ "])
    }

    @Test func timelineBarNeverHidesAShortSegment() {
        // A refund of 0.4 columns holds no column's midpoint, yet gets the column it falls in.
        let bar = TimelineBar(
            range: 0..<100,
            segments: [
                .init(start: 0, end: 52, role: .standard), .init(start: 52, end: 56, role: .refund),
                .init(start: 56, end: 100, role: .gap),
            ])
        #expect(draw(bar, width: 10, height: 1, palette: mono).lines() == ["█████!────"])
        // …but not over the only column of another segment.
        let crowded = TimelineBar(
            range: 0..<100,
            segments: [
                .init(start: 0, end: 50, role: .standard), .init(start: 50, end: 59, role: .billingRetry),
                .init(start: 59, end: 60, role: .refund), .init(start: 60, end: 100, role: .gap),
            ])
        #expect(draw(crowded, width: 10, height: 1, palette: mono).lines() == ["█████x────"])
    }

    @Test func timelineBarUsesTexturesForRolesWithoutColour() throws {
        // The mono theme keeps colour support but gives the timeline roles no colour.
        let theme = try ThemeParser.parse("freeTrial = \"\"\nrefund = \"bold\"\n", file: "plain.theme")
        let plain = theme.palette(for: .truecolor)
        #expect(TimelineBar.glyph(for: .freeTrial, palette: plain) == "░")
        #expect(TimelineBar.glyph(for: .refund, palette: plain) == "!")
        #expect(TimelineBar.glyph(for: .freeTrial, palette: palette) == "█")
        #expect(TimelineBar.glyph(for: .freeTrial, palette: mono) == "░")
    }

    // MARK: Tabs, HelpBar, Breadcrumbs, Spinner

    @Test func tabsNumberTitlesAndHighlightTheActiveOne() {
        let buffer = draw(Tabs(titles: ["Subs", "Cohorts", "Offers"], active: 1), width: 24, height: 1)
        #expect(buffer.lines() == [" 1 Subs  2 Cohorts  3 Of"])
        #expect(buffer[1, 0].style == palette[.tab])
        #expect(buffer[9, 0].style == palette[.tabActive])
    }

    @Test func helpBarKeepsWholeHints() {
        let bar = HelpBar(["?": "help", "/": "filter", "q": "quit"])
        #expect(draw(bar, width: 20, height: 1).lines() == ["? help  / filter    "])
        #expect(bar.fittingCount(width: 23) == 2)
        #expect(bar.fittingCount(width: 24) == 3)
        #expect(draw(HelpBar(["ctrl-s": "export csv"]), width: 12, height: 1).lines() == ["ctrl-s expo…"])
        let buffer = draw(bar, width: 20, height: 1)
        #expect(buffer[0, 0].style == palette[.helpKey])
        #expect(buffer[2, 0].style == palette[.helpText])
    }

    @Test func breadcrumbsElideFromTheLeft() {
        #expect(draw(Breadcrumbs(["Subs", "42"]), width: 16, height: 1).lines() == [" Subs  ›  42    "])
        #expect(
            draw(Breadcrumbs(["Subscribers", "1000000123", "Timeline"]), width: 20, height: 1).lines() == ["… ›  Timeline       "]
        )
        let buffer = draw(Breadcrumbs(["Subs", "42"]), width: 16, height: 1)
        #expect(buffer[10, 0].style == palette[.crumbActive])
    }

    @Test func spinnerAdvancesPerTick() {
        #expect(Spinner(tick: 0).frame == "⠋")
        #expect(Spinner(tick: 11).frame == "⠙")
        #expect(
            draw(Spinner(tick: 2, label: "loading", frames: Spinner.asciiFrames), width: 10, height: 1).lines() == ["- loading "])
    }

    // MARK: Dialog, Border

    @Test func dialogIsCentredWithTitleMessageAndButtons() {
        let dialog = Dialog(title: "Flag", message: "Flag 3 subscribers?", buttons: ["Yes", "No"], selectedButton: 1)
        var buffer = Buffer(width: 27, height: 8)
        dialog.render(in: buffer.area, buffer: &buffer, palette: palette)
        #expect(
            buffer.lines() == [
                "                           ",
                "  ┌ Flag ───────────────┐  ",
                "  │                     │  ",
                "  │ Flag 3 subscribers? │  ",
                "  │                     │  ",
                "  │   [ Yes ]  [ No ]   │  ",
                "  └─────────────────────┘  ",
                "                           ",
            ])
        #expect(buffer[16, 5].style == palette[.selection])
        #expect(buffer[7, 5].style == palette[.dialog])
        #expect(buffer[2, 1].style == palette[.dialog].patched(with: palette[.borderFocused]))
    }

    @Test func dialogKeys() {
        var dialog = Dialog(title: "t", message: "m", buttons: ["Flag", "Cancel"])
        #expect(dialog.handle(.init(.right)) == .pending)
        #expect(dialog.selectedButton == 1)
        #expect(dialog.handle(.init(.enter)) == .chosen(1))
        #expect(dialog.handle(.char("f")) == .chosen(0))
        #expect(dialog.handle(.init(.esc)) == .cancelled)
        #expect(Dialog.wrap("one two three four", width: 9) == ["one two", "three", "four"])
    }

    @Test func borderDrawsFrameAndTitle() {
        #expect(
            draw(Border(title: "Cohorts"), width: 12, height: 3).lines() == [
                "┌ Cohorts ─┐",
                "│          │",
                "└──────────┘",
            ])
    }
}
