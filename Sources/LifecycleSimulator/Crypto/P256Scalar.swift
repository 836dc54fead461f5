/// An integer modulo n, the order of the P-256 group, in four 64-bit limbs (least significant
/// first). Just enough arithmetic for ECDSA's `s = k⁻¹(z + r·d) mod n`: Montgomery
/// multiplication and a Fermat inverse, no heap allocation.
struct P256Scalar: Equatable, Sendable {
    var l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64

    init(_ l0: UInt64, _ l1: UInt64, _ l2: UInt64, _ l3: UInt64) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
    }

    /// n = FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551.
    static let order = P256Scalar(0xF3B9_CAC2_FC63_2551, 0xBCE6_FAAD_A717_9E84, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_0000_0000)
    static let zero = P256Scalar(0, 0, 0, 0)
    static let one = P256Scalar(1, 0, 0, 0)

    /// -n⁻¹ mod 2⁶⁴ (checked against Newton's iteration in the tests).
    static let montgomeryFactor: UInt64 = 0xCCD1_C8AA_EE00_BC4F

    static var montgomeryFactorByNewton: UInt64 {
        let n0 = order.l0
        var inverse: UInt64 = 1
        for _ in 0..<6 { inverse = inverse &* (2 &- n0 &* inverse) }
        return 0 &- inverse
    }

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

    /// self⁻¹ mod n for non-zero self, by the binary extended Euclidean algorithm (variable
    /// time, which is fine for a test signer, and several times faster than Fermat).
    var inverse: P256Scalar {
        var u = self
        var v = P256Scalar.order
        var x1 = P256Scalar.one
        var x2 = P256Scalar.zero
        while u != .one && v != .one {
            while u.l0 & 1 == 0 {
                u = u.halved(carry: false)
                x1 = x1.halvedModOrder()
            }
            while v.l0 & 1 == 0 {
                v = v.halved(carry: false)
                x2 = x2.halvedModOrder()
            }
            if u.isLess(than: v) {
                v = v.subtractingReportingBorrow(u).0
                x2 = x2.subtractingModOrder(x1)
            } else {
                u = u.subtractingReportingBorrow(v).0
                x1 = x1.subtractingModOrder(x2)
            }
        }
        return u == .one ? x1 : x2
    }

    /// (self + carry·2²⁵⁶) / 2.
    @inline(__always)
    private func halved(carry: Bool) -> P256Scalar {
        P256Scalar(l0 >> 1 | l1 << 63, l1 >> 1 | l2 << 63, l2 >> 1 | l3 << 63, l3 >> 1 | (carry ? 1 << 63 : 0))
    }

    /// self / 2 mod n, for self < n.
    @inline(__always)
    private func halvedModOrder() -> P256Scalar {
        if l0 & 1 == 0 { return halved(carry: false) }
        let n = P256Scalar.order
        var carry: UInt64 = 0
        let sum = P256Scalar(
            P256Scalar.addWithCarry(l0, n.l0, &carry), P256Scalar.addWithCarry(l1, n.l1, &carry),
            P256Scalar.addWithCarry(l2, n.l2, &carry), P256Scalar.addWithCarry(l3, n.l3, &carry))
        return sum.halved(carry: carry != 0)
    }

    /// (self − b) mod n, for self, b < n.
    @inline(__always)
    private func subtractingModOrder(_ b: P256Scalar) -> P256Scalar {
        let (difference, borrow) = subtractingReportingBorrow(b)
        guard borrow else { return difference }
        let n = P256Scalar.order
        var carry: UInt64 = 0
        return P256Scalar(
            P256Scalar.addWithCarry(difference.l0, n.l0, &carry), P256Scalar.addWithCarry(difference.l1, n.l1, &carry),
            P256Scalar.addWithCarry(difference.l2, n.l2, &carry), P256Scalar.addWithCarry(difference.l3, n.l3, &carry))
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
        var t0: UInt64 = 0
        var t1: UInt64 = 0
        var t2: UInt64 = 0
        var t3: UInt64 = 0
        var t4: UInt64 = 0
        montgomeryRound(b.l0, &t0, &t1, &t2, &t3, &t4)
        montgomeryRound(b.l1, &t0, &t1, &t2, &t3, &t4)
        montgomeryRound(b.l2, &t0, &t1, &t2, &t3, &t4)
        montgomeryRound(b.l3, &t0, &t1, &t2, &t3, &t4)
        let result = P256Scalar(t0, t1, t2, t3)
        if t4 != 0 || !result.isLess(than: P256Scalar.order) { return result.subtractingReportingBorrow(P256Scalar.order).0 }
        return result
    }

    /// One limb of b: t += self·bi, then add m·n so the low word vanishes, and shift a word down.
    @inline(__always)
    private func montgomeryRound(
        _ bi: UInt64, _ t0: inout UInt64, _ t1: inout UInt64, _ t2: inout UInt64,
        _ t3: inout UInt64, _ t4: inout UInt64
    ) {
        let n0: UInt64 = 0xF3B9_CAC2_FC63_2551
        let n1: UInt64 = 0xBCE6_FAAD_A717_9E84
        let n2: UInt64 = 0xFFFF_FFFF_FFFF_FFFF
        let n3: UInt64 = 0xFFFF_FFFF_0000_0000
        var c: UInt64 = 0
        t0 = P256Scalar.multiplyAccumulate(l0, bi, t0, &c)
        t1 = P256Scalar.multiplyAccumulate(l1, bi, t1, &c)
        t2 = P256Scalar.multiplyAccumulate(l2, bi, t2, &c)
        t3 = P256Scalar.multiplyAccumulate(l3, bi, t3, &c)
        let (s4, o4) = t4.addingReportingOverflow(c)
        let t5: UInt64 = o4 ? 1 : 0
        let m = t0 &* P256Scalar.montgomeryFactor
        c = 0
        _ = P256Scalar.multiplyAccumulate(m, n0, t0, &c)
        t0 = P256Scalar.multiplyAccumulate(m, n1, t1, &c)
        t1 = P256Scalar.multiplyAccumulate(m, n2, t2, &c)
        t2 = P256Scalar.multiplyAccumulate(m, n3, t3, &c)
        let (s3, o3) = s4.addingReportingOverflow(c)
        t3 = s3
        t4 = t5 + (o3 ? 1 : 0)
    }
}
