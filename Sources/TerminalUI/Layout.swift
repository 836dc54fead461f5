/// How much of a split one part asks for.
public enum Constraint: Hashable, Sendable {
    /// Exactly this many cells (less only when the space runs out).
    case fixed(Int)
    /// This percentage of the *whole* space being split.
    case percentage(Int)
    /// At least this many cells; grows with the leftover space when no part is `fill`.
    case min(Int)
    /// A share of the leftover space, by weight.
    case fill(Int = 1)
}

/// Splits a rectangle into rows (`vertical`) or columns (`horizontal`) by constraints.
///
/// Deterministic and simple: fixed, percentage and min parts first take their size, in order,
/// while space lasts; the rest goes to the `fill` parts by weight (earlier parts take the
/// remainder cells), or, without any, is shared among the `min` parts. Gaps of `spacing` cells
/// separate parts.
public struct Layout: Hashable, Sendable {
    public enum Direction: Hashable, Sendable { case vertical, horizontal }

    public var direction: Direction
    public var constraints: [Constraint]
    public var spacing: Int

    public init(_ direction: Direction, _ constraints: [Constraint], spacing: Int = 0) {
        self.direction = direction
        self.constraints = constraints
        self.spacing = spacing
    }

    public static func vertical(_ constraints: [Constraint], spacing: Int = 0) -> Layout {
        Layout(.vertical, constraints, spacing: spacing)
    }

    public static func horizontal(_ constraints: [Constraint], spacing: Int = 0) -> Layout {
        Layout(.horizontal, constraints, spacing: spacing)
    }

    /// The parts of `area`, one per constraint, in order.
    public func split(_ area: Rect) -> [Rect] {
        let total = direction == .vertical ? area.height : area.width
        let sizes = Layout.sizes(of: constraints, in: Swift.max(0, total - spacing * Swift.max(0, constraints.count - 1)))
        var offset = direction == .vertical ? area.y : area.x
        return sizes.map { size in
            defer { offset += size + spacing }
            switch direction {
            case .vertical: return Rect(x: area.x, y: offset, width: area.width, height: size)
            case .horizontal: return Rect(x: offset, y: area.y, width: size, height: area.height)
            }
        }
    }

    static func sizes(of constraints: [Constraint], in total: Int) -> [Int] {
        var remaining = total
        var sizes = constraints.map { constraint -> Int in
            let wanted: Int
            switch constraint {
            case .fixed(let n), .min(let n): wanted = Swift.max(0, n)
            case .percentage(let p): wanted = total * Swift.min(100, Swift.max(0, p)) / 100
            case .fill: wanted = 0
            }
            let granted = Swift.min(wanted, remaining)
            remaining -= granted
            return granted
        }
        guard remaining > 0 else { return sizes }
        var growing: [(index: Int, weight: Int)] = constraints.enumerated().compactMap { index, constraint in
            if case .fill(let weight) = constraint { return (index, Swift.max(0, weight)) }
            return nil
        }
        if growing.isEmpty {
            growing = constraints.enumerated().compactMap { index, constraint in
                if case .min = constraint { return (index, 1) }
                return nil
            }
        }
        let weights = growing.reduce(0) { $0 + $1.weight }
        guard weights > 0 else { return sizes }
        var handedOut = 0
        for part in growing {
            let share = remaining * part.weight / weights
            sizes[part.index] += share
            handedOut += share
        }
        for part in growing where handedOut < remaining && part.weight > 0 {
            sizes[part.index] += 1
            handedOut += 1
        }
        return sizes
    }
}
