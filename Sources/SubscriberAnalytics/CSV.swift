import Foundation

/// RFC 4180 CSV: a header row, one record per row, fields quoted when needed. What `report --format csv`,
/// `flags --format csv` and the dashboard's exports write.
///
/// A cell a spreadsheet would read as a formula (one beginning with `=`, `+`, `-`, `@`, a tab or a
/// carriage return) gets a leading `'`, as OWASP recommends against CSV injection: a note or an
/// operator name from outside cannot run anything in the spreadsheet that opens the export.
/// Numbers (`-3`, `-0.25`) are left as they are.
public enum CSV {
    public static func field(_ raw: String) -> String {
        let s = neutralised(raw)
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `s`, with a leading `'` when a spreadsheet would take it for a formula.
    public static func neutralised(_ s: String) -> String {
        guard let first = s.unicodeScalars.first, formulaStarts.contains(first) else { return s }
        if first == "-" || first == "+", Double(s) != nil, !s.contains(where: { $0.isLetter }) { return s }
        return "'" + s
    }

    private static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

    public static func render(header: [String], rows: [[String]]) -> String {
        ([header] + rows).map { $0.map(field).joined(separator: ",") }.joined(separator: "\n")
    }
}
