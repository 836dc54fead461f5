/// A named set of role styles, as loaded from a theme file.
public struct Theme: Hashable, Sendable {
    /// The display name (`name = "…"` in the file, else the file's stem).
    public var name: String
    /// One spec per role; a role the file did not set holds the fallback theme's spec.
    public var specs: [ThemeRole: StyleSpec]

    public init(name: String, specs: [ThemeRole: StyleSpec]) {
        self.name = name
        self.specs = specs
    }

    public func spec(for role: ThemeRole) -> StyleSpec { specs[role] ?? StyleSpec() }

    /// Every role's style resolved once for a terminal (never per cell per frame).
    public func palette(for support: ColorSupport) -> Palette {
        var styles: [ThemeRole: Style] = [:]
        for role in ThemeRole.allCases { styles[role] = spec(for: role).resolved(for: support, role: role) }
        // A theme that gives text a background (light on any terminal) means it for every role:
        // a role without one of its own draws on it rather than on the terminal's own colour.
        if let background = styles[.text]?.background, background != .default {
            for (role, style) in styles where style.background == .default { styles[role]?.background = background }
        }
        return Palette(support: support, styles: styles)
    }

    /// The `default` theme compiled into the binary, so it works without a `Themes/` directory.
    public static let builtinDefault: Theme = {
        do {
            return try ThemeParser.parse(BuiltinThemes.defaultSource, file: "<built-in default.theme>", base: nil)
        } catch {
            preconditionFailure("the built-in default theme does not parse: \(error)")
        }
    }()
}

/// A theme's styles resolved for one ``ColorSupport``: what widgets draw with.
public struct Palette: Hashable, Sendable {
    public let support: ColorSupport
    public let styles: [ThemeRole: Style]

    public init(support: ColorSupport, styles: [ThemeRole: Style]) {
        self.support = support
        self.styles = styles
    }

    public subscript(role: ThemeRole) -> Style { styles[role] ?? .plain }

    /// The built-in default theme at `support`.
    public static func builtinDefault(_ support: ColorSupport) -> Palette { Theme.builtinDefault.palette(for: support) }

    /// The heat role for a rate in 0…1 (values outside are clamped).
    public static func heatRole(for rate: Double) -> ThemeRole {
        let clamped = rate.isNaN ? 0 : Swift.min(1, Swift.max(0, rate))
        return ThemeRole.heat[Swift.min(ThemeRole.heat.count - 1, Int(clamped * Double(ThemeRole.heat.count)))]
    }
}
