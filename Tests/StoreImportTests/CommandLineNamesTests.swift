import Foundation
import TestSupport
import Testing

/// What the command line prints and accepts: tables aligned in terminal cells, `keys`, and the
/// enumerated options (`--versions`, `--color`).
@Suite struct CommandLineNamesTests {
    /// Terminal cells of `text`: two for the CJK characters these tests use, one for the rest.
    static func cells<S: StringProtocol>(_ text: S) -> Int {
        text.unicodeScalars.reduce(0) { $0 + ((0x3000...0x9FFF).contains($1.value) ? 2 : 1) }
    }

    @Test func aTableWithJapaneseTextStaysAligned() throws {
        let dir = try CommandLineSafetyTests.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try CommandLineSafetyTests.storeWithOneSubscription(dir)
        let name = "山田太郎子"  // 5 characters, 10 cells: wider than the "operator" header
        #expect(
            try Subdash.run([
                "flag", CommandLineSafetyTests.exampleId, "--offer", "loyalty",
                "--operator", name, "--db", db,
            ]).status == 0)
        let result = try Subdash.run(["flags", "--db", db])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count >= 3, "\(result.stdout)")
        // subscription, offer, operator: the rule under the header gives each column's cells.
        let runs = lines[1].split(separator: " ").map(\.count)
        #expect(runs[2] == 10)
        let operatorEnd = runs[0] + 2 + runs[1] + 2 + runs[2]
        let row = lines[2]
        let nameRange = try #require(row.range(of: name))
        #expect(Self.cells(row[..<nameRange.upperBound]) == operatorEnd)
        #expect(row[nameRange.upperBound...].hasPrefix("  2"), "the at column follows after two spaces: \(row)")
        let header = lines[0]
        let at = try #require(header.range(of: "  at  "))
        #expect(Self.cells(header[..<at.lowerBound]) == operatorEnd)
    }

    @Test func keysPrintsATableAndMarkdownPrintsTheDocument() throws {
        let markdown = try Subdash.run(["keys", "--markdown"])
        #expect(markdown.status == 0)
        let document = try String(contentsOf: packageRoot.appendingPathComponent("docs/keybindings.md"), encoding: .utf8)
        #expect(markdown.stdout == document)
        let table = try Subdash.run(["keys"])
        #expect(table.status == 0)
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("key") == true && lines.first?.contains("what it does") == true)
        #expect(lines.contains { $0.hasPrefix("q ") && $0.contains("all") && $0.contains("Quit the dashboard") })
        #expect(!table.stdout.contains("|---|"))
    }

    @Test func generateTakesVersionsAndStillTheOldFormatName() throws {
        let dir = try CommandLineSafetyTests.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let v1 = try Subdash.run(["generate", "--subscribers", "3", "--versions", "v1", "--out", dir + "/a"])
        #expect(v1.status == 0, "\(v1.stderr)")
        #expect(v1.stdout.contains(" v1 and 0 v2 documents"))
        let old = try Subdash.run(["generate", "--subscribers", "3", "--format", "v1", "--out", dir + "/b"])
        #expect(old.status == 0, "\(old.stderr)")
        #expect(old.stdout.contains(" v1 and 0 v2 documents"))
        #expect(old.stderr.contains("--format is deprecated; use --versions"))
        let help = try Subdash.run(["generate", "--help"]).stdout
        #expect(help.contains("--versions") && help.contains("v1, v2, both") && !help.contains("--format"))
    }

    @Test func colorTakesOnlyItsValues() throws {
        let result = try Subdash.run(["dashboard", "--color", "sometimes", "--db", "/nonexistent/x.sqlite"])
        #expect(result.status == 64 || result.status == 2)
        #expect(result.stderr.contains("'auto'") && result.stderr.contains("'always'") && result.stderr.contains("'never'"))
    }
}
