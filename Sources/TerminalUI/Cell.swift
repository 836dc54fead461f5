/// One column of one terminal row: a grapheme cluster and its style.
///
/// A wide grapheme (CJK, most emoji) occupies two cells: the first holds the grapheme, the
/// second is a *continuation* cell with an empty symbol that backends skip.
public struct Cell: Hashable, Sendable {
    /// The grapheme drawn in this cell; empty for a continuation cell.
    public var symbol: String
    public var style: Style
    /// Whether this cell is the right half of the wide grapheme to its left.
    public var isContinuation: Bool

    public init(symbol: String = " ", style: Style = .plain, isContinuation: Bool = false) {
        self.symbol = symbol
        self.style = style
        self.isContinuation = isContinuation
    }

    /// A space in the default style.
    public static let blank = Cell()

    /// The right half of a wide grapheme.
    public static func continuation(style: Style) -> Cell {
        Cell(symbol: "", style: style, isContinuation: true)
    }

    /// Columns this cell's grapheme takes (2 for a wide lead cell, 0 for a continuation).
    public var width: Int { isContinuation ? 0 : max(1, DisplayWidth.of(symbol)) }
}
