import SubscriptionModel

/// What MRR movement compares for one subscription over one complete UTC month [a, b)
/// (docs/metrics.md, "MRR movement"): the keys of the MRR intervals covering a and those covering
/// b (its "signatures"), and whether it had no charged period starting before a. The store keeps
/// these per month, environment, pair of signatures and flag as counts (`mrrMovementMonth`), so a
/// month of movement is a sum over a few rows; what the keys are worth (the product's billing
/// length, a currency's rate) and which keys a scope keeps are decided when the rows are read.
public enum MovementMonths {
    /// The rows a subscription's MRR intervals (all in one environment) add: one per month with an
    /// interval covering its start or its end. `firstCharge` is the earliest start of its charged
    /// periods (milliseconds).
    public static func deltas(environment: String, intervals: [MRRInterval], firstCharge: Int64) -> [CountDelta] {
        // The keys covering each month start (a month's index: its first instant).
        var covering: [Int: [MRRKey]] = [:]
        for interval in intervals {
            var month = interval.start.month
            if month.start < interval.start { month = month.next }
            while month.start < interval.end {
                covering[month.index, default: []].append(interval.key)
                month = month.next
            }
        }
        let signatures = covering.mapValues(MRRKey.signature)
        var months = Set<Int>()
        for boundary in covering.keys {
            months.insert(boundary - 1)
            months.insert(boundary)
        }
        return months.map { month in
            let start = Month(index: month).start.milliseconds
            return CountDelta(
                table: .movement, scope: [.text(environment)], at: nil,
                key: [
                    .integer(Int64(month)), .text(signatures[month] ?? ""), .text(signatures[month + 1] ?? ""),
                    .integer(firstCharge >= start ? 1 : 0),
                ])
        }
    }
}

extension MRRKey {
    /// Several keys as one text, the same whatever their order (duplicates kept: each interval
    /// counts): each key's ``values`` joined by `|`, keys sorted and joined by `;`, and `%`, `|`,
    /// `;` in a text percent-encoded. No key is ''.
    public static func signature(_ keys: [MRRKey]) -> String {
        keys.map(\.signatureText).sorted().joined(separator: ";")
    }

    /// The keys of a ``signature(_:)``, nil when the text is not one.
    public static func keys(ofSignature text: String) -> [MRRKey]? {
        guard !text.isEmpty else { return [] }
        var keys: [MRRKey] = []
        for part in text.split(separator: ";", omittingEmptySubsequences: false) {
            let fields = part.split(separator: "|", omittingEmptySubsequences: false).map { decoded(String($0)) }
            guard fields.count == 6, let price = Int64(fields[3]), let twelfths = Int(fields[4]) else { return nil }
            keys.append(
                MRRKey(
                    offerKind: fields[0], productId: fields[1], currency: fields[2].isEmpty ? nil : fields[2],
                    price: fields[2].isEmpty ? nil : price, monthlyTwelfths: twelfths, billingPlan: fields[5]))
        }
        return keys
    }

    private var signatureText: String {
        values.map { value in
            switch value {
            case .text(let text): Self.encoded(text)
            case .integer(let integer): String(integer)
            }
        }.joined(separator: "|")
    }

    private static func encoded(_ text: String) -> String {
        guard text.contains(where: { $0 == "%" || $0 == "|" || $0 == ";" }) else { return text }
        var out = ""
        for c in text {
            switch c {
            case "%": out += "%25"
            case "|": out += "%7C"
            case ";": out += "%3B"
            default: out.append(c)
            }
        }
        return out
    }

    private static func decoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var out = ""
        var rest = Substring(text)
        while let i = rest.firstIndex(of: "%") {
            out += rest[..<i]
            let code = rest[i...].prefix(3)
            switch code {
            case "%25": out += "%"
            case "%7C": out += "|"
            case "%3B": out += ";"
            default: out += code
            }
            rest = rest[i...].dropFirst(code.count)
        }
        return out + rest
    }
}
