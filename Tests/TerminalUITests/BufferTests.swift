import Testing

@testable import TerminalUI

@Suite struct BufferTests {
    @Test func setClipsToWidthAndMaxWidth() {
        var buffer = Buffer(width: 6, height: 2)
        #expect(buffer.set(string: "hello world", at: Position(x: 1, y: 0)) == 6)
        buffer.set(string: "abcdef", at: Position(x: 0, y: 1), maxWidth: 3)
        buffer.set(string: "zzz", at: Position(x: 0, y: 5))
        #expect(buffer.lines() == [" hello", "abc   "])
    }

    @Test func wideGraphemesTakeTwoCellsAndNeverHalf() {
        var buffer = Buffer(width: 5, height: 1)
        buffer.set(string: "日本語", at: Position(x: 0, y: 0))
        #expect(buffer.lines() == ["日本 "])  // 語 would stick out: not drawn
        #expect(buffer[1, 0].isContinuation)
        buffer.set(string: "x", at: Position(x: 1, y: 0))  // overwrite the right half of 日
        #expect(buffer.lines() == [" x本 "])
        buffer.set(string: "y", at: Position(x: 2, y: 0))  // overwrite the left half of 本
        #expect(buffer.lines() == [" xy  "])
    }

    @Test func zeroWidthAndControlCharactersAreSkipped() {
        var buffer = Buffer(width: 4, height: 1)
        buffer.set(string: "a\u{7}b\u{200B}c", at: Position(x: 0, y: 0))
        #expect(buffer.lines() == ["abc "])
        var combining = Buffer(width: 3, height: 1)
        combining.set(string: "e\u{301}x", at: Position(x: 0, y: 0))
        #expect(combining[0, 0].symbol == "e\u{301}")
        #expect(combining.lines() == ["e\u{301}x "])
    }

    @Test func diffReportsChangedRuns() {
        let old = Buffer(lines: ["abcdef", "ghijkl"])
        var new = old
        new.set(string: "XY", at: Position(x: 2, y: 0))
        new.set(string: "Z", at: Position(x: 5, y: 1))
        let runs = new.diff(from: old)
        #expect(runs.map { [$0.x, $0.y, $0.cells.count] } == [[2, 0, 2], [5, 1, 1]])
        #expect(runs[0].cells.map(\.symbol) == ["X", "Y"])
        #expect(new.diff(from: new).isEmpty)
    }

    @Test func diffOfAStyleChangeAndOfAnotherSize() {
        let old = Buffer(lines: ["abc"])
        var new = old
        new.setStyle(Style(attributes: .bold), in: Rect(x: 1, y: 0, width: 1, height: 1))
        #expect(new.diff(from: old) == [BufferRun(x: 1, y: 0, cells: [Cell(symbol: "b", style: Style(attributes: .bold))])])
        #expect(new.diff(from: Buffer(width: 0, height: 0)).map(\.cells.count) == [3])
    }

    @Test func diffStartingOnAContinuationTakesItsLead() {
        var old = Buffer(width: 4, height: 1)
        old.set(string: "日", at: Position(x: 0, y: 0), style: Style(attributes: .bold))
        var new = Buffer(width: 4, height: 1)
        new.set(string: "日", at: Position(x: 0, y: 0), style: Style(attributes: .bold))
        new[1, 0] = Cell.continuation(style: Style(attributes: .dim))
        let runs = new.diff(from: old)
        #expect(runs.first?.x == 0)
    }

    @Test(arguments: [
        ("abc", 3), ("日本", 4), ("e\u{301}", 1), ("👍", 2), ("👍🏽", 2), ("👨‍👩‍👧", 2), ("❤️", 2), ("🇫🇷", 2),
        ("ｱ", 1), ("Ａ", 2), ("한국어", 6), ("\u{1B}[31m", 4), ("", 0),
    ])
    func displayWidth(text: String, columns: Int) {
        #expect(text.displayWidth == columns)
    }

    @Test func truncationAndPadding() {
        #expect("subscriptions".truncated(toWidth: 6) == "subsc…")
        #expect("日本語".truncated(toWidth: 4) == "日…")
        #expect("ab".padded(toWidth: 4, alignment: .right) == "  ab")
        #expect("ab".padded(toWidth: 5, alignment: .center) == " ab  ")
        #expect("日本語".padded(toWidth: 5) == "日本…")
    }
}

@Suite struct LayoutTests {
    let area = Rect(x: 0, y: 0, width: 100, height: 10)

    @Test func fixedPercentageAndFill() {
        let parts = Layout.horizontal([.fixed(10), .percentage(50), .fill()]).split(area)
        #expect(parts.map(\.width) == [10, 50, 40])
        #expect(parts.map(\.x) == [0, 10, 60])
    }

    @Test func fillsShareByWeightWithTheRemainderToEarlierParts() {
        #expect(Layout.horizontal([.fill(1), .fill(2)]).split(area).map(\.width) == [34, 66])
        #expect(Layout.horizontal([.fill(), .fill(), .fill()]).split(area).map(\.width) == [34, 33, 33])
    }

    @Test func minGrowsOnlyWithoutFill() {
        #expect(Layout.horizontal([.min(10), .fixed(20)]).split(area).map(\.width) == [80, 20])
        #expect(Layout.horizontal([.min(10), .fill()]).split(area).map(\.width) == [10, 90])
    }

    @Test func spacingAndShortage() {
        let parts = Layout.vertical([.fixed(1), .fill(), .fixed(1)], spacing: 1).split(area)
        #expect(parts.map(\.height) == [1, 6, 1])
        #expect(parts.map(\.y) == [0, 2, 9])
        // Not enough room: earlier parts get theirs first, later ones what is left.
        #expect(Layout.vertical([.fixed(6), .fixed(6)]).split(area).map(\.height) == [6, 4])
    }

    @Test func rectHelpers() {
        #expect(area.inset(by: 1) == Rect(x: 1, y: 1, width: 98, height: 8))
        #expect(area.centered(Size(width: 10, height: 4)) == Rect(x: 45, y: 3, width: 10, height: 4))
        #expect(
            Rect(x: 0, y: 0, width: 5, height: 5).intersection(Rect(x: 3, y: 3, width: 5, height: 5))
                == Rect(x: 3, y: 3, width: 2, height: 2))
    }
}

@Suite struct LongStringTests {
    @Test func aMegabyteOfCombiningMarksIsCutToTheCellsBeforeShaping() {
        var buffer = Buffer(width: 20, height: 1)
        let marks = "x" + String(repeating: "\u{0301}", count: 1 << 20) + "y"
        let started = ContinuousClock.now
        buffer.set(string: marks, at: Position(x: 0, y: 0))
        #expect(ContinuousClock.now - started < .milliseconds(200))
        #expect(Array(buffer[0, 0].symbol.unicodeScalars) == ["x"] + Array(repeating: "\u{0301}", count: 4))
    }

    @Test func aZeroWidthJoinerSequenceTakesTheCellsOfItsFirstEmoji() {
        var buffer = Buffer(width: 10, height: 1)
        let end = buffer.set(string: "a👨\u{200D}👩\u{200D}👧b", at: Position(x: 0, y: 0))
        #expect(end == 4)
        #expect(buffer[1, 0].symbol == "👨")
        #expect(buffer[3, 0].symbol == "b")
    }
}
