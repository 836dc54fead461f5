/// A chart over buckets (days, weeks, months), drawn the same way by ``Chart`` in the terminal
/// and by ``ChartSVG`` as a picture: lines for stocks (a value at each bucket's end), bars for
/// flows (stacked, positive above the axis and negative below it).
public struct ChartModel: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case line, bar
    }

    public struct Series: Sendable, Equatable {
        public var name: String
        public var kind: Kind
        /// One value a bucket; nil is a gap (no data), drawn unlike a zero.
        public var values: [Double?]
        /// Its colour in the terminal (a pattern tells it apart without colour).
        public var role: ThemeRole
        /// A line drawn dashed (a comparison, such as the previous period), told apart from the
        /// solid ones without colour.
        public var dashed: Bool

        public init(name: String, kind: Kind, values: [Double?], role: ThemeRole, dashed: Bool = false) {
            self.name = name
            self.kind = kind
            self.values = values
            self.role = role
            self.dashed = dashed
        }
    }

    public var title: String
    /// One label a bucket (`2025-03`).
    public var labels: [String]
    /// Buckets not complete yet (the current month): drawn dimmed.
    public var incomplete: Set<Int>
    public var series: [Series]
    /// The unit of the values: a currency code for money, nil for counts.
    public var unit: String?
    /// Decimals shown in values (2 for money, 0 for counts).
    public var decimals: Int
    /// What the picture is read from: the as-of and the store.
    public var caption: String

    public init(
        title: String, labels: [String], incomplete: Set<Int> = [], series: [Series], unit: String? = nil,
        decimals: Int = 0, caption: String = ""
    ) {
        self.title = title
        self.labels = labels
        self.incomplete = incomplete
        self.series = series
        self.unit = unit
        self.decimals = decimals
        self.caption = caption
    }

    public var count: Int { labels.count }

    /// The smallest and largest values drawn over the buckets `range`: bars stacked (positive
    /// and negative apart), always including 0 when there are bars.
    public func valueRange(_ range: Range<Int>? = nil) -> (low: Double, high: Double) {
        let range = range ?? 0..<count
        var low = Double.infinity
        var high = -Double.infinity
        let hasBars = series.contains { $0.kind == .bar }
        if hasBars {
            low = 0
            high = 0
        }
        for i in range {
            var up = 0.0
            var down = 0.0
            for s in series where i < s.values.count {
                guard let v = s.values[i] else { continue }
                switch s.kind {
                case .line:
                    low = min(low, v)
                    high = max(high, v)
                case .bar:
                    if v >= 0 { up += v } else { down += v }
                }
            }
            if hasBars {
                low = min(low, down)
                high = max(high, up)
            }
        }
        if low == .infinity { return (0, 0) }
        return (low, high)
    }

    /// A value as an axis or read-out shows it: thousands separators, the chart's decimals, the
    /// currency after it when `withUnit`.
    public func format(_ value: Double, decimals: Int? = nil, withUnit: Bool = false) -> String {
        let text = ChartModel.grouped(value, decimals: decimals ?? self.decimals)
        guard withUnit, let unit else { return text }
        return text + " " + unit
    }

    /// `1234567.891` with 2 decimals → `1,234,567.89`.
    public static func grouped(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<max(0, decimals) { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled.isFinite, scaled < 9e17 else { return value < 0 ? "-∞" : "∞" }
        let whole = Int64(scaled) / Int64(scale)
        let fraction = Int64(scaled) % Int64(scale)
        let digits = String(whole)
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        if decimals > 0 {
            var f = String(fraction)
            while f.count < decimals { f = "0" + f }
            out += "." + f
        }
        return (value < 0 && scaled > 0 ? "-" : "") + out
    }

    /// Round tick values covering [low, high], about `count` of them, at 1, 2 or 5 × 10ⁿ apart.
    public static func ticks(low: Double, high: Double, count: Int) -> [Double] {
        guard count > 0, low.isFinite, high.isFinite else { return [] }
        if high <= low { return [low] }
        let raw = (high - low) / Double(max(1, count - 1))
        var step = 1.0
        while step < raw { step *= 10 }
        while step / 10 >= raw { step /= 10 }
        for candidate in [step / 5, step / 2] where candidate >= raw {
            step = candidate
            break
        }
        var ticks: [Double] = []
        var t = (low / step).rounded(.down) * step
        while t <= high + step * 1e-9 {
            if t >= low - step * 1e-9 { ticks.append(abs(t) < step * 1e-9 ? 0 : t) }
            t += step
        }
        return ticks
    }

    /// [low, high] widened to whole tick steps, with its ticks (at least two).
    public static func niceScale(low: Double, high: Double, count: Int) -> (low: Double, high: Double, ticks: [Double]) {
        var (low, high) = (low, high)
        if high <= low { high = low + 1 }
        let raw = (high - low) / Double(max(1, count - 1))
        var step = 1.0
        while step < raw { step *= 10 }
        while step / 10 >= raw { step /= 10 }
        for candidate in [step / 5, step / 2] where candidate >= raw {
            step = candidate
            break
        }
        low = (low / step).rounded(.down) * step
        high = (high / step).rounded(.up) * step
        var ticks: [Double] = []
        var k = (low / step).rounded()
        while k * step <= high + step * 1e-9 {
            let t = k * step
            ticks.append(abs(t) < step * 1e-9 ? 0 : t)
            k += 1
        }
        return (low, high, ticks)
    }

    /// The decimals a tick step needs (`0.5` → 1), at most the chart's.
    public func tickDecimals(_ ticks: [Double]) -> Int {
        guard ticks.count > 1 else { return 0 }
        let step = ticks[1] - ticks[0]
        var d = 0
        var s = step
        while d < decimals && abs(s - s.rounded()) > 1e-9 {
            s *= 10
            d += 1
        }
        return d
    }
}
