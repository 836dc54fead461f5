import Foundation
import TerminalUI

/// An aligned text table: headers, right-aligned numbers, an optional totals row, and an optional
/// note under it that takes no part in the column widths. Widths are terminal cells, not
/// characters: a Japanese product name takes two cells a character.
public struct TextTable {
    public var headers: [String]
    public var rows: [[String]] = []
    /// Columns aligned right (numbers, percentages).
    public var rightAligned: Set<Int> = []
    public var footer: [String]? = nil
    /// A line under the table (a summary sentence): printed as it is, never widening a column.
    public var note: String? = nil

    public init(
        headers: [String], rows: [[String]] = [], rightAligned: Set<Int> = [], footer: [String]? = nil, note: String? = nil
    ) {
        self.headers = headers
        self.rows = rows
        self.rightAligned = rightAligned
        self.footer = footer
        self.note = note
    }

    /// Cells are shown through ``TextSanitizer/visible(_:)`` (they may come from imported data),
    /// before their widths are measured so the columns stay aligned.
    public func render() -> String {
        let headers = self.headers.map(TextSanitizer.visible)
        let rows = self.rows.map { $0.map(TextSanitizer.visible) }
        let footer = self.footer.map { $0.map(TextSanitizer.visible) }
        let all = [headers] + rows + (footer.map { [$0] } ?? [])
        var widths = [Int](repeating: 0, count: headers.count)
        for row in all {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.displayWidth) }
        }
        func line(_ row: [String]) -> String {
            var parts: [String] = []
            for (i, cell) in row.enumerated() where i < widths.count {
                parts.append(cell.padded(toWidth: widths[i], alignment: rightAligned.contains(i) ? .right : .left))
            }
            return parts.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var out = [line(headers), widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")]
        out += rows.map(line)
        if let footer {
            out.append(widths.map { String(repeating: "─", count: $0) }.joined(separator: "  "))
            out.append(line(footer))
        }
        if let note {
            out.append(widths.map { String(repeating: "─", count: $0) }.joined(separator: "  "))
            out.append(note)
        }
        return out.joined(separator: "\n")
    }
}
