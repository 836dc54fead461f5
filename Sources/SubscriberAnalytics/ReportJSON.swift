import Foundation
import SubscriptionModel
import SubscriptionTimeline

/// The exact JSON shapes of docs/metrics.md, "Command line and JSON shapes": camelCase keys in that
/// order, instants as `YYYY-MM-DDTHH:MM:SSZ`, every key always present (null when unknown).
public enum ReportJSON {
    public static func states(_ c: StateCounts) throws -> String {
        var o = JSONObject()
        o["asOf"] = .string(c.asOf.iso8601)
        var counts = JSONObject()
        for s in SubscriptionState.allCases { counts[s.rawValue] = .int(c[s]) }
        o["counts"] = .object(counts)
        o["active"] = .int(c.active)
        return JSONValue.object(o).text
    }

    public static func events(_ e: EventCounts) throws -> String {
        var o = JSONObject()
        o["from"] = .string(e.from.iso8601)
        o["to"] = .string(e.to.iso8601)
        var counts = JSONObject()
        for t in EventType.allCases { counts[t.rawValue] = .int(e[t]) }
        o["counts"] = .object(counts)
        var reasons = JSONObject()
        for r in ExpirationReason.allCases { reasons[r.rawValue] = .int(e[r]) }
        o["expirationReasons"] = .object(reasons)
        return JSONValue.object(o).text
    }

    public static func cohorts(_ g: CohortGrid) throws -> String {
        func rates(_ row: CohortGrid.Row) -> JSONValue { .array(row.rate.map { $0.map(JSONValue.double) ?? .null }) }
        var o = JSONObject()
        o["asOf"] = .string(g.asOf.iso8601)
        o["periods"] = .int(g.periods)
        o["cohorts"] = .array(
            g.cohorts.map { c in
                var r = JSONObject()
                r["month"] = .string(c.month.description)
                r["started"] = .int(c.started)
                r["retained"] = .array(c.retained.map(JSONValue.int))
                r["ended"] = .array(c.ended.map(JSONValue.int))
                r["rate"] = rates(c)
                return .object(r)
            })
        let avg = g.average
        var a = JSONObject()
        a["retained"] = .array(avg.retained.map(JSONValue.int))
        a["ended"] = .array(avg.ended.map(JSONValue.int))
        a["rate"] = rates(avg)
        o["average"] = .object(a)
        return JSONValue.object(o).text
    }

    public static func recovery(_ r: RecoveryReport) throws -> String {
        var o = JSONObject()
        o["from"] = .string(r.from.iso8601)
        o["to"] = .string(r.to.iso8601)
        o["asOf"] = .string(r.asOf.iso8601)
        o["failures"] = .int(r.failures)
        o["recovered"] = .int(r.recovered)
        o["expired"] = .int(r.expired)
        o["pending"] = .int(r.pending)
        var within = JSONObject()
        for d in RecoveryReport.dayThresholds { within[String(d)] = .int(r.recoveredWithinDays[d] ?? 0) }
        o["recoveredWithinDays"] = .object(within)
        return JSONValue.object(o).text
    }

    public static func subscriber(_ r: SubscriberReport) throws -> String {
        func opt(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        var o = JSONObject()
        o["originalTransactionId"] = .string(r.originalTransactionId)
        o["environment"] = .string(r.timeline.environment.rawValue)
        o["ownership"] = .string(r.timeline.ownership.rawValue)
        o["userId"] = opt(r.userId)
        o["email"] = opt(r.email)
        o["appAccountToken"] = opt(r.appAccountToken)
        o["productId"] = opt(r.productId)
        o["state"] = opt(r.state?.rawValue)
        o["autoRenew"] = r.autoRenew.map(JSONValue.bool) ?? .null
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
                var x = JSONObject()
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
                var x = JSONObject()
                x["since"] = .string(since.iso8601)
                x["until"] = opt(r.billingRetryEnds?.iso8601)
                return .object(x)
            } ?? .null
        // Only when there are any, so the usual report keeps its shape.
        if r.unverifiedDocuments > 0 { o["unverifiedDocuments"] = .int(r.unverifiedDocuments) }
        o["periods"] = .array(
            zip(r.timeline.periods, r.money).map { p, m in
                var x = JSONObject()
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
                x["price"] = m.price.map(amount) ?? .null
                x["currency"] = m.price == nil ? .null : opt(m.currency)
                x["refundAmount"] = m.refundAmount.map(amount) ?? .null
                x["upgradeCredit"] = m.upgradeCredit.map(amount) ?? .null
                return .object(x)
            })
        o["events"] = .array(
            r.events.map { e in
                var x = JSONObject()
                x["at"] = .string(e.at.iso8601)
                x["type"] = .string(e.type.rawValue)
                x["productId"] = .string(e.productId)
                x["expirationReason"] = opt(e.expirationReason?.rawValue)
                return .object(x)
            })
        o["flags"] = .array(
            r.flags.map { f in
                var x = JSONObject()
                x["offer"] = .string(f.offer.rawValue)
                x["at"] = .string(f.at.iso8601)
                x["note"] = opt(f.note)
                return .object(x)
            })
        var paid = JSONObject()
        for currency in r.paid.keys.sorted() { paid[currency] = amount(r.paid[currency]!) }
        o["paid"] = .object(paid)
        o["paidServiceDays"] = .int(r.paidServiceDays)
        o["commitment"] =
            r.commitment.map { c in
                var x = JSONObject()
                x["period"] = c.period.map { .int($0) } ?? .null
                x["of"] = c.of.map { .int($0) } ?? .null
                x["ends"] = opt(c.ends?.iso8601)
                x["price"] = c.price.map(amount) ?? .null
                x["currency"] = opt(c.currency)
                x["autoRenew"] = .bool(c.autoRenew)
                x["remaining"] = c.remaining.map(amount) ?? .null
                return .object(x)
            } ?? .null
        renewalDetails(r, &o)
        return JSONValue.object(o).text
    }

    /// `renewalPrice` (currency units) and `renewalCurrency`, `eligibleWinBackOfferIds`,
    /// `appTransactionId` and `appTransactionSubscriptions` (every subscription sharing it, this
    /// one included; empty when unknown).
    static func renewalDetails(_ r: SubscriberReport, _ o: inout JSONObject) {
        let d = r.renewal
        o["renewalPrice"] = d.renewalPrice.map(amount) ?? .null
        o["renewalCurrency"] = d.renewalPrice == nil ? .null : d.renewalCurrency.map(JSONValue.string) ?? .null
        o["eligibleWinBackOfferIds"] = .array(d.eligibleWinBackOfferIds.map(JSONValue.string))
        o["appTransactionId"] = d.appTransactionId.map(JSONValue.string) ?? .null
        o["appTransactionSubscriptions"] = .array(d.sameAccount.map(JSONValue.string))
    }

    /// An amount in currency units (milliunits / 1000).
    static func amount(_ milliunits: Int64) -> JSONValue { .double(Double(milliunits) / 1000) }

    /// Written straight to text: a million-subscriber list as a tree of `JSONValue`s took
    /// hundreds of megabytes.
    public static func eligibility(_ rows: [EligibleSubscriber], asOf: Instant) throws -> String {
        var counts = JSONObject()
        var n: [OfferFlagKind: Int] = [:]
        for r in rows { n[r.offer, default: 0] += 1 }
        for k in OfferFlagKind.allCases { counts[k.rawValue] = .int(n[k] ?? 0) }
        var out = "{\"asOf\":"
        out.reserveCapacity(64 + rows.count * 120)
        JSONValue.writeString(asOf.iso8601, to: &out)
        out += ",\"counts\":"
        JSONValue.object(counts).write(to: &out)
        out += ",\"subscribers\":["
        for (i, r) in rows.enumerated() {
            out += i == 0 ? "{\"offer\":" : ",{\"offer\":"
            JSONValue.writeString(r.offer.rawValue, to: &out)
            out += ",\"originalTransactionId\":"
            JSONValue.writeString(r.originalTransactionId, to: &out)
            out += ",\"productId\":"
            JSONValue.writeString(r.productId, to: &out)
            out += ",\"detail\":"
            JSONValue.writeString(r.detail, to: &out)
            if r.offer == .winBackOffer {
                out += ",\"appleOfferIds\":"
                JSONValue.array(r.appleOfferIds.map(JSONValue.string)).write(to: &out)
            }
            out += "}"
        }
        out += "]}"
        return out
    }
}

/// A JSON object that keeps its keys in insertion order.
public struct JSONObject: Sendable, Equatable {
    public private(set) var keys: [String] = []
    private var values: [String: JSONValue] = [:]

    public init() {}

    public subscript(key: String) -> JSONValue? {
        get { values[key] }
        set {
            if values[key] == nil, newValue != nil { keys.append(key) }
            if newValue == nil { keys.removeAll { $0 == key } }
            values[key] = newValue
        }
    }
}

/// A JSON value with a compact, deterministic rendering.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if d.isFinite { out += d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : "\(d)" } else { out += "null" }
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, k) in o.keys.enumerated() {
                if i > 0 { out += "," }
                Self.writeString(k, to: &out)
                out += ":"
                o[k]!.write(to: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += s
            out += "\""
            return
        }
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20: out += String(format: "\\u%04x", u.value)
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
    }
}
