import SubscriberAnalytics
import SubscriptionModel

/// `report eligibility`: subscribers suggested for each offer at as-of.
public struct EligibilityOutput: ReportOutput {
    public var rows: [EligibleSubscriber]
    public var asOf: Instant
    /// The one offer asked for (the table's note counts only it); nil: every offer.
    public var offer: OfferFlagKind?

    public init(_ rows: [EligibleSubscriber], asOf: Instant, offer: OfferFlagKind? = nil) {
        self.rows = rows
        self.asOf = asOf
        self.offer = offer
    }

    /// Written straight to text: a million-subscriber list as a tree of `JSONOutput`s took
    /// hundreds of megabytes.
    public var json: String {
        var counts = JSONOutputObject()
        var n: [OfferFlagKind: Int] = [:]
        for r in rows { n[r.offer, default: 0] += 1 }
        for k in OfferFlagKind.allCases { counts[k.rawValue] = .int(n[k] ?? 0) }
        var out = "{\"asOf\":"
        out.reserveCapacity(64 + rows.count * 120)
        JSONOutput.writeString(asOf.iso8601, to: &out)
        out += ",\"counts\":"
        JSONOutput.object(counts).write(to: &out)
        out += ",\"subscribers\":["
        for (i, r) in rows.enumerated() { Self.writeJSON(r, first: i == 0, to: &out) }
        out += "]}"
        return out
    }

    /// One entry of the `subscribers` array, after a comma unless `first` (the streamed list writes
    /// the same entries).
    static func writeJSON(_ r: EligibleSubscriber, first: Bool, to out: inout String) {
        out += first ? "{\"offer\":" : ",{\"offer\":"
        JSONOutput.writeString(r.offer.rawValue, to: &out)
        out += ",\"originalTransactionId\":"
        JSONOutput.writeString(r.originalTransactionId, to: &out)
        out += ",\"productId\":"
        JSONOutput.writeString(r.productId, to: &out)
        out += ",\"detail\":"
        JSONOutput.writeString(r.detail, to: &out)
        if r.offer == .winBackOffer {
            out += ",\"appleOfferIds\":"
            JSONOutput.array(r.appleOfferIds.map(JSONOutput.string)).write(to: &out)
        }
        out += "}"
    }

    public var csv: CSVTable {
        CSVTable(
            header: ["offer", "originalTransactionId", "productId", "detail"],
            rows: rows.map { [$0.offer.rawValue, $0.originalTransactionId, $0.productId, $0.detail] })
    }

    public var table: String {
        var t = TextTable(headers: ["offer", "subscription", "product", "why"])
        t.rows = rows.map { [$0.offer.rawValue, $0.originalTransactionId, $0.productId, $0.detail] }
        let kinds = offer.map { [$0] } ?? OfferFlagKind.allCases
        t.note = kinds.map { k in "\(k.rawValue) \(grouped(rows.filter { $0.offer == k }.count))" }.joined(separator: ", ")
        return "Eligible as of \(asOf.asOfText)\n" + t.render()
    }
}
