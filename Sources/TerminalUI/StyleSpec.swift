/// A role's style as a theme file states it: colour alternatives best first, attributes,
/// and optionally the attributes to use instead when colours are off.
public struct StyleSpec: Hashable, Sendable {
    /// Foreground alternatives, best first (`#5fafff/75/cyan`); empty means the terminal default.
    public var foreground: [Color]
    /// Background alternatives, best first; empty means the terminal default.
    public var background: [Color]
    public var attributes: Attributes
    /// Attributes used *instead of* ``attributes`` when colours are off (`mono=reverse+bold`).
    public var mono: Attributes?

    public init(foreground: [Color] = [], background: [Color] = [], attributes: Attributes = [], mono: Attributes? = nil) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
        self.mono = mono
    }

    /// The style to draw with on a terminal with `support`. Without colour it is attributes
    /// only: the `mono=` ones, else the spec's own plus what the role needs to stay visible.
    public func resolved(for support: ColorSupport, role: ThemeRole) -> Style {
        if support == .none {
            return Style(attributes: mono ?? attributes.union(role.monoAttributes))
        }
        return Style(foreground: support.pick(foreground), background: support.pick(background), attributes: attributes)
    }
}
