/// How a cell is drawn: foreground, background and attributes, already resolved for a terminal.
public struct Style: Hashable, Sendable {
    public var foreground: Color
    public var background: Color
    public var attributes: Attributes

    public init(foreground: Color = .default, background: Color = .default, attributes: Attributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    /// The terminal's default colours with no attributes.
    public static let plain = Style()

    /// This style with `other` laid over it: other's colours where they are not `default`,
    /// attributes combined. Used to draw, say, a heat colour under a selection.
    public func patched(with other: Style) -> Style {
        Style(
            foreground: other.foreground == .default ? foreground : other.foreground,
            background: other.background == .default ? background : other.background,
            attributes: attributes.union(other.attributes))
    }

    /// This style with extra attributes.
    public func adding(_ extra: Attributes) -> Style {
        var copy = self
        copy.attributes.formUnion(extra)
        return copy
    }
}
