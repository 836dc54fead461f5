/// Text attributes a terminal can combine with (or, without colour, instead of) colours.
public struct Attributes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let bold = Attributes(rawValue: 1 << 0)
    public static let dim = Attributes(rawValue: 1 << 1)
    public static let italic = Attributes(rawValue: 1 << 2)
    public static let underline = Attributes(rawValue: 1 << 3)
    public static let reverse = Attributes(rawValue: 1 << 4)

    /// Each attribute with the word theme files use for it, in a stable order.
    public static let named: [(name: String, attribute: Attributes)] = [
        ("bold", .bold), ("dim", .dim), ("italic", .italic), ("underline", .underline), ("reverse", .reverse),
    ]

    /// The theme-file words for these attributes, space separated (`"bold underline"`).
    public var names: String {
        Attributes.named.filter { contains($0.attribute) }.map(\.name).joined(separator: " ")
    }
}
