/// Makes text from payloads safe to put on screen: the one place that decides what of an
/// outside string may reach a terminal, used by every command's output, import messages and
/// the dashboard.
///
/// A subscriber id, product name or note comes from outside and could hold terminal control
/// sequences that move the cursor, change colours, retitle the window or write the clipboard.
public enum TextSanitizer {
    /// `text` with every character a terminal would act on shown as an escape instead: C0 and
    /// C1 control characters, ESC and DEL as `\x1b`, bidirectional overrides and isolates
    /// (U+202A–U+202E, U+2066–U+2069) and line/paragraph separators as `\u{202E}`. Everything
    /// else is kept, so an operator sees exactly what the input held, on one line.
    public static func visible(_ text: String) -> String {
        replacing(in: text, where: needsEscape) { scalar in
            let hex = String(scalar.value, radix: 16)
            return scalar.value < 0x100 ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{" + hex.uppercased() + "}"
        }
    }

    /// `text` with each scalar `escape` picks written as `shown` makes it.
    private static func replacing(
        in text: String, where escape: (Unicode.Scalar) -> Bool, with shown: (Unicode.Scalar) -> String
    ) -> String {
        guard text.unicodeScalars.contains(where: escape) else { return text }
        var output = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if escape(scalar) { output.append(contentsOf: shown(scalar).unicodeScalars) } else { output.append(scalar) }
        }
        return String(output)
    }

    /// ``visible(_:)`` for each line of `text`, keeping its line breaks (`\n`): for a table or
    /// a report of several lines.
    public static func visibleLines(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 != "\n" && needsEscape($0) }) else { return text }
        return text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            .map { visible(String(String.UnicodeScalarView($0))) }.joined(separator: "\n")
    }

    /// JSON text with every scalar a terminal would act on (``needsEscape(_:)``) written as a
    /// `\uXXXX` escape: JSON escapes C0 controls itself but leaves DEL, C1 controls,
    /// bidirectional overrides and line separators as they are. A JSON reader sees the same
    /// strings; a terminal showing the text (`tail -f` of a log) is not steered by it. Outside
    /// strings valid JSON holds none of them but its whitespace (tab, line feed, carriage
    /// return), which is kept; inside, an escape means the same character.
    public static func jsonVisible(_ json: String) -> String {
        func escaped(_ scalar: Unicode.Scalar) -> Bool {
            needsEscape(scalar) && scalar != "\t" && scalar != "\n" && scalar != "\r"
        }
        return replacing(in: json, where: escaped) { scalar in
            let hex = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }

    /// Whether a terminal would act on the scalar rather than draw it.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: return true
        default: return false
        }
    }

    /// `text` without escape sequences (CSI, OSC, DCS and other ESC sequences, 7- and 8-bit),
    /// C0 and C1 control characters, DEL and bidirectional overrides. Tabs and line breaks
    /// become single spaces so the text stays on one line.
    public static func strip(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            let value = scalars[i].value
            switch value {
            case 0x1B:
                i = skipEscape(scalars, from: i + 1)
                continue
            case 0x9B:
                i = skipControlSequence(scalars, from: i + 1)
                continue
            case 0x90, 0x98, 0x9D, 0x9E, 0x9F:
                i = skipString(scalars, from: i + 1)
                continue
            case 0x09, 0x0A, 0x0D:
                if output.last != " " { output.append(" ") }
            case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069:
                break
            default:
                output.append(scalars[i])
            }
            i += 1
        }
        return String(output)
    }

    /// After ESC at `from - 1`: the index just past its sequence.
    private static func skipEscape(_ s: [Unicode.Scalar], from start: Int) -> Int {
        guard start < s.count else { return start }
        switch s[start].value {
        case 0x5B: return skipControlSequence(s, from: start + 1)  // CSI
        case 0x5D, 0x50, 0x58, 0x5E, 0x5F: return skipString(s, from: start + 1)  // OSC, DCS, SOS, PM, APC
        default:
            // Intermediates, then one final character.
            var i = start
            while i < s.count, (0x20...0x2F).contains(s[i].value) { i += 1 }
            return min(s.count, i + 1)
        }
    }

    /// Parameters and intermediates up to a final byte 0x40–0x7E; a malformed sequence ends early.
    private static func skipControlSequence(_ s: [Unicode.Scalar], from start: Int) -> Int {
        var i = start
        while i < s.count {
            let v = s[i].value
            if (0x40...0x7E).contains(v) { return i + 1 }
            if !(0x20...0x3F).contains(v) { return i }
            i += 1
        }
        return i
    }

    /// A control string up to BEL, ESC \ or 8-bit ST.
    private static func skipString(_ s: [Unicode.Scalar], from start: Int) -> Int {
        var i = start
        while i < s.count {
            switch s[i].value {
            case 0x07, 0x9C: return i + 1
            case 0x1B: return (i + 1 < s.count && s[i + 1].value == 0x5C) ? i + 2 : i + 1
            default: i += 1
            }
        }
        return i
    }
}
