/// How many colours a terminal can show, best first.
public enum ColorSupport: Int, Comparable, CaseIterable, Hashable, Sendable {
    /// No colour at all: styles keep their attributes only (`NO_COLOR`, `--color never`, `TERM=dumb`).
    case none
    /// The 16 ANSI colours.
    case ansi16
    /// The xterm 256-colour palette.
    case ansi256
    /// 24-bit colour.
    case truecolor

    public static func < (lhs: ColorSupport, rhs: ColorSupport) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Whether a colour can be shown as it is.
    public func canShow(_ color: Color) -> Bool {
        switch (self, color) {
        case (.none, _): return false
        case (_, .default), (_, .named): return true
        case (.ansi16, .indexed(let index)): return index < 16
        case (.ansi16, .rgb), (.ansi256, .rgb): return false
        case (.ansi256, .indexed), (.truecolor, _): return true
        }
    }

    /// The first alternative this terminal can show, else the first one downgraded.
    /// With ``none`` it is always ``Color/default``.
    public func pick(_ alternatives: [Color]) -> Color {
        if self == .none { return .default }
        if let usable = alternatives.first(where: canShow) { return usable }
        return alternatives.first.map(downgrade) ?? .default
    }

    /// The nearest colour this terminal can show.
    public func downgrade(_ color: Color) -> Color {
        if canShow(color) { return color }
        switch self {
        case .none: return .default
        case .truecolor: return color
        case .ansi256:
            guard let (r, g, b) = color.rgbComponents else { return .default }
            return .indexed(ColorSupport.nearest256(red: r, green: g, blue: b))
        case .ansi16:
            guard let (r, g, b) = color.rgbComponents else { return .default }
            return .named(ColorSupport.nearest16(red: r, green: g, blue: b))
        }
    }

    /// The nearest xterm 256-palette index (cube 16–231 or grey ramp 232–255), by squared RGB distance.
    public static func nearest256(red: UInt8, green: UInt8, blue: UInt8) -> UInt8 {
        func cubeIndex(_ value: UInt8) -> Int {
            // Level boundaries lie halfway between 0, 95, 135, 175, 215, 255.
            let v = Int(value)
            if v < 48 { return 0 }
            if v < 115 { return 1 }
            return min(5, (v - 35) / 40)
        }
        let (ri, gi, bi) = (cubeIndex(red), cubeIndex(green), cubeIndex(blue))
        let cube = UInt8(16 + 36 * ri + 6 * gi + bi)
        let average = (Int(red) + Int(green) + Int(blue)) / 3
        let greyStep = average > 238 ? 23 : max(0, (average - 3) / 10)
        let grey = UInt8(232 + greyStep)
        let target = (red, green, blue)
        return distance(Color.xtermRGB(index: grey), target) < distance(Color.xtermRGB(index: cube), target) ? grey : cube
    }

    /// The nearest of the 16 ANSI colours (xterm values), by squared RGB distance.
    public static func nearest16(red: UInt8, green: UInt8, blue: UInt8) -> NamedColor {
        NamedColor.allCases.min {
            distance($0.rgbComponents, (red, green, blue)) < distance($1.rgbComponents, (red, green, blue))
        }!
    }

    private static func distance(_ a: (UInt8, UInt8, UInt8), _ b: (UInt8, UInt8, UInt8)) -> Int {
        let dr = Int(a.0) - Int(b.0)
        let dg = Int(a.1) - Int(b.1)
        let db = Int(a.2) - Int(b.2)
        return dr * dr + dg * dg + db * db
    }
}

/// The user's `--color` choice.
public enum ColorChoice: String, CaseIterable, Sendable {
    case auto, always, never
}

extension ColorSupport {
    /// What to use, from the user's choice, the environment and what terminfo reports.
    ///
    /// - `never` → ``none``; `always` beats `NO_COLOR` and gives at least 16 colours;
    /// - `auto`: `NO_COLOR` (non-empty) or `TERM=dumb` → ``none``; `COLORTERM=truecolor|24bit`
    ///   with a 256-colour terminal → ``truecolor``; then by `terminalColors` (terminfo `colors`).
    public static func detect(choice: ColorChoice, environment: [String: String], terminalColors: Int) -> ColorSupport {
        let fromTerminal: ColorSupport
        let colorTerm = environment["COLORTERM"]?.lowercased() ?? ""
        if terminalColors >= 256 {
            fromTerminal = (colorTerm == "truecolor" || colorTerm == "24bit") ? .truecolor : .ansi256
        } else if terminalColors >= 8 {
            fromTerminal = .ansi16
        } else {
            fromTerminal = .none
        }
        switch choice {
        case .never:
            return .none
        case .always:
            return max(fromTerminal, .ansi16)
        case .auto:
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .none }
            if environment["TERM"] == "dumb" { return .none }
            return fromTerminal
        }
    }
}
