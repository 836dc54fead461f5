/// How many terminal columns text takes, without asking the C library (whose `wcwidth`
/// depends on the process locale and returns -1 under `C`).
///
/// The rules follow the common terminal behaviour (and glibc's UTF-8 tables) closely enough
/// for a dashboard: East Asian Wide and Fullwidth characters and emoji presentation take two
/// columns; combining marks, format characters and variation selectors take none; a grapheme
/// cluster takes the width of its widest scalar, two if it asks for emoji presentation (U+FE0F).
public enum DisplayWidth {
    /// Columns taken by one grapheme cluster: 0, 1 or 2. Control characters take 0.
    public static func of(_ character: Character) -> Int {
        var width = 0
        for scalar in character.unicodeScalars {
            if scalar.value == 0xFE0F { return 2 }
            width = max(width, of(scalar))
        }
        return width
    }

    /// Columns taken by a string: the sum over its grapheme clusters.
    public static func of(_ string: String) -> Int {
        string.reduce(0) { $0 + of($1) }
    }

    /// Columns taken by one scalar on its own.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        if value < 0x300 { return 1 }
        if isZeroWidth(scalar) { return 0 }
        if isWide(value) || scalar.properties.isEmojiPresentation { return 2 }
        return 1
    }

    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return true }  // Hangul medial/final jamo
        if value == 0x200B { return true }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return value != 0x00AD
        default: return false
        }
    }

    /// East Asian Wide (W) and Fullwidth (F) blocks, as ranges sorted by start. Emoji are
    /// found by their `Emoji_Presentation` property instead.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
        0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
        0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
        0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF, 0x1F200...0x1F2FF,
        0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    private static func isWide(_ value: UInt32) -> Bool {
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let mid = (low + high) / 2
            let range = wideRanges[mid]
            if value < range.lowerBound { high = mid - 1 } else if value > range.upperBound { low = mid + 1 } else { return true }
        }
        return false
    }
}

extension String {
    /// Columns this string takes on a terminal (see ``DisplayWidth``).
    public var displayWidth: Int { DisplayWidth.of(self) }

    /// The longest prefix that fits in `width` columns, with `ellipsis` at the end when cut.
    /// An email cut to `width` keeping what tells one customer from another: its local part,
    /// then as much of the domain as fits (`customer0009@ex…`), else cut as any text.
    public func truncatedEmail(toWidth width: Int) -> String {
        guard displayWidth > width, let at = firstIndex(of: "@") else { return truncated(toWidth: width) }
        let local = String(self[...at])
        guard local.displayWidth + 1 <= width else { return truncated(toWidth: width) }
        return local + String(self[index(after: at)...]).truncated(toWidth: width - local.displayWidth)
    }

    public func truncated(toWidth width: Int, ellipsis: String = "…") -> String {
        guard width > 0 else { return "" }
        if displayWidth <= width { return self }
        let room = width - ellipsis.displayWidth
        guard room >= 0 else { return "" }
        var result = ""
        var used = 0
        for character in self {
            let w = DisplayWidth.of(character)
            if used + w > room { break }
            result.append(character)
            used += w
        }
        return result + ellipsis
    }

    /// This string cut to `width` columns from the start, an ellipsis in front: for text whose end is
    /// what tells it apart (`…pro.monthly` and `…pro.yearly` of `com.example.pro.monthly`).
    public func truncatedKeepingEnd(toWidth width: Int, ellipsis: String = "…") -> String {
        guard width > 0 else { return "" }
        if displayWidth <= width { return self }
        let room = width - ellipsis.displayWidth
        guard room >= 0 else { return "" }
        var kept: [Character] = []
        var used = 0
        for character in reversed() {
            let w = DisplayWidth.of(character)
            if used + w > room { break }
            kept.append(character)
            used += w
        }
        return ellipsis + String(kept.reversed())
    }

    /// This string padded with spaces (or cut) to exactly `width` columns.
    public func padded(toWidth width: Int, alignment: Alignment = .left) -> String {
        let fitted = truncated(toWidth: width)
        let gap = max(0, width - fitted.displayWidth)
        switch alignment {
        case .left: return fitted + String(repeating: " ", count: gap)
        case .right: return String(repeating: " ", count: gap) + fitted
        case .center: return String(repeating: " ", count: gap / 2) + fitted + String(repeating: " ", count: gap - gap / 2)
        }
    }
}

/// Horizontal alignment of text in a column.
public enum Alignment: Sendable, Hashable {
    case left, center, right
}
