/// A terminal colour at one of the fidelities a terminal may offer.
///
/// Themes name colours with best-first fallbacks; ``ColorSupport`` picks or downgrades
/// them to what the terminal can show.
public enum Color: Hashable, Sendable {
    /// The terminal's own foreground or background (lets transparent terminals show through).
    case `default`
    /// One of the 16 ANSI colours.
    case named(NamedColor)
    /// An index into the xterm 256-colour palette.
    case indexed(UInt8)
    /// A 24-bit colour.
    case rgb(UInt8, UInt8, UInt8)

    /// The colour as red, green and blue, using the xterm palette for indexed and named colours.
    /// `nil` for ``default``, whose value only the terminal knows.
    public var rgbComponents: (red: UInt8, green: UInt8, blue: UInt8)? {
        switch self {
        case .default: return nil
        case .named(let named): return named.rgbComponents
        case .indexed(let index): return Color.xtermRGB(index: index)
        case .rgb(let r, let g, let b): return (r, g, b)
        }
    }

    /// The xterm palette value of a 256-colour index.
    public static func xtermRGB(index: UInt8) -> (red: UInt8, green: UInt8, blue: UInt8) {
        switch index {
        case 0..<16:
            return NamedColor.allCases[Int(index)].rgbComponents
        case 16..<232:
            let cube = Int(index) - 16
            return (cubeLevels[cube / 36], cubeLevels[(cube / 6) % 6], cubeLevels[cube % 6])
        default:
            let grey = UInt8(8 + 10 * (Int(index) - 232))
            return (grey, grey, grey)
        }
    }

    /// The six levels of each axis of the xterm 6×6×6 colour cube.
    static let cubeLevels: [UInt8] = [0, 95, 135, 175, 215, 255]
}

/// The 16 ANSI colours, in palette order.
public enum NamedColor: Int, CaseIterable, Hashable, Sendable {
    case black, red, green, yellow, blue, magenta, cyan, white
    case brightBlack, brightRed, brightGreen, brightYellow, brightBlue, brightMagenta, brightCyan, brightWhite

    /// The name used in theme files: `red`, `bright-red`, ….
    public var themeName: String {
        let base = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"][rawValue % 8]
        return rawValue < 8 ? base : "bright-" + base
    }

    /// Looks a colour up by its theme-file name (`bright-black`, also `grey`/`gray` for it).
    public init?(themeName: String) {
        switch themeName.lowercased() {
        case "grey", "gray": self = .brightBlack
        case let name:
            guard let match = NamedColor.allCases.first(where: { $0.themeName == name }) else { return nil }
            self = match
        }
    }

    /// The xterm default value of this palette entry; real terminals vary, which is why themes
    /// give a hand-picked 16-colour fallback instead of relying on nearest-colour matching.
    public var rgbComponents: (red: UInt8, green: UInt8, blue: UInt8) {
        switch self {
        case .black: return (0, 0, 0)
        case .red: return (205, 0, 0)
        case .green: return (0, 205, 0)
        case .yellow: return (205, 205, 0)
        case .blue: return (0, 0, 238)
        case .magenta: return (205, 0, 205)
        case .cyan: return (0, 205, 205)
        case .white: return (229, 229, 229)
        case .brightBlack: return (127, 127, 127)
        case .brightRed: return (255, 0, 0)
        case .brightGreen: return (0, 255, 0)
        case .brightYellow: return (255, 255, 0)
        case .brightBlue: return (92, 92, 255)
        case .brightMagenta: return (255, 0, 255)
        case .brightCyan: return (0, 255, 255)
        case .brightWhite: return (255, 255, 255)
        }
    }
}
