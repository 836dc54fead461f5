/// SplitMix64 (Steele, Lea & Flood): tiny, fast and good enough for simulation. Each
/// subscriber gets its own stream from (seed, index, purpose), so any subscriber can be
/// generated alone, in any order, on any thread.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(state: UInt64) { self.state = state }

    /// A stream for one subscriber and one purpose (lifecycle, delivery, …).
    public init(seed: UInt64, index: Int, stream: UInt64) {
        var mixer = SplitMix64(state: seed ^ 0x5DEE_CE66_D1CE_4E5B)
        let a = mixer.next()
        var second = SplitMix64(state: a ^ UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03)
        let b = second.next()
        self.init(state: b ^ stream &* 0x9E37_79B9_7F4A_7C15)
        _ = next()
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    mutating func chance(_ probability: Double) -> Bool { unit() < probability }

    /// Uniform in [lower, upper) (upper > lower), without modulo bias worth caring about here.
    mutating func int64(in range: Range<Int64>) -> Int64 {
        let width = UInt64(range.upperBound - range.lowerBound)
        return range.lowerBound + Int64(next().multipliedFullWidth(by: width).high)
    }

    mutating func int(in range: Range<Int>) -> Int { Int(int64(in: Int64(range.lowerBound)..<Int64(range.upperBound))) }

    /// Index into `weights` with probability proportional to its weight.
    mutating func pick(_ weights: [Double]) -> Int {
        var x = unit() * weights.reduce(0, +)
        for (i, w) in weights.enumerated() {
            if x < w { return i }
            x -= w
        }
        return weights.count - 1
    }

    /// A random (version 4) UUID, lowercase as Apple sends them.
    mutating func uuid() -> String {
        let a = next()
        let b = next()
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        let hi = (a & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let lo = (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        for (i, nibbleIndex) in (0..<32).enumerated() {
            if i == 8 || i == 12 || i == 16 || i == 20 { out.append(UInt8(ascii: "-")) }
            let word = nibbleIndex < 16 ? hi : lo
            let shift = UInt64(60 - 4 * (nibbleIndex % 16))
            out.append(hex[Int((word >> shift) & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
