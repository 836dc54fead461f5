import SubscriberAnalytics
import SubscriptionModel
import SubscriptionTimeline

/// `report subscriber`: one subscriber's timeline and figures.
public struct SubscriberOutput: ReportOutput {
    public var report: SubscriberReport

    public init(_ report: SubscriberReport) { self.report = report }

    public var json: String {
        let r = report
        func opt(_ s: String?) -> JSONOutput { s.map(JSONOutput.string) ?? .null }
        var o = JSONOutputObject()
        o["originalTransactionId"] = .string(r.originalTransactionId)
        o["environment"] = .string(r.timeline.environment.rawValue)
        o["ownership"] = .string(r.timeline.ownership.rawValue)
        o["userId"] = opt(r.userId)
        o["email"] = opt(r.email)
        o["appAccountToken"] = opt(r.appAccountToken)
        o["productId"] = opt(r.productId)
        o["state"] = opt(r.state?.rawValue)
        o["autoRenew"] = r.autoRenew.map(JSONOutput.bool) ?? .null
        o["autoRenewProductId"] = opt(r.autoRenewProductId)
        o["inBillingRetry"] = .bool(r.inBillingRetry)
        o["gracePeriodExpires"] = opt(r.gracePeriodExpires?.iso8601)
        o["expirationReason"] = opt(r.expirationReason?.rawValue)
        o["priceIncrease"] = opt(r.priceIncrease)
        o["paidPeriods"] = .int(r.paidPeriods)
        o["billingFailures"] = .int(r.billingFailures)
        // When access ends seen from as-of, as pane 2's "Renews on" / "Expires on" / "Expired on".
        o["accessEnd"] =
            r.accessEnd.map { end in
                var x = JSONOutputObject()
                x["kind"] =
                    switch end {
                    case .renewsOn: .string("renewsOn")
                    case .expiresOn: .string("expiresOn")
                    case .expiredOn: .string("expiredOn")
                    }
                x["at"] = .string(end.at.iso8601)
                return .object(x)
            } ?? .null
        // The billing retry window as-of lies in (grace period included), as pane 2's "Retry since".
        o["billingRetry"] =
            r.billingRetrySince.map { since in
                var x = JSONOutputObject()
                x["since"] = .string(since.iso8601)
                x["until"] = opt(r.billingRetryEnds?.iso8601)
                return .object(x)
            } ?? .null
        // Only when there are any, so the usual report keeps its shape.
        if r.unverifiedDocuments > 0 { o["unverifiedDocuments"] = .int(r.unverifiedDocuments) }
        o["periods"] = .array(
            zip(r.timeline.periods, r.money).map { p, m in
                var x = JSONOutputObject()
                x["transactionId"] = .string(p.transactionId)
                x["productId"] = .string(p.productId)
                x["start"] = .string(p.start.iso8601)
                x["end"] = .string(p.end.iso8601)
                x["offerKind"] = .string(p.offerKind.rawValue)
                x["class"] = .string(p.periodClass.rawValue)
                x["refunded"] = .bool(p.isRefunded)
                x["billingPlan"] = .string(p.billingPlan.rawValue)
                x["commitmentPeriod"] = p.billingPlan == .monthly ? p.commitmentPeriod.map { .int($0) } ?? .null : .null
                x["commitmentPeriods"] = p.billingPlan == .monthly ? p.commitmentPeriods.map { .int($0) } ?? .null : .null
                x["price"] = m.price.map(JSONOutput.amount) ?? .null
                x["currency"] = m.price == nil ? .null : opt(m.currency)
                x["refundAmount"] = m.refundAmount.map(JSONOutput.amount) ?? .null
                x["upgradeCredit"] = m.upgradeCredit.map(JSONOutput.amount) ?? .null
                return .object(x)
            })
        o["events"] = .array(
            r.events.map { e in
                var x = JSONOutputObject()
                x["at"] = .string(e.at.iso8601)
                x["type"] = .string(e.type.rawValue)
                x["productId"] = .string(e.productId)
                x["expirationReason"] = opt(e.expirationReason?.rawValue)
                return .object(x)
            })
        o["flags"] = .array(
            r.flags.map { f in
                var x = JSONOutputObject()
                x["offer"] = .string(f.offer.rawValue)
                x["at"] = .string(f.at.iso8601)
                x["note"] = opt(f.note)
                return .object(x)
            })
        var paid = JSONOutputObject()
        for currency in r.paid.keys.sorted() { paid[currency] = JSONOutput.amount(r.paid[currency]!) }
        o["paid"] = .object(paid)
        o["paidServiceDays"] = .int(r.paidServiceDays)
        o["commitment"] =
            r.commitment.map { c in
                var x = JSONOutputObject()
                x["period"] = c.period.map { .int($0) } ?? .null
                x["of"] = c.of.map { .int($0) } ?? .null
                x["ends"] = opt(c.ends?.iso8601)
                x["price"] = c.price.map(JSONOutput.amount) ?? .null
                x["currency"] = opt(c.currency)
                x["autoRenew"] = .bool(c.autoRenew)
                x["remaining"] = c.remaining.map(JSONOutput.amount) ?? .null
                return .object(x)
            } ?? .null
        Self.renewalDetails(r, &o)
        return JSONOutput.object(o).text
    }

    /// `renewalPrice` (currency units) and `renewalCurrency`, `eligibleWinBackOfferIds`,
    /// `appTransactionId` and `appTransactionSubscriptions` (every subscription sharing it, this
    /// one included; empty when unknown).
    static func renewalDetails(_ r: SubscriberReport, _ o: inout JSONOutputObject) {
        let d = r.renewal
        o["renewalPrice"] = d.renewalPrice.map(JSONOutput.amount) ?? .null
        o["renewalCurrency"] = d.renewalPrice == nil ? .null : d.renewalCurrency.map(JSONOutput.string) ?? .null
        o["eligibleWinBackOfferIds"] = .array(d.eligibleWinBackOfferIds.map(JSONOutput.string))
        o["appTransactionId"] = d.appTransactionId.map(JSONOutput.string) ?? .null
        o["appTransactionSubscriptions"] = .array(d.sameAccount.map(JSONOutput.string))
    }

    public var csv: CSVTable {
        // One row per period, each led by the subscriber's own fields (one flat table a
        // spreadsheet opens); a subscriber with no period still gets its row.
        let r = report
        let subscriber = [
            r.originalTransactionId, r.userId ?? "", r.email ?? "", r.appAccountToken ?? "",
            r.asOf.iso8601, r.state?.rawValue ?? "", r.autoRenew.map { $0 ? "true" : "false" } ?? "",
            r.autoRenewProductId ?? "", r.inBillingRetry ? "true" : "false",
            r.gracePeriodExpires?.iso8601 ?? "", r.expirationReason?.rawValue ?? "", r.priceIncrease ?? "",
            "\(r.paidPeriods)", "\(r.billingFailures)",
            // One cell for every currency paid in: "USD 87.838", several joined by "; ".
            r.paid.keys.sorted().map { "\($0) \(MoneyFormat.plain(r.paid[$0]!))" }.joined(separator: "; "),
            "\(r.paidServiceDays)",
        ]
        let periods = zip(r.timeline.periods, r.money).map { p, m in
            [
                p.transactionId, p.productId, p.start.iso8601, p.end.iso8601, p.offerKind.rawValue,
                p.periodClass.rawValue, p.isRefunded ? "true" : "false", m.price.map(MoneyFormat.plain) ?? "",
                m.price == nil ? "" : m.currency ?? "", m.refundAmount.map(MoneyFormat.plain) ?? "",
                m.upgradeCredit.map(MoneyFormat.plain) ?? "",
            ]
        }
        return CSVTable(
            header: [
                "originalTransactionId", "userId", "email", "appAccountToken", "asOf", "state",
                "autoRenew", "autoRenewProductId", "inBillingRetry", "gracePeriodExpires",
                "expirationReason", "priceIncrease", "paidPeriods", "billingFailures", "paid",
                "paidServiceDays", "transactionId", "productId", "start", "end", "offerKind", "class",
                "refunded", "price", "currency", "refundAmount", "upgradeCredit",
            ],
            rows: (periods.isEmpty ? [Array(repeating: "", count: 11)] : periods).map { subscriber + $0 })
    }

    public var table: String { SubscriberText.render(report) }
}

enum SubscriberText {
    static func render(_ r: SubscriberReport) -> String {
        var lines: [String] = []
        lines.append("Subscription \(r.originalTransactionId) as of \(r.asOf.asOfText)")
        func field(_ name: String, _ value: String?) {
            lines.append("  " + name.padding(toLength: 20, withPad: " ", startingAt: 0) + (value ?? "–"))
        }
        field("user", [r.userId, r.email].compactMap { $0 }.joined(separator: " ").nilIfEmpty)
        field("appAccountToken", r.appAccountToken)
        field("environment", r.timeline.environment.rawValue)
        field("ownership", SubscriberText.ownership(r))
        field("product", r.productId)
        field("state", r.state?.rawValue ?? "not started")
        if let commitment = r.commitment { field("commitment", commitment.summary) }
        if r.owedPaymentFailed { field("access", CommitmentStatus.noGrace) }
        field("auto-renew", r.autoRenew.map { $0 ? "on" : "off" })
        field("renews to", r.autoRenewProductId)
        if let end = r.accessEnd { field(end.label, "\(end.at.iso8601) (\(r.fromAsOf(end.at)))") }
        field(
            "billing retry",
            r.billingRetrySince.map { since in
                "since \(since.iso8601) (\(r.fromAsOf(since)))"
                    + (r.billingRetryEnds.map { ", until \($0.iso8601) at most" } ?? "")
            } ?? "no")
        field("grace until", r.gracePeriodExpires?.iso8601)
        field("price increase", r.priceIncrease)
        field("expiration reason", r.expirationReason?.rawValue)
        field(
            "paid periods",
            r.runs > 1 ? "\(r.paidPeriods) this run, \(r.paidPeriodsInAllRuns) in \(r.runs) runs" : "\(r.paidPeriods)")
        field("billing failures", "\(r.billingFailures)")
        if r.unverifiedDocuments > 0 {
            field(
                "unverified",
                "\(r.unverifiedDocuments) unsigned document\(r.unverifiedDocuments == 1 ? "" : "s"), not applied to a signed subscription"
            )
        }
        field("paid", r.paid.keys.sorted().map { MoneyFormat.text(r.paid[$0]!, $0) }.joined(separator: ", ").nilIfEmpty)
        field("paid service", "\(r.paidServiceDays) days")
        SubscriberText.renewalDetails(r, field)
        lines.append("")
        var periods = TextTable(
            headers: ["transaction", "product", "start", "end", "offer", "class", "price", "returned"],
            rightAligned: [6, 7])
        periods.rows = zip(r.timeline.periods, r.money).map { p, m in
            let price = m.price.map { MoneyFormat.text($0, m.currency) } ?? (m.isCharged ? "unpriced" : "–")
            let returned =
                (m.refundAmount ?? m.upgradeCredit).map { MoneyFormat.text($0, m.currency) }
                ?? (p.isRefunded ? "refunded" : p.isSharingRevoked ? "sharing revoked" : "")
            return [
                p.transactionId, p.productId, p.start.isoDate, p.end.isoDate,
                SubscriberText.offer(p, r), p.periodClass.rawValue, price, returned,
            ]
        }
        lines.append(periods.render())
        lines.append("")
        var events = TextTable(headers: ["at", "event", "product"])
        events.rows = r.events.map {
            [$0.at.iso8601, $0.type.rawValue + ($0.expirationReason.map { " (\($0.rawValue))" } ?? ""), $0.productId]
        }
        lines.append(events.render())
        if !r.flags.isEmpty {
            lines.append("")
            var flags = TextTable(headers: ["flag", "by", "at", "note"])
            flags.rows = r.flags.map { [$0.offer.rawValue, $0.operatorName, $0.at.iso8601, $0.note ?? ""] }
            lines.append(flags.render())
        }
        return lines.joined(separator: "\n")
    }

    /// Apple's renewal details (docs/metrics.md, "Renewal details from Apple"), as pane 2 says them.
    static func renewalDetails(_ r: SubscriberReport, _ field: (String, String?) -> Void) {
        field("renewal", RenewalText.nextCharge(r))
        field("win-back offers", r.renewal.eligibleWinBackOfferIds.joined(separator: ", ").nilIfEmpty)
        field("apple account", RenewalText.appleAccount(r))
    }

    /// The period's offer kind, with the offer's length and who started it when Apple says
    /// ("introductory (1 month, by Apple)").
    static func offer(_ p: Period, _ r: SubscriberReport) -> String {
        let detail = RenewalText.period(r.renewal.periods[p.transactionId])
        return p.offerKind.rawValue + (detail.isEmpty ? "" : " (\(detail))")
    }

    /// "purchased", or the Family Sharing line the Subscriber pane shows.
    static func ownership(_ r: SubscriberReport) -> String {
        guard r.timeline.isFamilyShared else { return "purchased" }
        var text = "Family Sharing — access through a family member's purchase"
        if let revoked = r.timeline.sharingRevokedAt { text += "; sharing revoked on \(revoked.isoDate)" }
        return text
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
