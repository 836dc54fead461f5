/// An integer modulo n, the order of the P-256 group, in four 64-bit limbs (least significant
/// first). Just enough arithmetic for ECDSA's `s = k⁻¹(z + r·d) mod n`: Montgomery
/// multiplication and a Fermat inverse, no heap allocation.
struct P256Scalar: Equatable, Sendable {
    var l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64

    init(_ l0: UInt64, _ l1: UInt64, _ l2: UInt64, _ l3: UInt64) {
        self.l0 = l0; self.l1 = l1; self.l2 = l2; self.l3 = l3
    }

    /// n = FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551.
    static let order = P256Scalar(0xF3B9_CAC2_FC63_2551, 0xBCE6_FAAD_A717_9E84, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_0000_0000)
    static let zero = P256Scalar(0, 0, 0, 0)
    static let one = P256Scalar(1, 0, 0, 0)

    /// -n⁻¹ mod 2⁶⁴, by Newton iteration.
    static let montgomeryFactor: UInt64 = {
        let n0 = order.l0
        var inverse: UInt64 = 1
        for _ in 0..<6 { inverse = inverse &* (2 &- n0 &* inverse) }
        return 0 &- inverse
    }()

    /// 2²⁵⁶ mod n and 2⁵¹² mod n.
    static let montgomeryR: P256Scalar = {
        let (value, _) = zero.subtractingReportingBorrow(order)
        return value
    }()
    static let montgomeryR2: P256Scalar = {
        var x = montgomeryR
        for _ in 0..<256 { x = x.adding(x) }
        return x
    }()

    /// Reads 32 big-endian bytes and reduces them mod n (one subtraction suffices: 2n > 2²⁵⁶).
    init<C: Collection>(reducingBigEndian bytes: C) where C.Element == UInt8 {
        precondition(bytes.count == 32)
        var limbs: [UInt64] = [0, 0, 0, 0]
        for (i, byte) in bytes.enumerated() {
            let limb = 3 - i / 8
            limbs[limb] = limbs[limb] << 8 | UInt64(byte)
        }
        self.init(limbs[0], limbs[1], limbs[2], limbs[3])
        if !isLess(than: P256Scalar.order) { self = subtractingReportingBorrow(P256Scalar.order).0 }
    }

    /// 32 big-endian bytes.
    var bigEndianBytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        for (i, limb) in [l3, l2, l1, l0].enumerated() {
            for j in 0..<8 { out[i * 8 + j] = UInt8(truncatingIfNeeded: limb >> (56 - 8 * UInt64(j))) }
        }
        return out
    }

    var isZero: Bool { l0 | l1 | l2 | l3 == 0 }

    func isLess(than other: P256Scalar) -> Bool {
        if l3 != other.l3 { return l3 < other.l3 }
        if l2 != other.l2 { return l2 < other.l2 }
        if l1 != other.l1 { return l1 < other.l1 }
        return l0 < other.l0
    }

    func subtractingReportingBorrow(_ b: P256Scalar) -> (P256Scalar, Bool) {
        let (r0, o0) = l0.subtractingReportingOverflow(b.l0)
        var (r1, o1) = l1.subtractingReportingOverflow(b.l1)
        var o1b = false
        if o0 { (r1, o1b) = r1.subtractingReportingOverflow(1) }
        var (r2, o2) = l2.subtractingReportingOverflow(b.l2)
        var o2b = false
        if o1 || o1b { (r2, o2b) = r2.subtractingReportingOverflow(1) }
        var (r3, o3) = l3.subtractingReportingOverflow(b.l3)
        var o3b = false
        if o2 || o2b { (r3, o3b) = r3.subtractingReportingOverflow(1) }
        return (P256Scalar(r0, r1, r2, r3), o3 || o3b)
    }

    /// (self + b) mod n for self, b < n.
    func adding(_ b: P256Scalar) -> P256Scalar {
        var carry: UInt64 = 0
        let r0 = P256Scalar.addWithCarry(l0, b.l0, &carry)
        let r1 = P256Scalar.addWithCarry(l1, b.l1, &carry)
        let r2 = P256Scalar.addWithCarry(l2, b.l2, &carry)
        let r3 = P256Scalar.addWithCarry(l3, b.l3, &carry)
        let sum = P256Scalar(r0, r1, r2, r3)
        if carry != 0 || !sum.isLess(than: P256Scalar.order) {
            return sum.subtractingReportingBorrow(P256Scalar.order).0
        }
        return sum
    }

    /// (self · b) mod n.
    func multiplied(by b: P256Scalar) -> P256Scalar {
        montgomeryProduct(b).montgomeryProduct(P256Scalar.montgomeryR2)
    }

    /// self⁻¹ mod n (Fermat: self^(n−2)); self must be non-zero.
    var inverse: P256Scalar {
        let base = montgomeryProduct(P256Scalar.montgomeryR2)
        var result = P256Scalar.montgomeryR
        let (exponent, _) = P256Scalar.order.subtractingReportingBorrow(P256Scalar(2, 0, 0, 0))
        for limb in [exponent.l3, exponent.l2, exponent.l1, exponent.l0] {
            for bit in stride(from: 63, through: 0, by: -1) {
                result = result.montgomeryProduct(result)
                if (limb >> UInt64(bit)) & 1 == 1 { result = result.montgomeryProduct(base) }
            }
        }
        return result.montgomeryProduct(P256Scalar.one)
    }

    @inline(__always)
    private static func addWithCarry(_ a: UInt64, _ b: UInt64, _ carry: inout UInt64) -> UInt64 {
        let (s1, o1) = a.addingReportingOverflow(b)
        let (s2, o2) = s1.addingReportingOverflow(carry)
        carry = (o1 ? 1 : 0) + (o2 ? 1 : 0)
        return s2
    }

    /// a·b + c + carry; returns the low word and leaves the high word in carry (never overflows).
    @inline(__always)
    private static func multiplyAccumulate(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ carry: inout UInt64) -> UInt64 {
        let (hi, lo) = a.multipliedFullWidth(by: b)
        let (s1, o1) = lo.addingReportingOverflow(c)
        let (s2, o2) = s1.addingReportingOverflow(carry)
        carry = hi &+ (o1 ? 1 : 0) &+ (o2 ? 1 : 0)
        return s2
    }

    /// self · b · 2⁻²⁵⁶ mod n (CIOS Montgomery multiplication).
    func montgomeryProduct(_ b: P256Scalar) -> P256Scalar {
        let n = P256Scalar.order
        let factor = P256Scalar.montgomeryFactor
        var t0: UInt64 = 0, t1: UInt64 = 0, t2: UInt64 = 0, t3: UInt64 = 0, t4: UInt64 = 0
        for bi in [b.l0, b.l1, b.l2, b.l3] {
            var c: UInt64 = 0
            t0 = P256Scalar.multiplyAccumulate(l0, bi, t0, &c)
            t1 = P256Scalar.multiplyAccumulate(l1, bi, t1, &c)
            t2 = P256Scalar.multiplyAccumulate(l2, bi, t2, &c)
            t3 = P256Scalar.multiplyAccumulate(l3, bi, t3, &c)
            let (s4, o4) = t4.addingReportingOverflow(c)
            let t5: UInt64 = o4 ? 1 : 0
            let m = t0 &* factor
            c = 0
            _ = P256Scalar.multiplyAccumulate(m, n.l0, t0, &c)
            t0 = P256Scalar.multiplyAccumulate(m, n.l1, t1, &c)
            t1 = P256Scalar.multiplyAccumulate(m, n.l2, t2, &c)
            t2 = P256Scalar.multiplyAccumulate(m, n.l3, t3, &c)
            let (s3, o3) = s4.addingReportingOverflow(c)
            t3 = s3
            t4 = t5 + (o3 ? 1 : 0)
        }
        let result = P256Scalar(t0, t1, t2, t3)
        if t4 != 0 || !result.isLess(than: n) { return result.subtractingReportingBorrow(n).0 }
        return result
    }
}
