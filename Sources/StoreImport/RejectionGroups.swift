/// Rejection lines as an import reports them: the first few of each reason in full (file and
/// line or index), the rest of that reason counted and summed up at the end, so one fault
/// repeated in thousands of documents reads as a few lines and a count.
struct RejectionGroups {
    /// Lines printed in full per distinct reason.
    static let shownPerReason = 3

    private var seen: [String: Int] = [:]
    private var order: [String] = []

    /// The line to report for this rejection now, or nil when its reason is only counted.
    mutating func note(source: String, reason: String) -> String? {
        let count = seen[reason, default: 0]
        if count == 0 { order.append(reason) }
        seen[reason] = count + 1
        return count < Self.shownPerReason ? "\(source): \(reason)" : nil
    }

    /// "… and 2,581 more documents: reason" for every reason that had more than the few shown.
    var remainder: [String] {
        order.compactMap { reason in
            let more = seen[reason, default: 0] - Self.shownPerReason
            guard more > 0 else { return nil }
            return "… and \(Self.grouped(more)) more document\(more == 1 ? "" : "s"): \(reason)"
        }
    }

    /// 2581 → "2,581".
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }
}
