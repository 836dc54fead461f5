import Foundation

/// RFC 4180 CSV: a header row, one record per row, fields quoted when needed. What `report --format csv`,
/// `flags --format csv` and the dashboard's exports write.
public enum CSV {
    public static func field(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    public static func render(header: [String], rows: [[String]]) -> String {
        ([header] + rows).map { $0.map(field).joined(separator: ",") }.joined(separator: "\n")
    }
}
