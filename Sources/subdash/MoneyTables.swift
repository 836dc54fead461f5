import SubscriberAnalytics

/// The `--format table` text of the money reports (docs/metrics.md "Money"): amounts with their
/// currency and counts with thousands separators, as people read them; CSV and JSON keep plain
/// digits for scripts.
enum MoneyTables {
    static func revenue(_ r: RevenueReport) -> String {
        var t = TextTable(
            headers: [
                r.by?.rawValue ?? "", "charged", "gross", "refunded", "refunds", "upgrade credits", "net",
                "est. proceeds",
            ], rightAligned: [1, 2, 3, 4, 5, 6, 7])
        t.rows = r.rows.map {
            [
                $0.key ?? $0.currency, grouped($0.charged), MoneyFormat.text($0.gross, $0.currency), grouped($0.refunded),
                MoneyFormat.text($0.refunds, $0.currency), MoneyFormat.text($0.upgradeCredits, $0.currency),
                MoneyFormat.text($0.net, $0.currency), MoneyFormat.text($0.proceeds, $0.currency),
            ]
        }
        var text = "Revenue \(r.from.iso8601) – \(r.to.iso8601), as of \(r.asOf.iso8601)"
        if let c = r.currency { text += ", converted to \(c)" }
        text += "\n" + t.render()
        if r.unpriced > 0 {
            text +=
                "\n\(grouped(r.unpriced)) item\(r.unpriced == 1 ? "" : "s") without a price \(r.unpriced == 1 ? "is" : "are") "
                + "not counted (`subdash prices import`)"
        }
        return text
    }

    static func refunds(_ r: RefundRateReport) -> String {
        var t = TextTable(headers: [r.by.rawValue, "charged", "refunded", "rate"], rightAligned: [1, 2, 3])
        t.rows = r.rows.map { [$0.key, grouped($0.charged), grouped($0.refunded), percent($0.rate)] }
        return "Refund rate \(r.from.iso8601) – \(r.to.iso8601), as of \(r.asOf.iso8601)\n" + t.render()
    }

    static func mrr(_ r: MRRReport) -> String {
        var t = TextTable(
            headers: [r.by?.rawValue ?? "currency", "subscriptions", "MRR", "commitments", "committed"],
            rightAligned: [1, 2, 3, 4])
        t.rows = r.rows.map {
            [
                $0.key ?? $0.currency, grouped($0.subscriptions), MoneyFormat.text($0.mrr, $0.currency), grouped($0.commitments),
                MoneyFormat.text($0.committed, $0.currency),
            ]
        }
        var text = "MRR at \(r.asOf.iso8601)"
        if let c = r.currency { text += ", converted to \(c)" }
        text += "\n" + t.render()
        if r.unpriced > 0 {
            text +=
                "\n\(grouped(r.unpriced)) subscription\(r.unpriced == 1 ? "" : "s") without a price "
                + "\(r.unpriced == 1 ? "is" : "are") not counted (`subdash prices import`)"
        }
        return text
    }

    static func offers(_ r: OfferConversionReport) -> String {
        var t = TextTable(
            headers: [
                "offer", "identifier", "started", "converted", "lapsed", "switched", "pending",
                "conversion", "P3", "P6",
            ], rightAligned: [2, 3, 4, 5, 6, 7, 8, 9])
        t.rows = r.offers.map {
            [
                $0.offerKind.rawValue, $0.offerIdentifier ?? "–", grouped($0.started), grouped($0.converted),
                grouped($0.lapsed), grouped($0.switched), grouped($0.pending), percent($0.rate),
                percent($0.retention3), percent($0.retention6),
            ]
        }
        return "Offers started \(r.from.iso8601) – \(r.to.iso8601), as of \(r.asOf.iso8601)\n" + t.render()
    }

    static func ltv(_ r: LTVReport) -> String {
        func money(_ v: Double?, _ c: String) -> String {
            v.map { MoneyFormat.text(Int64($0.rounded(.toNearestOrAwayFromZero)), c) } ?? "–"
        }
        let shown = min(r.periods, 6)
        var t = TextTable(
            headers: ["cohort", "currency", "started"] + (1...shown).map { "P\($0)" },
            rightAligned: Set(2..<(3 + shown)))
        t.rows = (r.cohorts + r.average).map { c in
            [c.month?.description ?? "average", c.currency, grouped(c.started)]
                + (0..<shown).map { money(c.ltv[$0], c.currency) }
        }
        var text = "Realized LTV per member as of \(r.asOf.iso8601)"
        if let c = r.currency { text += ", converted to \(c)" }
        text += "\n" + t.render()
        if shown < r.periods { text += "\n(\(r.periods - shown) more periods: use --format csv or json)" }
        if r.unpriced + r.mixedCurrency > 0 {
            text +=
                "\n\(grouped(r.unpriced)) members without a priced paid period and \(grouped(r.mixedCurrency)) paying in two "
                + "currencies are left out"
        }
        return text
    }
}
