import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

/// `report eligibility` written as its entries come (``SubscriberAnalytics/forEachEligible(asOf:offers:scope:offset:limit:emails:counted:_:)``):
/// the same text ``EligibilityOutput`` gives for the same list, a batch at a time, holding no more
/// than a batch, except the table's first ``tablePage`` entries (below).
///
/// The counts are those of the whole list, whatever part of it is written (`--offset`, `--limit`):
/// JSON prints them before the list, the table under it.
public struct EligibilityStream {
    public enum Format: Sendable { case json, csv, table }

    /// The table's column widths come from its first this many entries (and the headers; the
    /// offer column from the offers counted, so it is always exact): a list no longer is laid out
    /// exactly as ``EligibilityOutput/table`` lays it out; in a longer one a later, wider cell is
    /// written whole and pushes the rest of its line right.
    public static let tablePage = 1_000

    public let format: Format
    public let asOf: Instant
    /// The one offer asked for (the table's note counts only it); nil: every offer.
    public let offer: OfferFlagKind?
    private var counts: [OfferFlagKind: Int] = [:]
    private var written = 0
    /// The table's first entries, until ``tablePage`` of them (or the end) set the widths.
    private var pending: [[String]] = []
    private var widths: [Int]? = nil

    private static let tableHeaders = ["offer", "subscription", "product", "why"]
    private static let csvHeader = ["offer", "originalTransactionId", "productId", "detail"]

    public init(format: Format, asOf: Instant, offer: OfferFlagKind? = nil) {
        self.format = format
        self.asOf = asOf
        self.offer = offer
    }

    /// The text before the first entry, given the whole list's counts of each offer listed.
    public mutating func begin(counts: [OfferFlagKind: Int]) -> String {
        self.counts = counts
        switch format {
        case .json:
            var object = JSONOutputObject()
            for k in OfferFlagKind.allCases { object[k.rawValue] = .int(counts[k] ?? 0) }
            var out = "{\"asOf\":"
            JSONOutput.writeString(asOf.iso8601, to: &out)
            out += ",\"counts\":"
            JSONOutput.object(object).write(to: &out)
            out += ",\"subscribers\":["
            return out
        case .csv:
            return Self.csvHeader.map(CSV.field).joined(separator: ",") + "\n"
        case .table:
            return "Eligible as of \(asOf.asOfText)\n"
        }
    }

    /// The text of the next `rows` of the list.
    public mutating func write(_ rows: [EligibleSubscriber]) -> String {
        var out = ""
        switch format {
        case .json:
            out.reserveCapacity(rows.count * 120)
            for r in rows {
                EligibilityOutput.writeJSON(r, first: written == 0, to: &out)
                written += 1
            }
        case .csv:
            out.reserveCapacity(rows.count * 80)
            for r in rows {
                out += [r.offer.rawValue, r.originalTransactionId, r.productId, r.detail].map(CSV.field).joined(separator: ",")
                out += "\n"
            }
        case .table:
            for r in rows {
                let cells = [r.offer.rawValue, r.originalTransactionId, r.productId, r.detail].map(TextSanitizer.visible)
                if let widths {
                    out += Self.line(cells, widths) + "\n"
                } else {
                    pending.append(cells)
                    if pending.count == Self.tablePage { out += settleWidths() }
                }
            }
        }
        return out
    }

    /// The text after the last entry.
    public mutating func end() -> String {
        switch format {
        case .json:
            return "]}\n"
        case .csv:
            return ""
        case .table:
            let head = widths == nil ? settleWidths() : ""
            let kinds = offer.map { [$0] } ?? OfferFlagKind.allCases
            let note = kinds.map { k in "\(k.rawValue) \(grouped(counts[k] ?? 0))" }.joined(separator: ", ")
            return head + Self.rule(widths ?? []) + "\n" + note + "\n"
        }
    }

    /// The widths from the headers and the entries held, and the table's head and those entries.
    private mutating func settleWidths() -> String {
        var widths = Self.tableHeaders.map(\.displayWidth)
        // The offer column is exact whatever the list's length: its cells are the names of the
        // offers counted.
        for (kind, count) in counts where count > 0 { widths[0] = max(widths[0], kind.rawValue.displayWidth) }
        for row in pending {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.displayWidth) }
        }
        self.widths = widths
        var out = Self.line(Self.tableHeaders, widths) + "\n" + Self.rule(widths) + "\n"
        for row in pending { out += Self.line(row, widths) + "\n" }
        pending = []
        return out
    }

    private static func rule(_ widths: [Int]) -> String {
        widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")
    }

    /// A line as ``TextTable`` writes it (left-aligned cells two spaces apart, no trailing
    /// whitespace), except that a cell wider than its column is written whole.
    private static func line(_ cells: [String], _ widths: [Int]) -> String {
        var out = ""
        for (i, cell) in cells.enumerated() {
            if i > 0 { out += "  " }
            out += cell
            let gap = widths[i] - cell.displayWidth
            if gap > 0 { out += String(repeating: " ", count: gap) }
        }
        // `TextTable` trims `\s+$` (ICU: tab, line breaks, form feed and the Unicode separators);
        // cells have been through `TextSanitizer.visible`, which leaves only the separators.
        var scalars = out.unicodeScalars
        while let last = scalars.last,
            last == " " || last.properties.generalCategory == .spaceSeparator
                || last.properties.generalCategory == .lineSeparator || last.properties.generalCategory == .paragraphSeparator
                || last == "\t" || last == "\n" || last == "\r" || last == "\u{0C}"
        {
            scalars.removeLast()
        }
        return String(scalars)
    }
}
