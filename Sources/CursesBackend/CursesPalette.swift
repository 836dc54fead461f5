import CNcursesW
import TerminalUI

/// Turns styles into curses attributes and colour pairs, allocating each pair once.
///
/// Colour numbers: `-1` is the terminal default (after `use_default_colors`); the 16 ANSI
/// colours and the 256 palette map to their index; 24-bit colours are the RGB value itself on
/// a direct-colour terminal, a redefined palette slot (`init_extended_color`) where the terminal
/// allows changing colours, else the nearest 256-colour index.
struct CursesPalette {
    private let colors: Int
    private let pairs: Int
    private let direct: Bool
    private let dynamic: Bool

    private struct PairKey: Hashable {
        var foreground: Int32
        var background: Int32
    }
    private var pairCache: [PairKey: Int32] = [:]
    private var nextPair: Int32 = 1
    private var slotCache: [Int32: Int32] = [:]
    private var nextSlot: Int32 = 255

    init(colors: Int, pairs: Int, direct: Bool, dynamic: Bool) {
        self.colors = colors
        self.pairs = pairs
        self.direct = direct
        self.dynamic = dynamic
    }

    mutating func attributesAndPair(for style: Style) -> (attr_t, Int32) {
        var attributes = attr_t(cnc_a_normal())
        let a = style.attributes
        if a.contains(.bold) { attributes |= cnc_a_bold() }
        if a.contains(.dim) { attributes |= cnc_a_dim() }
        if a.contains(.italic) { attributes |= cnc_a_italic() }
        if a.contains(.underline) { attributes |= cnc_a_underline() }
        if a.contains(.reverse) { attributes |= cnc_a_reverse() }
        guard colors > 0, style.foreground != .default || style.background != .default else { return (attributes, 0) }
        let (foreground, brighten) = number(for: style.foreground)
        let (background, _) = number(for: style.background)
        if brighten { attributes |= cnc_a_bold() }
        return (attributes, pair(foreground, background))
    }

    /// The curses colour number, and whether bold must stand in for a bright colour the
    /// terminal lacks (8-colour terminals).
    private mutating func number(for color: Color) -> (Int32, Bool) {
        switch color {
        case .default:
            return (-1, false)
        case .named(let named):
            let index = Int32(named.rawValue)
            return index < colors ? (index, false) : (index - 8, true)
        case .indexed(let index):
            if Int(index) < colors { return (Int32(index), false) }
            guard let (r, g, b) = color.rgbComponents else { return (-1, false) }
            return number(for: .named(ColorSupport.nearest16(red: r, green: g, blue: b)))
        case .rgb(let r, let g, let b):
            let packed = Int32(r) << 16 | Int32(g) << 8 | Int32(b)
            if direct { return (packed, false) }
            if dynamic, let slot = slot(for: packed, r, g, b) { return (slot, false) }
            return number(for: .indexed(ColorSupport.nearest256(red: r, green: g, blue: b)))
        }
    }

    /// A palette slot redefined to this RGB value, taken from the top of the 256 palette down.
    private mutating func slot(for packed: Int32, _ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int32? {
        if let slot = slotCache[packed] { return slot }
        guard nextSlot >= 16 else { return nil }
        func scale(_ v: UInt8) -> Int32 { Int32(v) * 1000 / 255 }
        guard init_extended_color(nextSlot, scale(r), scale(g), scale(b)) == OK else { return nil }
        slotCache[packed] = nextSlot
        nextSlot -= 1
        return slotCache[packed]
    }

    private mutating func pair(_ foreground: Int32, _ background: Int32) -> Int32 {
        let key = PairKey(foreground: foreground, background: background)
        if let pair = pairCache[key] { return pair }
        if Int(nextPair) >= pairs {
            // Out of pairs: start over. Cells already on screen keep the colours their
            // (now reused) pair numbers get, which the next full redraw repairs.
            pairCache.removeAll()
            nextPair = 1
        }
        guard init_extended_pair(nextPair, foreground, background) == OK else { return 0 }
        pairCache[key] = nextPair
        nextPair += 1
        return pairCache[key]!
    }
}
